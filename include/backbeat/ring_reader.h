/* backbeat/ring_reader.h — reading ring files (docs/RING_FILE.md) of running or dead processes:
 * open one read-only, take a consistent snapshot of it as a `.bb` dump (what `backbeat recover`
 * writes), or follow it: the whole records committed since a position, per ring, with the bytes
 * lost when the reader fell a lap behind, as a `.bb` dump (bb_ring_follow) or record by record
 * from a buffer the reader reuses (bb_ring_follow_records, bb_ring_find_schema, bb_ring_intern).
 *
 * Contract:
 *  - The file is opened O_RDONLY | O_NONBLOCK | O_CLOEXEC, must be a regular file (a FIFO, a
 *    device or a directory is refused at once), and is mapped PROT_READ, MAP_SHARED. The reader
 *    never writes to it and takes no lock the writer takes: following a process has no effect
 *    on it beyond the page-cache reads.
 *  - Nothing in the file is trusted: a header that does not validate is refused with a message
 *    saying what is wrong; metadata entries, intern entries and records that do not validate
 *    are skipped (and counted in bb_ring_stats), never followed. Cost is linear in the file's
 *    size whatever its contents; holes of a sparse file are never read.
 *  - A ring being written is cut as a live dump cuts it (format/ring_cut.h): a record whose
 *    bytes could have changed while they were copied is dropped, never returned; records in
 *    flight are not returned until they are complete.
 *  - Schemas, view sets and interned strings the process registers after the file was opened
 *    (its metadata log) are picked up by every snapshot and follow call.
 *  - Every function returns errors as values; none prints. Not thread-safe per bb_ring (use one
 *    bb_ring per thread, or lock).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_RING_READER_H
#define BACKBEAT_RING_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "reader.h"
#include "schema.h"
#include "detail/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An open ring file (opaque). */
typedef struct bb_ring bb_ring;

/* What a ring file's header says (fixed at creation, but `state`). */
typedef struct bb_ring_info {
    uint64_t instance_id; /* the dump's instance id */
    uint64_t pid;
    uint64_t start_ns; /* CLOCK_REALTIME at creation */
    uint64_t file_size;
    uint64_t capacity; /* bytes per ring */
    uint32_t shards;
    uint32_t state;      /* 1 running, 2 closed (as last read), other values: damaged */
    uint64_t proc_start; /* the writer's start time (clock ticks since boot), 0 unknown */
    char boot_id[40];    /* the boot it ran in, "" unknown */
    char host[256];
} bb_ring_info;

/* What the reader took from the file and what it skipped, as of the last call. */
typedef struct bb_ring_stats {
    size_t events;         /* distinct schemas recovered */
    size_t views;          /* view sets recovered */
    size_t interns;        /* intern entries recovered */
    bool intern_full;      /* the writer's intern table filled (the dump carries its placeholder) */
    size_t meta_skipped;   /* metadata entries unfinished or damaged, skipped */
    bool meta_stopped;     /* the log's rest could not be walked (a damaged entry length) */
    uint32_t meta_dropped; /* entries the writer could not fit in the log */
    uint32_t cut_shards;   /* rings cut below a lapped writer's mark by the last snapshot */
    bool written;          /* some ring holds bytes (a cursor past 0) */
} bb_ring_stats;

/* Whether the process writing the file still runs (bb_ring_liveness). */
enum {
    BB_RING_UNKNOWN = -1, /* its lock cannot be tested */
    BB_RING_GONE = 0,     /* its lock is free: the kernel drops it when the process dies */
    BB_RING_RUNNING = 1,  /* its lock is held and its pid and start time exist in this boot (or
                           * that cannot be checked: another boot id, no /proc) */
    BB_RING_ORPHAN = 2    /* its lock is held, but by a process that inherited the mapping (a
                           * fork child): the writer is gone */
};

/* Open the ring file `path` and validate its header. BB_ERR_IO (cannot open, not a regular
 * file), BB_ERR_NOT_DUMP (not a ring file), BB_ERR_VERSION, BB_ERR_TRUNCATED, BB_ERR_CORRUPT,
 * each with a message naming the file and the problem. */
BB_API bb_status bb_ring_open(const char *path, bb_ring **out, bb_error *err);
/* As bb_ring_open over `len` bytes at `data` holding a ring file (a copy of one, or bytes of
 * unknown origin: a test, a fuzzer), read as a dead process's file (bb_ring_liveness says
 * BB_RING_GONE). The bytes are not copied and must outlive the bb_ring; `name` (NULL: "ring
 * file") is used in messages. */
BB_API bb_status bb_ring_open_memory(const void *data, size_t len, const char *name, bb_ring **out,
                                     bb_error *err);
BB_API void bb_ring_close(bb_ring *ring);

/* Whether `err` (from bb_ring_open or bb_ring_open_memory) refused a file its process left
 * before it finished writing the header: BB_ERR_TRUNCATED, nothing was ever recorded in it (a
 * process killed in its first milliseconds, or one still creating the file: retry shortly). */
BB_API bool bb_ring_is_empty_error(const bb_error *err);

/* The header, and the counters of what the last call took and skipped. */
BB_API const bb_ring_info *bb_ring_get_info(const bb_ring *ring);
BB_API const bb_ring_stats *bb_ring_get_stats(const bb_ring *ring);

/* BB_RING_GONE, _RUNNING, _ORPHAN or _UNKNOWN, tested now (a non-blocking flock probe). */
BB_API int bb_ring_liveness(const bb_ring *ring);

/* The whole file as a `.bb` dump (format v1) in *dump (*len bytes; free with
 * bb_ring_buffer_free): one instance with the live recorder's instance id, shard ids,
 * capacities and heads, so records keep the duplicate keys a live dump gives them. Checked by
 * opening it with the reader. For a running process, what a live dump would hold (the window
 * copied, the head re-read, what was overwritten meanwhile cut); for a dead one, the records
 * its writers left in flight blanked (docs/RING_FILE.md "Records in flight"). Holes of the
 * file stay untouched zero pages of the buffer. */
BB_API bb_status bb_ring_snapshot(bb_ring *ring, void **dump, size_t *len, bb_error *err);
BB_API void bb_ring_buffer_free(void *dump);

/* bb_ring_snapshot written to `fd` (from its current offset; *written: the dump's size): the
 * parts of the rings the file holds no data for are left as holes (a seekable fd) or written as
 * zeros, and never read, so a sparse file costs what its data costs. BB_ERR_IO when a write
 * fails (what was written is then not a dump). */
BB_API bb_status bb_ring_snapshot_fd(bb_ring *ring, int fd, uint64_t *written, bb_error *err);

/* A record a reader adds to a snapshot: what it knows about the process that the file does not
 * say (`backbeat watch` adds the backbeat::Trigger record of the rule that fired). */
typedef struct bb_ring_extra {
    const bb_event_desc *event; /* its schema: added to the dump's registry (once) unless the
                                 * file holds an event of the same id */
    uint64_t ts;                /* its timestamp (ns, the file's clock) */
    const void *fields;         /* event->record_size bytes */
    const char *const *strings; /* per field index (NULL, or event->field_count entries): the
                                 * string an interned field stands for; its id is chosen and
                                 * stored in the field, the string added to the intern table */
} bb_ring_extra;

/* bb_ring_snapshot_fd plus the `n` records of `extra` (n <= 64), in a Shard section of their
 * own after the file's rings (shard id: the file's shard count), so the dump stays format v1
 * and every reader decodes them as ordinary records. BB_ERR_INVALID for a bad argument (an
 * event whose record_size does not fit, a string past 65535 bytes). */
BB_API bb_status bb_ring_snapshot_extra_fd(bb_ring *ring, int fd, const bb_ring_extra *extra,
                                           size_t n, uint64_t *written, bb_error *err);

/* Follow: where each ring was read up to. One per shard (bb_ring_info.shards), caller-owned. */
typedef struct bb_ring_cursor {
    uint64_t pos;   /* in: read records from here (BB_RING_OLDEST: the oldest record held,
                     * nothing reported lost below it; BB_RING_NOW: the current head; any
                     * other value, 0 included, is a position: bytes overwritten above it
                     * before they were read are reported in `lost`); out: where the next
                     * call goes on (always a position, never a sentinel) */
    uint64_t lost;  /* out: bytes between the old pos and the oldest record still whole (the
                     * writer lapped the reader); 0 when nothing was lost */
    uint64_t bytes; /* out: bytes of the records returned (positions [pos - bytes, pos)) */
    uint64_t head;  /* out: the writer's cursor as read (the ring holds min(head, capacity)
                     * bytes; head grows by the bytes written) */
} bb_ring_cursor;
#define BB_RING_OLDEST (UINT64_MAX - 1) /* not 0: 0 is the position of an empty ring */
#define BB_RING_NOW UINT64_MAX

/* The whole records committed on each ring since cursors[i].pos, as a `.bb` dump in *dump
 * (*len bytes, free with bb_ring_buffer_free): one Shard per ring holding only those records,
 * at their own positions (the duplicate keys of a live dump), plus every schema, view set and
 * intern entry known so far. A record still being written stops the ring's read below it (it
 * comes with a later call); a lap lost is reported in cursors[i].lost, never filled with
 * anything. The cursors are updated. A caller computes rates from the records and `bytes`,
 * losses from `lost`, and ring fill from `head` and the capacity. */
BB_API bb_status bb_ring_follow(bb_ring *ring, bb_ring_cursor *cursors, void **dump, size_t *len,
                                bb_error *err);

/* ---- following record by record ---------------------------------------------------------- */

/* A record bb_ring_follow_records hands to its caller. */
typedef struct bb_ring_record {
    uint32_t shard;           /* the ring it was written to */
    uint32_t len;             /* field bytes (schema->record_size) */
    uint64_t pos;             /* the absolute position of its first byte in that ring */
    uint64_t ts;              /* its timestamp (ns, the file's clock) */
    uint64_t event_id;        /* its event: schema->id */
    const bb_rschema *schema; /* its schema (as bb_ring_find_schema gives it) */
    const uint8_t *fields;    /* its `len` field bytes, in the reader's own copy (never the
                               * shared mapping): valid until the next follow call on the ring
                               * or its close; decode them with bb_decode_field, interned
                               * strings with bb_ring_intern */
} bb_ring_record;

/* Called for each record, in ring order; a non-zero return stops the call after it. */
typedef int (*bb_ring_record_fn)(void *ctx, const bb_ring_record *rec);

/* bb_ring_follow without the `.bb` dump: the whole records committed on each ring since
 * cursors[i].pos are handed to fn one by one, ring after ring (0, 1, ...), each ring's oldest
 * first (no order across rings: merge by ts where needed). The cursors mean and become what
 * they do for bb_ring_follow (a lap lost is reported in `lost`, a reader that fell behind goes
 * on at the oldest record still whole; losses and bytes seen add up to what was written). The
 * cut is the same: each ring's new bytes are copied out of the mapping newest chunk first into
 * a buffer the bb_ring owns and reuses, the head is read again, and a record whose bytes could
 * have changed while they were copied is dropped, never handed over; a record still being
 * written stops the ring's read below it (it comes with a later call). No allocation or system
 * call per record: a call costs a few system calls and the copy of the bytes written since the
 * last one. While a running writer is quiet, calls also get the buffers for whole rings ready,
 * a MiB a call (written once, the ring's pages read once), so that its next burst finds them
 * warm: 1.1 to 1.6 times the rings' size per bb_ring, at most 128 MiB a process (beyond that,
 * a buffer grows when a call needs it); bb_ring_close frees them. When fn stops the call, its
 * ring's cursor is left just past the record (`bytes` and `lost` counted to there) and the
 * later rings' cursors are not touched (a sentinel stays one): the next call goes on from there.
 * BB_ERR_INVALID for a NULL argument; BB_ERR_NOMEM, BB_ERR_TRUNCATED and BB_ERR_IO as
 * bb_ring_follow. */
BB_API bb_status bb_ring_follow_records(bb_ring *ring, bb_ring_cursor *cursors,
                                        bb_ring_record_fn fn, void *ctx, bb_error *err);

/* The schema of event `event_id` as the file registered it and the last snapshot or follow call
 * read it, or NULL (not registered, or rejected). The pointer is valid while the bb_ring is
 * open. */
BB_API const bb_rschema *bb_ring_find_schema(const bb_ring *ring, uint64_t event_id);

/* The string an interned field's `id` stands for, as the last snapshot or follow call read the
 * intern table, through the generation that gave the id: true and *out (bytes owned by the
 * bb_ring, valid until its next call or close), or false when the id names no string read, or
 * one of a generation the writer has since recycled (never another string). Id 0 (the writer's
 * table was full) gives the placeholder a dump of the file carries once the header says so. */
BB_API bool bb_ring_intern(const bb_ring *ring, uint32_t id, bb_strview *out);

#ifdef __cplusplus
}
#endif

#endif /* BACKBEAT_RING_READER_H */
