/* backbeat/registry.h — the process-wide registry of event schemas and view sets.
 *
 * Every event defined with BB_EVENT (event.h) and every view set defined with BB_VIEWS
 * registers itself from a constructor of the object that contains it (executable, static or
 * shared library, dlopen'ed plugin) and unregisters from its destructor (dlclose). Nothing here
 * is on the hot path.
 *
 * Unloaded objects: records of a dlclose'd plugin stay in the rings, so when the last
 * registered descriptor of an id is removed the library keeps a deep copy of its schema (name,
 * description, fields, labels, units: library-owned memory, never freed, one copy per id, at
 * most 256 KiB of them per process; past that an unloaded schema is dropped and its records are
 * skipped by readers). bb_registry_snapshot does not list these copies: it lists what is
 * registered now. Every dump (bb_recorder_dump_*, including the crash path) writes the
 * registered schemas, then the kept copies whose id is not registered, so a dump taken after
 * the unload still decodes the plugin's records. Snapshots stay lock-free and
 * async-signal-safe; the copy is made in bb_registry_remove (under the registry's lock).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_REGISTRY_H
#define BACKBEAT_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "schema.h"
#include "detail/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compute the content-addressed id of an event (FORMAT.md "Event ids"). Pure; does not
 * touch the registry. */
BB_API uint64_t bb_event_id_compute(const bb_event_desc *desc);

/* FNV-1a 64 of a byte string (the plain hash, for tests and tools). */
BB_API uint64_t bb_fnv1a64(const void *data, size_t len);

/* The exact byte stream bb_event_id_compute hashes for `desc`: copies up to `cap` bytes into
 * `out` (which may be NULL when cap is 0) and returns the stream's full length. For tests and
 * tools; does not allocate. */
BB_API size_t bb_event_id_input(const bb_event_desc *desc, uint8_t *out, size_t cap);

/* Link `desc` into the registry and fill desc->id. Idempotent for one descriptor. Called by
 * the constructor that BB_EVENT emits; safe to call from several threads. */
BB_API void bb_registry_add(bb_event_desc *desc);

/* Unlink `desc` (called by the destructor BB_EVENT emits, e.g. on dlclose). If no other
 * registered descriptor has its id, a copy of its schema is kept for dumps (see above). */
BB_API void bb_registry_remove(bb_event_desc *desc);

/* Copy up to `cap` registered descriptors, de-duplicated by id (first registration wins),
 * in registration order, into `out`. Returns the total number of distinct events, which may
 * exceed `cap` (call again with a larger array). */
BB_API size_t bb_registry_snapshot(const bb_event_desc **out, size_t cap);

/* A monotonically increasing counter bumped on every add/remove, so callers can cache a
 * serialised registry and know when it went stale. */
BB_API uint64_t bb_registry_generation(void);

/* View sets: a block of query DDL (DuckDB SQL) that rides in every dump as a Views section.
 * ABI: compiled into programs by BB_VIEWS (detail/abi.h); `abi` must be BB__ABI_LAYOUT. */
typedef struct bb_view_desc {
    uint32_t abi;     /* BB__ABI_LAYOUT of the headers it was built with */
    const char *name; /* identifier used to define it, for diagnostics */
    const char *sql;  /* NUL-terminated UTF-8 text, written verbatim */
    struct bb_view_desc *registry_next;
} bb_view_desc;

BB_API void bb_views_add(bb_view_desc *views);
BB_API void bb_views_remove(bb_view_desc *views);
/* As bb_registry_snapshot, for view sets (registration order; sets with equal SQL text, such as
 * the copies of one BB_VIEWS in a header that several files include, are listed once). */
BB_API size_t bb_views_snapshot(const bb_view_desc **out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* BACKBEAT_REGISTRY_H */
