/* ring_priv.h — the ring-file reader's internals (backbeat/ring_reader.h): the open file, its
 * validated regions, what its metadata log and intern table yielded so far, and the steps the
 * snapshot and follow calls share (ring_reader.c: open and header; ring_meta.c: metadata and
 * intern table; ring_inflight.c: records left in flight; ring_window.c: the cut of one ring;
 * ring_dump.c: the `.bb` assembled from them). Internal to libbackbeat-read. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_READ_RING_PRIV_H
#define BACKBEAT_READ_RING_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/detail/frame.h"
#include "backbeat/ring_reader.h"
#include "format/ring_file.h"
#include "format/rseq_margin.h"
#include "format/sink.h"
#include "read/u64map.h"

/* The regions of a validated header (offsets into the file). */
typedef struct bb__ring_regions {
    uint64_t cursors, slots, meta, meta_len, intern, arena, rings;
    uint32_t entries, bytes, slot_count, tag_base;
    uint32_t version, gens; /* intern generations: 1..8 (a version 2 file: 1) */
} bb__ring_regions;

/* Bytes taken from the file: a private copy (malloc'ed), checked and later encoded from it,
 * never read from the shared mapping again (its writer, or a rewrite, may change the file). */
typedef struct bb__ring_piece {
    const uint8_t *p;
    size_t len;
} bb__ring_piece;

/* An intern entry that validated: its id (its generation's id base + its index there + 1), the
 * storage of the table it came from, its bytes copied (p, len). */
typedef struct bb__ring_intern {
    uint32_t id, len, gen;
    const uint8_t *p;
} bb__ring_intern;

/* What was taken from one storage of the intern table (docs/RING_FILE.md "The intern table"). */
typedef struct bb__ring_gen {
    uint32_t number;  /* the generation whose entries were taken (BB_RING_GEN_FREE: none) */
    uint32_t id_base; /* its entry k has id id_base + k + 1 */
    uint32_t scan;    /* its entries below it (from the storage's first) are all decided */
    uint64_t budget;  /* the storage's arena bytes not yet claimed by taken entries */
} bb__ring_gen;

/* An event id and its record size (found through size_ix). */
typedef struct bb__ring_size {
    uint64_t id;
    uint32_t size;
} bb__ring_size;

/* A schema as bb_ring_find_schema gives it: a dump holding only it, open over its buffer. */
typedef struct bb__ring_schema {
    bb_dump *d;
    uint8_t *buf;
} bb__ring_schema;

/* bb_ring_follow_records's buffers, kept from call to call (ring_follow.c; bb_ring_close unmaps
 * them): per ring, a copy of cap (a power of two) bytes of ring, then BB__RING_MIRROR bytes that
 * repeat its start (any frame fits, so a record that wraps is handed over contiguous). Each is
 * an anonymous mapping of `bytes` bytes, faulted in once when made (a fault a page, mid-call,
 * cost a follower its lap on a VM), never shrunk. */
#define BB__RING_MIRROR ((uint64_t)BB__FRAME_SIZE(UINT16_MAX))
typedef struct bb__ring_fbuf {
    uint8_t *p;
    uint64_t cap;
    size_t bytes; /* of the mapping (0: none) */
} bb__ring_fbuf;
typedef struct bb__ring_follow {
    uint32_t n;
    bb__ring_fbuf *bufs; /* per ring */
    uint64_t *h0;        /* per ring: the head read at the call's start */
    uint64_t *starts;    /* the records the walk down accepted of one ring, newest first */
    size_t capstarts;    /* entries; an anonymous mapping of capstarts * 8 bytes */
    size_t page;         /* the page size */
    bool no_populate;    /* madvise(MADV_POPULATE_*) refused once (an older kernel): faults */
    uint64_t ready;      /* bytes of these buffers made ready ahead (bb__ring_follow_ready) */
    uint32_t quiet;      /* calls in a row that found every head where the last one did */
    uint32_t readying;   /* the ring being made ready (ring_follow.c ready_next); n: none */
    uint64_t ready_at;   /* bytes of it made ready so far */
} bb__ring_follow;

/* The bytes of follow buffers made ready ahead of a writer, the whole process's (ring_follow.c
 * charges them, bb_ring_close gives them back: ring_reader.c holds the count), and their
 * budget: two files of the default 2 x 16 MiB with their lists, so that following thousands
 * of files at once (`top --scan`) holds no buffer per file until a call needs it, and 128 MiB
 * at most. Atomic (__atomic builtins). */
extern uint64_t bb__ring_follow_ready;
#define BB__RING_READY_BUDGET ((uint64_t)128 << 20)

/* What bb_ring_snapshot_extra_fd adds to the dump being built (ring_extra.c): schema entries
 * and intern entries, already encoded, and one more Shard's region (cap bytes, head). */
typedef struct bb__ring_extra {
    bb__membuf schema, intern;
    uint32_t nschema, nintern;
    uint64_t schema_id[64];    /* each schema entry's id: left out when the file has it by then */
    size_t schema_off[64 + 1]; /* entry i is schema.data[schema_off[i], schema_off[i + 1]) */
    uint8_t *region;
    uint64_t cap, head;
} bb__ring_extra;

struct bb_ring {
    int fd;           /* -1 for a ring file in memory (tests, fuzzing) */
    const uint8_t *d; /* the mapping (or the caller's memory) */
    size_t len;
    bool mapped;
    char name[256]; /* for messages */
    bb_ring_info info;
    bb_ring_stats stats;
    bb__ring_regions g;
    /* the metadata log, read incrementally */
    uint64_t meta_pos; /* entries below it are taken or skipped */
    bb__ring_piece *events;
    size_t nevents;
    bb__ring_piece *views;
    size_t nviews;
    bb__u64map view_ix;       /* FNV-1a 64 of a view text (probed up past a collision) ->
                             * its index + 1 */
    bb__ring_size *sizes;     /* nevents entries, parallel to events */
    bb__ring_schema *schemas; /* nevents entries, parallel to events */
    bb__u64map size_ix;       /* event id -> its index in sizes + 1 */
    bb__rseq_frames frames;   /* the frames of the events recovered (for the rseq margin) */
    /* the intern table */
    bb__ring_intern *interns;
    size_t ninterns;
    uint8_t **intern_taken; /* per chunk of BB__RING_INTERN_CHUNK entries, NULL until one of
                             * them is decided; then a byte per entry: taken (1) or rejected
                             * for good (2). Memory follows the entries present, not the count
                             * the header announces. */
    bb__u64map intern_ix;   /* an id taken -> its index in interns + 1 (bb_ring_intern) */
    bool intern_ix_failed;  /* out of memory while indexing: bb_ring_intern searches */
    bb__ring_gen gens[BB_RING_GEN_MAX]; /* per storage of the table (g.gens of them) */
    uint32_t *stalls; /* per shard: follow calls in a row stopped by an unknown position */
    /* the byte ranges of the last dump built that hold data (everything else is zero and was
     * never touched: a sparse file's holes stay holes in the dump written) */
    struct bb__ring_range {
        const uint8_t *p;
        uint64_t n;
    } * ranges;
    size_t nranges, ranges_cap;
    bool ranges_failed;          /* out of memory while noting them: write everything */
    uint64_t data_from, data_to; /* file bytes known to hold data (the last SEEK_DATA/SEEK_HOLE
                                  * answer: blocks, once there, stay) */
    const bb__ring_extra *extra; /* set during bb_ring_snapshot_extra_fd only */
    bool following;              /* during bb_ring_follow: its window is below the heads, all
                                  * data (no hole search), its buffer from the pool */
    uint32_t busy_calls;         /* bb_ring_follow calls in a row that returned records */
    uint32_t idle_calls;         /* bb_ring_follow calls in a row that returned none */
    bool streaming;              /* bb_ring_follow: a writer streams (2 busy calls in a row, and
                                  * not yet BB__RING_IDLE_CALLS idle ones): the file's pages stay
                                  * mapped from call to call */
    bool buf_zeroed;             /* the last dump built came zeroed (else: only its sections
                                  * were; the shard bodies are the caller's to clear) */
    bb__ring_follow *fol;        /* bb_ring_follow_records's buffers (NULL until its first call) */
};

/* Intern entries per chunk of bb_ring.intern_taken, and the chunks of a table of n entries. */
#define BB__RING_INTERN_CHUNK 16384u
#define BB__RING_INTERN_CHUNKS(n) \
    (((uint64_t)(n) + BB__RING_INTERN_CHUNK - 1) / BB__RING_INTERN_CHUNK)

/* The reason given for a file its process left before finishing the header
 * (bb_ring_is_empty_error looks for it). */
#define BB__RING_EMPTY_WHY \
    "empty: its process ended before it finished writing the header (nothing was recorded)"

/* Validate the header at d[len] of a file of `size` bytes into info and g; false with the
 * reason in why[cap]. */
bool bb__ring_header(const uint8_t *d, size_t len, uint64_t size, bb_ring_info *info,
                     bb__ring_regions *g, bb_status *st, char *why, size_t cap);

/* Take the metadata entries and intern entries that appeared since the last call. `live`:
 * an unfinished entry stops the walk (it is being written; taken by a later call) instead of
 * being skipped. False on allocation failure. */
bool bb__ring_meta_update(bb_ring *r, bool live);

/* Whether the mapped file still holds every byte mapped (a file truncated under the reader:
 * touching the mapping past its new end would raise SIGBUS): BB_OK, or the error set. */
bb_status bb__ring_still_whole(const bb_ring *r, bb_error *err);

/* The highest id the file's intern table can give (the ids above are never a file's string:
 * bb_ring_snapshot_extra_fd gives them to the strings it adds). */
uint32_t bb__ring_intern_last_id(const bb_ring *r);

/* The record size of event `id`, or -1 (a bb__ring_size_fn over a bb_ring). */
int32_t bb__ring_size_of(void *ring, uint64_t id);

/* Whether a process holds the file's lock (its writer, or a process that inherited it): the
 * flock probe of bb_ring_liveness alone, without its /proc checks (a running process and an
 * orphan's are read alike). False for a ring file in memory. */
bool bb__ring_locked(const bb_ring *r);

/* Little-endian loads from the file (atomic where the writer stores them). */
/* Let go of the file pages the mapping of r holds (they stay in the page cache; a later read
 * maps them in again): called once what was read was copied, so that a reader of thousands of
 * ring files does not hold every file's pages (issue 43). */
void bb__ring_let_go(const bb_ring *r);
/* Idle bb_ring_follow calls in a row after which a streaming file's pages are let go. */
#define BB__RING_IDLE_CALLS 16u
uint32_t bb__ring_get32(const uint8_t *d, uint64_t off);
uint64_t bb__ring_get64(const uint8_t *d, uint64_t off);
uint64_t bb__ring_load64(const uint8_t *d, uint64_t off); /* acquire */

/* ---- records in flight (ring_inflight.c) ---------------------------------------------- */

/* An announcement of the file for one shard: taglen's length and its position (UINT64_MAX
 * unknown), and the entry it was read from. */
typedef struct bb__ring_ann {
    uint32_t shard, slot, len;
    uint64_t pos;
} bb__ring_ann;

/* The announcements of every shard (entries whose tag is tag_base + shard, length a frame's
 * and at most the capacity; the overflow entry ignored), sorted by shard, into *out (malloc'ed;
 * *n of them). `wait`: an unknown position is re-read (spinning, yielding now and then, a
 * bounded number of times) while its writer is between announcing and reserving. False on
 * allocation failure. */
bool bb__ring_announcements(const bb_ring *r, bool wait, bb__ring_ann **out, size_t *n);

/* The announcements of shard `shard` a snapshot catching up on its writers keeps
 * (ring_window.c): those of the later read now[nnow] (every shard's, as
 * bb__ring_announcements gives them), plus those of an earlier read had[nhad] that now does not
 * hold (same entry and position; or, for a position not yet known then, same entry and length)
 * whose position lies in the window [low, head) or was not known (a writer that completed
 * between the reads may have left its record half-copied by the earlier pass); sorted by
 * position, into *out (malloc'ed, *n of them). False on allocation failure. */
bool bb__ring_ann_union(const bb__ring_ann *had, size_t nhad, const bb__ring_ann *now, size_t nnow,
                        uint32_t shard, uint64_t low, uint64_t head, bb__ring_ann **out, size_t *n);

/* One ring's copy as the cut sees it: `ring` holds `cap` bytes, the window is [low, head). */
typedef struct bb__ring_view {
    uint8_t *ring;
    uint64_t cap, head, low;
    const bb_ring *r;
} bb__ring_view;

/* Blank the known-position announcements `a[n]` in the window (the union of their ranges, in
 * time linear in the window whatever they claim), then the holes of unknown positions found
 * where the walk down from the head breaks (docs/RING_FILE.md "Records in flight"). Returns
 * the end of the highest last-lap bytes a writer in flight below the window may have written
 * into it (0 if none): the caller cuts below it. */
uint64_t bb__ring_inflight(bb__ring_view *v, const bb__ring_ann *a, size_t n);

/* ---- the buffers returned (ring_buf.c) ----------------------------------------------------- */

/* A heap block of at least n bytes (NULL: out of memory), freed with bb__ring_buf_put
 * (bb_ring_buffer_free) or free(): `keep`, one from the pool when one fits (its bytes are what
 * its last user left: *zeroed is false), else a zeroed allocation (*zeroed true) that goes back
 * to the pool when bb__ring_buf_put frees it. A kept allocation is made `room` bytes (>= n:
 * what the caller's later blocks may need) when the pool keeps blocks that large, its pages
 * faulted in at once. */
uint8_t *bb__ring_buf_get(size_t n, size_t room, bool keep, bool *zeroed);
void bb__ring_buf_put(void *p);

/* ---- the `.bb` (ring_dump.c) ----------------------------------------------------------- */

/* One shard of the dump being built: its head and capacity (a power of two). */
typedef struct bb__ring_shard_out {
    uint64_t head, cap;
    uint8_t *body; /* set by bb__ring_dump_build: cap bytes of zeros to fill */
} bb__ring_shard_out;

/* Lay out a dump of the ring's schemas, interns and views and of `shards` (info.shards of
 * them), allocate it zeroed (large sizes stay untouched zero pages; following, from the pool
 * of ring_buf.c: r->buf_zeroed false when its shard bodies hold an older dump's bytes) and
 * write everything but the shard bodies; their places are set in shards[i].body. */
bb_status bb__ring_dump_build(bb_ring *r, bb__ring_shard_out *shards, uint8_t **out,
                              size_t *out_len, bb_error *err);

/* Set the head a built dump's shard section carries (FORMAT.md: the u64 head, then the u64
 * capacity, just before the body): a live snapshot reads each ring's head again right before
 * copying it. */
void bb__ring_dump_set_head(bb__ring_shard_out *shard, uint64_t head);

/* Copy the file's ring `shard` positions [from, to) into `dst` (a ring of dcap bytes), reading
 * only the file's data extents (holes stay zero in dst). */
/* The schema entries r->extra adds to the dump being built (ring_dump.c): those whose event
 * the file's registry, as this snapshot read it, lacks. Their bytes (written to `sink` when
 * its write is not NULL; 0 when the sink fails) and their count in *count. */
uint64_t bb__ring_extra_schema(const bb_ring *r, const bb__ring_extra *x, uint32_t *count,
                               bb__sink sink);

/* bb_ring_snapshot_fd's body: the snapshot built (with r->extra when set) and written. */
bb_status bb__ring_snapshot_write(bb_ring *r, int fd, uint64_t *written, bb_error *err);

/* File bytes [off, off + n) into dst with pread, no page of the mapping touched (none faulted
 * in: on some VMs a fault costs ~10 us, more than reading the 4 KiB it maps). A read that fails
 * or comes short (the file was truncated under the reader, where the mapping would raise
 * SIGBUS) leaves the rest of dst zeros, which read as no record. */
void bb__ring_pread(int fd, uint8_t *dst, uint64_t off, uint64_t n);

void bb__ring_copy(bb_ring *r, uint32_t shard, uint64_t from, uint64_t to, uint8_t *dst,
                   uint64_t dcap);

#endif /* BACKBEAT_READ_RING_PRIV_H */
