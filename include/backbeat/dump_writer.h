/* backbeat/dump_writer.h — streaming writer of `.bb` dumps (FORMAT.md, format v1).
 *
 * The writer knows nothing about recorders: it takes a description of what to write (registry,
 * intern entries, view texts, shards, host) and streams the envelope, section table and bodies
 * into a sink. Section lengths are computed first, so the table is written before any body and
 * nothing is buffered beyond one shard's snapshot, which the caller provides. The writer does
 * not allocate: with an fd sink it is async-signal-safe (usable from a crash handler) as long as
 * the callbacks are.
 *
 * Sections are written in the reference order: Schema, Intern, one Views per text, one Shard
 * per ring (in the order given), Meta.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_DUMP_WRITER_H
#define BACKBEAT_DUMP_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "schema.h"
#include "detail/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where bytes go. `write` must consume all `len` bytes or fail (return non-zero). */
typedef struct bb_sink {
    int (*write)(void *ctx, const void *data, size_t len);
    void *ctx;
} bb_sink;

/* A sink that write(2)s to `fd` (retrying on EINTR and short writes). `fd_storage` must outlive
 * the sink. Async-signal-safe. */
BB_API bb_sink bb_sink_fd(int *fd_storage);

/* A sink into a caller-owned memory buffer; writing past `cap` fails. */
typedef struct bb_buffer_sink {
    uint8_t *data;
    size_t cap;
    size_t len;
} bb_buffer_sink;
BB_API bb_sink bb_sink_buffer(bb_buffer_sink *buf);

/* One interned string, as given to the writer. */
typedef struct bb_intern_item {
    uint32_t id;
    uint32_t len;
    const void *bytes;
} bb_intern_item;

/* What to write. Callbacks receive `ctx`. */
typedef struct bb_dump_input {
    uint64_t instance_id;
    const char *host; /* NUL-terminated; NULL is written as "" */

    const bb_event_desc *const *events; /* schemas, written in this order (ids already set) */
    size_t event_count;

    /* Intern entries: `intern_count` items; item i fetched with intern_get (stable for the whole
     * write: it is called twice per item, once to size the section, once to write it). */
    size_t intern_count;
    bb_intern_item (*intern_get)(void *ctx, size_t i);

    const char *const *views; /* NUL-terminated SQL texts, one Views section each */
    size_t view_count;

    /* Shards: shard i has capacity shard_capacity(ctx, i) (a power of two, fixed for the
     * write). shard_region(ctx, i, scratch, &head) returns the `capacity` bytes of the ring to
     * write and sets *head: either `scratch` after copying the ring into it, or a pointer to the
     * live ring itself (crash path). `scratch` has room for the largest capacity. */
    uint32_t shard_count;
    uint64_t (*shard_capacity)(void *ctx, uint32_t i);
    const uint8_t *(*shard_region)(void *ctx, uint32_t i, uint8_t *scratch, uint64_t *head);

    void *ctx;
} bb_dump_input;

/* Total size in bytes of the dump `in` describes (exactly what bb_dump_write writes); 0 when
 * `in` is invalid (bb_dump_write would return BB_ERR_INVALID). Does not allocate. */
BB_API uint64_t bb_dump_size(const bb_dump_input *in);

/* Stream the dump into `sink`. `scratch` must hold the largest shard capacity (may be NULL
 * when shard_region never uses it). On failure returns the status and, if `err` is non-NULL,
 * a message; the sink may have received a prefix of the dump. Input that cannot be encoded
 * (a string longer than 65535 bytes, record_size > BB_MAX_RECORD_SIZE, an unknown type tag, a
 * capacity that is not a power of two, ...) is rejected with BB_ERR_INVALID before any byte is
 * written; a failing sink gives BB_ERR_IO (message and err->offset name the dump offset). Uses
 * about 5 KiB of stack (a 4 KiB output buffer) and no heap. */
BB_API bb_status bb_dump_write(const bb_dump_input *in, bb_sink sink, uint8_t *scratch,
                               bb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* BACKBEAT_DUMP_WRITER_H */
