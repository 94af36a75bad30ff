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

#endif /* BACKBEAT_REGISTRY_INTERNAL_H */
