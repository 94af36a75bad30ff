/* registry_internal.h — what the dump path needs of the registry beyond registry.h. Private to
 * the library (not exported). */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_REGISTRY_INTERNAL_H
#define BACKBEAT_REGISTRY_INTERNAL_H

#include <stddef.h>

#include "backbeat/registry.h"

/* At most this many bytes of deep copies of unloaded schemas are kept (registry.c). */
#define BB_UNLOADED_MAX_BYTES (256u * 1024u)

/* What a dump writes: as bb_registry_snapshot (registered descriptors, de-duplicated by id,
 * registration order), then the kept copies of unloaded schemas whose id is not registered, in
 * unload order. Returns the total, which may exceed `cap`. Lock-free, allocation-free,
 * async-signal-safe. */
size_t bb__registry_snapshot_dump(const bb_event_desc **out, size_t cap);

/* Who is told of each effective add (bb_registry_add, bb_views_add), after the registry's lock
 * is released: ring_meta.c, which keeps the ring files' metadata logs current. The registry
 * knows nothing of ring files. Set under the registry's lock, so a registration racing with it
 * either is linked before this returns or calls the new hooks. NULL: nobody is told. */
typedef void (*bb__registry_event_hook)(const bb_event_desc *desc);
typedef void (*bb__registry_views_hook)(const bb_view_desc *views);
void bb__registry_set_hooks(bb__registry_event_hook on_event, bb__registry_views_hook on_views);

#endif /* BACKBEAT_REGISTRY_INTERNAL_H */
