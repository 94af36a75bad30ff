/* recorder_dump.c — dumping a recorder: snapshot each ring while writers keep recording, gather
 * the registry, intern table, views and host, and stream it all through the dump writer to an
 * fd, a path (temp name + rename) or a buffer; plus the async-signal-safe crash-path variant
 * that writes the live rings with preallocated descriptor arrays. The schemas written are the
 * registry's and those of unloaded objects it kept (registry_internal.h), so records of a
 * dlclose'd plugin still in the rings decode. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/recorder_internal.h"
#include "capture/registry_internal.h"
#include "common/cpu_hold.h"
#include "common/error_set.h"
#include "common/le_bytes.h"
#include "format/fsize_guard.h"
#include "format/ring_cut.h"
#include "format/rseq_margin.h"
#include "format/sink_sparse.h"
#include "format/wire.h"

#if defined(__SANITIZE_THREAD__)
#define BB_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BB_TSAN 1
#endif
#endif

/* The snapshot copy reads ring bytes that writers may be storing at that moment: a deliberate
 * race (torn records are rejected by the reader's walk, and bytes overwritten during the copy
 * are zeroed below). Under ThreadSanitizer the copy is an uninstrumented word loop, so it is
 * neither reported nor routed through the intercepted memcpy. */
#ifdef BB_TSAN
__attribute__((no_sanitize("thread"), noinline)) static void
racy_copy(uint8_t *dst, const uint8_t *src, size_t n) {
    const volatile uint64_t *s = (const volatile uint64_t *)(const void *)src;
    uint64_t *d = (uint64_t *)(void *)dst;
    for (size_t i = 0; i < n / 8; i++) d[i] = s[i]; /* n is a multiple of 4096 */
}
__attribute__((no_sanitize("thread"), noinline)) static void
racy_copy_bytes(uint8_t *dst, const uint8_t *src, size_t n) {
    const volatile uint8_t *s = src;
    for (size_t i = 0; i < n; i++) dst[i] = s[i];
}
#else
static void racy_copy(uint8_t *dst, const uint8_t *src, size_t n) { memcpy(dst, src, n); }
static void racy_copy_bytes(uint8_t *dst, const uint8_t *src, size_t n) { memcpy(dst, src, n); }
#endif

/* Field bytes of event `id` among the dump's schemas, or -1 (linear, with a one-entry cache:
 * only walked when a ring was lapped, see bb__ring_cut_below). */
typedef struct size_ctx {
    const bb__dump_events *ev;
    size_t hint;
} size_ctx;
static int32_t size_of(void *vctx, uint64_t id) {
    size_ctx *c = vctx;
    const bb__dump_events *ev = c->ev;
    if (c->hint < ev->n && ev->events[c->hint]->id == id) return ev->events[c->hint]->record_size;
    for (size_t k = 0; k < ev->n; k++)
        if (ev->events[k]->id == id) {
            c->hint = k;
            return ev->events[k]->record_size;
        }
    return -1;
}

/* Drop from a copy of ring `i` (buf; the live ring on the crash path) whatever a lapped writer
 * may have mixed into it: a writer descheduled between its reservation and its copy for a whole
 * lap writes its record late over newer ones, and the bytes it touches cannot be told apart
 * from theirs. Every record that may overlap such bytes starts below the end of their last
 * occurrence under the head, so the window is cut at the first record the reader would accept
 * that starts below it (cut_below: lapped_cut); [low, cut) is zeroed and the reader's walk
 * steps over the zeros. Two sources: writers still in flight whose reservation is below the
 * window (`fl`, collected after the head was read), and lapped writes already done, which their
 * writers marked in the cursor's `damaged_below` (bb__record_lapped; read after the in-flight
 * table, so the mark of a writer that retired before the collection is seen). `end` comes in
 * as the caller's own bound (bytes overwritten during the copy), 0 for none. The cut itself is
 * format/ring_cut.c's, shared with the ring-file reader; on the rseq path its walk starts at
 * the start of the head's lap when that is above `end` (bb__ring_lap_start). lapped_cut finds
 * the cut (the ring is not changed), drop_lapped makes it. */
static uint64_t lapped_cut(struct bb__recorder_hot *h, uint32_t i, const uint8_t *buf, uint64_t h0,
                           const bb__inflight *fl, size_t nfl, const bb__dump_events *ev,
                           uint64_t end) {
    uint64_t cap = h->capacity, low = h0 > cap ? h0 - cap : 0;
    for (size_t k = 0; k < nfl; k++) {
        if (fl[k].pos >= low || h0 <= fl[k].pos) continue;
        uint64_t e = bb__ring_last_lap(fl[k].pos, h0, cap) + fl[k].len;
        if (e > end) end = e;
    }
    uint64_t marked = __atomic_load_n(&h->cursors[i].damaged_below, __ATOMIC_ACQUIRE);
    if (marked > end) end = marked;
    size_ctx sc = {ev, 0};
    uint64_t from = h->commit == BB__COMMIT_RSEQ ? bb__ring_lap_start(h0, end, cap) : h0;
    if (end <= low || from <= low) return low;
    return bb__ring_cut_below(buf, cap, low, from, end < from ? end : from, size_of, &sc);
}
static void drop_lapped(struct bb__recorder_hot *h, uint32_t i, uint8_t *buf, uint64_t h0,
                        const bb__inflight *fl, size_t nfl, const bb__dump_events *ev,
                        uint64_t end) {
    uint64_t cap = h->capacity, low = h0 > cap ? h0 - cap : 0;
    bb__ring_blank(buf, cap, low, lapped_cut(h, i, buf, h0, fl, nfl, ev, end));
}

/* On the rseq commit path the bytes above a cursor are not all old records: an attempt that
 * was aborted (preempted, migrated, signalled) before its commit, the word padding of the
 * inline copy and the zeroed tail of the ring's end leave bytes of a record not yet committed
 * in [head, head + margin) (bb__rseq_margin, src/format/rseq_margin.h: the largest frame that
 * may have been begun in this shard in whole words: the dump's largest event the inline
 * sequence copies, or the larger frame the out-of-line path kept in the cursor; plus the rest
 * of the ring when the head is nearer its end than that). Those positions are the bottom of
 * the window a lap earlier, so a dump cuts the records that start below head + margin -
 * capacity, like bytes overwritten during its copy. 0 on the fetch_add path, whose writers
 * reserve before they write. */
static uint64_t rseq_margin(const struct bb__recorder_hot *h, uint32_t shard,
                            const bb__dump_events *ev, uint64_t head) {
    if (h->commit != BB__COMMIT_RSEQ) return 0;
    bb__rseq_frames f = {0, 0};
    for (size_t k = 0; k < ev->n; k++)
        bb__rseq_frames_add(&f, BB__FRAME_SIZE(ev->events[k]->record_size));
    /* read after the copy: a byte of an attempt seen there has its size stored (commit.c) */
    uint64_t kept = __atomic_load_n(&h->cursors[shard].big_frame, __ATOMIC_ACQUIRE);
    return bb__rseq_margin(head, h->capacity, bb__rseq_shard_frame(&f, kept));
}
_Static_assert(BB__RSEQ_STAGE == BB_RSEQ_INLINE_FRAME, "the inline sequence's largest frame");

/* The snapshot copies a ring a chunk at a time, newest chunk first, re-reading the cursor after
 * each: when writers lap the copy (a busy process, a slow copy), what they overwrote is the
 * oldest part of the window, the copy stops there, and the newest records are already safe. */
#define BB__SNAP_CHUNK ((uint64_t)256 << 10)

/* Copy the ring's chunks into buf newest first and return the cut they need: the bytes of a
 * chunk are intact from the bound seen right after its copy up (bb__ring_copy_cut: below it,
 * writes one lap later may have changed them while they were read). The copy stops at the
 * first chunk that bound reaches into; everything below it is cut, copied or not. */
static uint64_t copy_newest_first(struct bb__recorder_hot *h, uint32_t i, uint8_t *buf, uint64_t h0,
                                  const bb__dump_events *ev) {
    uint64_t cap = h->capacity, chunk = cap < BB__SNAP_CHUNK ? cap : BB__SNAP_CHUNK;
    const uint8_t *ring = h->rings + ((uint64_t)i << h->cap_log2);
    uint64_t *cursor = &h->cursors[i].head;
    uint64_t top = (h0 + chunk - 1) / chunk * chunk, cut = 0;
    for (uint64_t k = 1; k <= cap / chunk; k++) {
        uint64_t bottom = top > k * chunk ? top - k * chunk : 0;
        uint64_t off = (top - k * chunk) & (cap - 1);
        racy_copy(buf + off, ring + off, (size_t)chunk);
        /* an RMW, not a load: it cannot be ordered before the copy's reads */
        uint64_t hn = __atomic_fetch_add(cursor, 0, __ATOMIC_ACQ_REL);
        cut = bb__ring_copy_cut(h0, hn, rseq_margin(h, i, ev, hn), cap);
        uint64_t ctop = top - (k - 1) * chunk; /* the chunks above were whole when copied */
        if (cut > bottom) return cut < ctop ? cut : ctop;
        if (bottom == 0) break;
    }
    return cut;
}

/* `n` bytes of the ring at absolute positions [from, to) into the same offsets of buf. */
static void copy_span(const uint8_t *ring, uint64_t cap, uint8_t *buf, uint64_t from, uint64_t to) {
    uint64_t off = from & (cap - 1), n = to - from, first = cap - off < n ? cap - off : n;
    racy_copy_bytes(buf + off, ring + off, (size_t)first);
    if (first < n) racy_copy_bytes(buf, ring, (size_t)(n - first));
}

/* Catching up: the window moved from [top - cap, top), copied, to [next - cap, next); copy the
 * positions [top, next) the writers added meanwhile (all of the new window when they added a
 * whole ring or more), newest chunk first, and return the cut as copy_newest_first does. The
 * bytes copied before stay: those the writers overwrote since are below the new bound. */
static uint64_t copy_since(struct bb__recorder_hot *h, uint32_t i, uint8_t *buf, uint64_t top,
                           uint64_t next, const bb__dump_events *ev) {
    uint64_t cap = h->capacity, from = next - top < cap ? top : next - cap, cut = 0;
    const uint8_t *ring = h->rings + ((uint64_t)i << h->cap_log2);
    uint64_t *cursor = &h->cursors[i].head, chunk = cap < BB__SNAP_CHUNK ? cap : BB__SNAP_CHUNK;
    /* a ring not wrapped: up to the chunk's end, as the first copy did (scratch_tidy) */
    uint64_t hi = next < cap ? (next + chunk - 1) / chunk * chunk : next;
    while (hi > from) {
        uint64_t lo = hi - from > chunk ? hi - chunk : from;
        copy_span(ring, cap, buf, lo, hi);
        uint64_t hn = __atomic_fetch_add(cursor, 0, __ATOMIC_ACQ_REL); /* after the copy */
        cut = bb__ring_copy_cut(next, hn, rseq_margin(h, i, ev, hn), cap);
        if (cut > lo) return cut < hi ? cut : hi;
        hi = lo;
    }
    return cut;
}

/* Collect the records in flight below `top` into fl[*n..cap), those not there already. */
static void collect_more(struct bb__recorder_hot *h, uint32_t i, uint64_t top, bb__inflight *fl,
                         size_t *n, size_t cap, int *budget) {
    bb__inflight more[256];
    size_t m = bb__inflight_collect(h, i, top, more, 256, budget), had = *n;
    for (size_t k = 0; k < m && *n < cap; k++) {
        size_t j = 0;
        while (j < had && (fl[j].slot != more[k].slot || fl[j].pos != more[k].pos)) j++;
        if (j == had) fl[(*n)++] = more[k];
    }
}

/* Records in flight at h0 (fl): each is copied again once its writer completes it, or blanked if
 * the writer does not finish within the dump's waiting budget (it is descheduled: its slot holds
 * bytes of an older lap). A copy taken again is blanked too when writes one lap later may have
 * reached it meanwhile (below the bound at the end). */
static void settle_inflight(struct bb__recorder_hot *h, uint32_t i, uint8_t *buf, uint64_t h0,
                            const bb__inflight *fl, size_t nfl, const bb__dump_events *ev,
                            int *budget) {
    uint64_t cap = h->capacity, low = h0 > cap ? h0 - cap : 0;
    const uint8_t *ring = h->rings + ((uint64_t)i << h->cap_log2);
    for (size_t k = 0; k < nfl; k++) {
        uint64_t from = fl[k].pos > low ? fl[k].pos : low;
        uint64_t to = fl[k].pos + fl[k].len < h0 ? fl[k].pos + fl[k].len : h0;
        if (to <= from) continue;
        if (!bb__inflight_wait(h, &fl[k], budget)) {
            bb__ring_blank(buf, cap, from, to);
            continue;
        }
        uint64_t off = from & (cap - 1), n = to - from;
        uint64_t first = cap - off < n ? cap - off : n;
        racy_copy_bytes(buf + off, ring + off, (size_t)first);
        if (first < n) racy_copy_bytes(buf, ring, (size_t)(n - first));
        uint64_t hn = __atomic_fetch_add(&h->cursors[i].head, 0, __ATOMIC_ACQ_REL);
        if (from < bb__ring_copy_cut(h0, hn, rseq_margin(h, i, ev, hn), cap))
            bb__ring_blank(buf, cap, from, to);
    }
}

/* Contract: copy ring `i` into buf and set *head to the cursor read (acquire) before the copy.
 * So that no stale bytes pass for a record: records in flight at that moment are settled
 * (settle_inflight); the window loses every record that starts below the highest position that
 * writes one lap later may have changed while it was copied (copy_newest_first), or that lapped
 * writers may have written into (drop_lapped). The copy runs on the shard's own CPU, as
 * SCHED_FIFO where allowed, else in a time slice as long as it may (common/cpu_hold.h); a copy
 * the writers lapped anyway catches up (copy_since) rather than starting over. */
void bb__shard_snapshot_into(bb_recorder *rec, uint32_t i, uint8_t *buf, uint64_t *head,
                             const bb__dump_events *ev) {
    struct bb__recorder_hot *h = &rec->hot;
    bb__cpu_hold hold;
    bb__cpu_hold_take(&hold, i, true, bb__cpu_hold_slice_for(h->capacity));
    bb__inflight fl[1024];
    size_t nfl = 0;
    int budget = 250; /* at most ~5 ms of waiting for writers per shard, all rounds together */
    uint64_t h0 = __atomic_load_n(&h->cursors[i].head, __ATOMIC_ACQUIRE);
    collect_more(h, i, h0, fl, &nfl, 1024, &budget);
    uint64_t end = copy_newest_first(h, i, buf, h0, ev);
    for (int round = 1; round < BB__RING_CATCH_UP_ROUNDS && bb__ring_catch_up(h0, end, h->capacity);
         round++) {
        uint64_t low = h0 > h->capacity ? h0 - h->capacity : 0;
        if ((end - low) * 4 > h0 - low) sched_yield(); /* preempted: go on from a fresh slice */
        uint64_t next = __atomic_load_n(&h->cursors[i].head, __ATOMIC_ACQUIRE);
        collect_more(h, i, next, fl, &nfl, 1024, &budget);
        uint64_t e = copy_since(h, i, buf, h0, next, ev);
        end = e > end ? e : end;
        h0 = next;
    }
    bb__cpu_hold_drop(&hold); /* before waiting for the writers of this CPU */
    settle_inflight(h, i, buf, h0, fl, nfl, ev, &budget);
    *head = h0;
    drop_lapped(h, i, buf, h0, fl, nfl, ev, end);
}

/* Contract: see recorder.h. */
bb_status bb_recorder_shard_snapshot(bb_recorder *rec, uint32_t shard, uint8_t *buf,
                                     uint64_t *head) {
    if (!rec || !buf || !head || shard >= rec->hot.shard_count) return BB_ERR_INVALID;
    bb__dump_events ev = {NULL, 0};
    const bb_event_desc **events = NULL;
    for (size_t cap = 64;; cap = ev.n + 64) {
        free(events);
        events = malloc(cap * sizeof *events);
        if (!events) return BB_ERR_NOMEM;
        ev.n = bb_registry_snapshot(events, cap);
        if (ev.n <= cap) break;
    }
    ev.events = events;
    bb__shard_snapshot_into(rec, shard, buf, head, &ev);
    free(events);
    return BB_OK;
}

/* ---- the writer's view of a recorder ------------------------------------------------------- */

/* A direct dump's shard (direct_region): its cursor's values when first read, and its cut. */
typedef struct direct_shard {
    uint64_t head, marked, big, to;
} direct_shard;

typedef struct dump_ctx {
    bb_recorder *rec;
    const bb_dump_input *in; /* the dump's input: its schemas drive the lapped-writer cut */
    bb__dump_events ev;
    bool live;              /* crash path: hand the writer the live rings */
    bool full_entry;        /* write BB_INTERN_FULL_ID first */
    bb__intern_view intern; /* pinned from input_pin to input_done */
    /* crash path: the records in flight in the window of the shard last handed out, which the
     * writer writes as zeros (live_blank) */
    uint32_t fl_shard;
    size_t nfl;
    uint64_t fl_low, fl_head;
    bb__inflight fl[256];
    uint64_t dirty;       /* normal path: bytes from the scratch's start that may be non-zero */
    direct_shard *direct; /* a direct dump's shards (direct_region), else NULL */
    bool moved;           /* a direct dump's writers moved: it is done again */
    /* The exact Intern section (bb__dump_exact): marks, one bit per entry of the pinned view
     * (bb__intern_view_bit), set by the walk of each shard as written; once `selected`,
     * intern_get answers the marked entries in order (a cursor: the writer asks 0, 1, ...). */
    uint64_t *marks;
    size_t mark_words;
    int interned; /* -1 unknown, else whether a schema of the dump has an interned field */
    bool full_named, selected;
    size_t next_i;     /* marked entries passed by the cursor */
    uint64_t next_bit; /* the bit after the last one passed */
} dump_ctx;

/* The id-0 entry, where the table refused strings. */
static bb_intern_item full_item(void) {
    bb_intern_item it = {BB_INTERN_FULL_ID, (uint32_t)(sizeof BB_INTERN_FULL_TEXT - 1),
                         BB_INTERN_FULL_TEXT};
    return it;
}

/* Entry i of the exact section: BB_INTERN_FULL_ID first when a record names it, then the
 * marked entries by bit (generations oldest first, so ids ascend). */
static bb_intern_item marked_get(dump_ctx *c, size_t i) {
    if (c->full_named) {
        if (i == 0) return full_item();
        i--;
    }
    if (i + 1 < c->next_i) c->next_i = c->next_bit = 0;
    uint64_t nbits = (uint64_t)c->mark_words * 64;
    while (c->next_i <= i && c->next_bit < nbits) {
        uint64_t w = c->marks[c->next_bit / 64] >> (c->next_bit % 64);
        if (!w) {
            c->next_bit = (c->next_bit / 64 + 1) * 64;
            continue;
        }
        c->next_bit += (uint64_t)__builtin_ctzll(w) + 1;
        c->next_i++;
    }
    if (c->next_i <= i) { /* never: select counted the bits */
        bb_intern_item none = {0, 0, ""};
        return none;
    }
    return bb__intern_view_bit_item(&c->rec->intern, &c->intern, (uint32_t)(c->next_bit - 1));
}

static bb_intern_item intern_get(void *vctx, size_t i) {
    dump_ctx *c = vctx;
    if (c->selected) return marked_get(c, i);
    if (c->full_entry) {
        if (i == 0) return full_item();
        i--;
    }
    return bb__intern_table_item(&c->rec->intern, &c->intern, (uint32_t)i);
}

/* Whether a schema of the dump has an interned field (else no record names a string). */
static bool dump_interns(dump_ctx *c) {
    if (c->interned < 0) {
        c->interned = 0;
        for (size_t k = 0; k < c->in->event_count && !c->interned; k++)
            for (uint16_t f = 0; f < c->in->events[k]->field_count; f++)
                if (c->in->events[k]->fields[f].type == BB_TYPE_INTERNED) c->interned = 1;
    }
    return c->interned != 0;
}

/* The walk's visit of a record as the reader accepts it: mark the ids its interned fields name. */
typedef struct mark_walk {
    dump_ctx *c;
    size_ctx sz;
    const uint8_t *ring;
    uint64_t cap;
    uint32_t lo, n, kbase; /* the generation of the last id marked: ids lo + 1 .. lo + n, bits
                              from kbase (a ring's records mostly name the newest ones) */
} mark_walk;

/* `n` bytes at offset `off` of the record at `start` (`whole`: it does not wrap). */
static inline void frame_read(const mark_walk *m, uint64_t start, bool whole, uint32_t off,
                              void *out, size_t n) {
    if (whole) memcpy(out, m->ring + (start & (m->cap - 1)) + off, n);
    else bb__ring_read(m->ring, m->cap, start + off, out, n);
}

static bool mark_visit(void *vctx, uint64_t start, uint64_t end) {
    mark_walk *m = vctx;
#ifdef BB_TSAN
    bool whole = false; /* a live ring (crash path): read through ring_cut.c's racy reads */
    (void)end;
#else
    bool whole = (start & (m->cap - 1)) + (end - start) <= m->cap;
#endif
    uint64_t id;
    frame_read(m, start, whole, BB__FRAME_ID, &id, 8);
    if (size_of(&m->sz, id) < 0) return false;
    const bb_event_desc *d = m->sz.ev->events[m->sz.hint];
    for (uint16_t k = 0; k < d->field_count; k++) {
        const bb_field_desc *f = &d->fields[k];
        if (f->type != BB_TYPE_INTERNED || f->width != 4) continue;
        uint32_t v;
        frame_read(m, start, whole, BB__FRAME_HEAD + f->offset, &v, 4);
        if (v == BB_INTERN_FULL_ID) { /* the placeholder, where the table refused strings (a
                                        * field left 0 otherwise: no entry, as before) */
            m->c->full_named = m->c->full_named || m->c->full_entry;
            continue;
        }
        uint32_t bit = v - m->lo - 1;
        if (bit < m->n) {
            bit += m->kbase;
        } else {
            const bb__intern_table *t = &m->c->rec->intern;
            bit = bb__intern_view_bit(t, &m->c->intern, v);
            if (bit == UINT32_MAX) continue;
            m->kbase = bit / t->gen_entries * t->gen_entries;
            m->lo = v - 1 - (bit - m->kbase);
            m->n = m->c->intern.count[bit / t->gen_entries];
        }
        if (bit / 64 < m->c->mark_words) m->c->marks[bit / 64] |= UINT64_C(1) << (bit % 64);
    }
    return false;
}

/* bb__dump_exact's mark: walk shard `shard`'s region as written, as its reader will (the same
 * walk, the dump's schemas), marking what each record names. On the crash path the region is
 * the live ring, read once more after it was written (records other threads store meanwhile
 * may differ from the bytes written; those in flight are written as zeros but walked). */
static void exact_mark(void *vctx, uint32_t shard, const uint8_t *region, uint64_t head,
                       uint64_t cap) {
    dump_ctx *c = vctx;
    if (!dump_interns(c) || head == 0) return;
    mark_walk m = {c, {&c->ev, 0}, region, cap, 0, 0, 0};
    uint64_t low = c->direct ? c->direct[shard].to : head > cap ? head - cap : 0;
    bb__ring_walk_each(region, cap, low, head, size_of, &m.sz, mark_visit, &m);
}

/* ---- direct dumps --------------------------------------------------------------------------
 * A dump to a regular file that ends where the dump begins (bb_recorder_dump_path's, the global
 * dumper's; dump_to_fd) first writes the live rings straight to it, as the crash path does,
 * without the copies (~0.05 s a GiB) and without the scratch: exact when no writer moves
 * meanwhile (a quiet process, a dump at exit), which is checked. Every shard's head,
 * lapped-writer mark and rseq big frame are read before the first shard is written
 * (direct_region); each cut is found on the live ring and written as zeros (direct_blank), the
 * ring is not changed. A writer in flight in a shard about to be written (bb__inflight_any), or
 * any of those values changed when a shard is handed out or after the last is written
 * (direct_check), stops or discards the dump, and dump_to_fd cuts the file back and writes it
 * again through the copies (bb__shard_snapshot_into). Unchanged values mean that nothing was
 * reserved in any ring meanwhile and nothing was in flight, so the file holds the rings as they
 * were when their heads were read. */
static void direct_read(const dump_ctx *c, uint32_t i, direct_shard *d) {
    const struct bb__recorder_hot *h = &c->rec->hot;
    d->head = __atomic_load_n(&h->cursors[i].head, __ATOMIC_ACQUIRE);
    d->marked = __atomic_load_n(&h->cursors[i].damaged_below, __ATOMIC_ACQUIRE);
    d->big = __atomic_load_n(&h->cursors[i].big_frame, __ATOMIC_ACQUIRE);
}

/* Whether any shard's values changed since direct_region read them (c->moved then). */
static bool direct_check(dump_ctx *c) {
    for (uint32_t i = 0; i < c->rec->hot.shard_count && !c->moved; i++) {
        direct_shard now, *d = &c->direct[i];
        direct_read(c, i, &now);
        c->moved = now.head != d->head || now.marked != d->marked || now.big != d->big;
    }
    return c->moved;
}

static const uint8_t *direct_region(dump_ctx *c, uint32_t i, uint64_t *head) {
    struct bb__recorder_hot *h = &c->rec->hot;
    if (i == 0)
        for (uint32_t k = 0; k < h->shard_count; k++) direct_read(c, k, &c->direct[k]);
    direct_shard *d = &c->direct[i];
    if (direct_check(c) || bb__inflight_any(h, i)) {
        c->moved = true;
        return NULL; /* the writer stops; the caller dumps again through the copies */
    }
    const uint8_t *ring = h->rings + ((uint64_t)i << h->cap_log2);
    uint64_t margin = rseq_margin(h, i, &c->ev, d->head); /* big_frame as d->big, or moved */
    uint64_t end = bb__ring_copy_cut(d->head, d->head, margin, h->capacity);
    d->to = lapped_cut(h, i, ring, d->head, NULL, 0, &c->ev, end);
    *head = d->head;
    return direct_check(c) ? NULL : ring; /* a busy process: seen before any ring is written */
}

/* The direct dump's blanks: shard `shard`'s cut [low, to) as region offsets (two ranges when it
 * wraps). */
static bool direct_blank(void *vctx, uint32_t shard, size_t k, uint64_t *off, uint64_t *len) {
    dump_ctx *c = vctx;
    uint64_t cap = c->rec->hot.capacity, head = c->direct[shard].head;
    uint64_t low = head > cap ? head - cap : 0, n = c->direct[shard].to - low;
    uint64_t at = low & (cap - 1), first = cap - at < n ? cap - at : n;
    if (k == 0 && first) *off = at, *len = first;
    else if (k == 1 && first < n) *off = 0, *len = n - first;
    else return false;
    return true;
}

/* bb__dump_exact's select: the marked entries, from now on what intern_get answers. */
static size_t exact_select(void *vctx) {
    dump_ctx *c = vctx;
    size_t n = c->full_named ? 1 : 0;
    for (size_t k = 0; k < c->mark_words; k++) n += (size_t)__builtin_popcountll(c->marks[k]);
    c->selected = true;
    c->next_i = c->next_bit = 0;
    return n;
}

/* Patching a dump's first bytes: at `base` of a regular file (pwrite), or in a fixed buffer. */
typedef struct patch_at {
    int fd; /* -1: the buffer */
    off_t base;
    bb__membuf *buf;
    uint64_t pos;
} patch_at;

static int patch_write(void *vctx, const void *p, size_t n) {
    patch_at *a = vctx;
    if (a->fd < 0) {
        if (a->pos > a->buf->cap || n > a->buf->cap - a->pos) return ENOSPC;
        memcpy(a->buf->data + a->pos, p, n);
        a->pos += n;
        return 0;
    }
    const uint8_t *b = p;
    while (n > 0) {
        ssize_t w = pwrite(a->fd, b, n, a->base + (off_t)a->pos);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? errno : EIO;
        b += w;
        n -= (size_t)w;
        a->pos += (uint64_t)w;
    }
    return 0;
}

/* The exact Intern section over `marks` (mark_words words, zeroed), patched through `at`. */
static bb__dump_exact exact_of(dump_ctx *c, uint64_t *marks, patch_at *at) {
    c->marks = marks;
    c->mark_words = ((size_t)c->rec->intern.cap_entries + 63) / 64;
    c->interned = -1;
    bb__dump_exact ex = {exact_mark, exact_select, {patch_write, at}, c};
    return ex;
}

/* Where a dump to `fd` begins, when its first bytes can be written again (a regular file, not
 * O_APPEND; async-signal-safe calls only); -1 otherwise. */
static off_t patch_base(int fd) {
    struct stat st;
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || (fl & O_APPEND) || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    return lseek(fd, 0, SEEK_CUR);
}

static uint64_t shard_capacity(void *vctx, uint32_t i) {
    (void)i;
    return ((dump_ctx *)vctx)->rec->hot.capacity;
}

/* The scratch serves every shard of a dump and, kept by the recorder, later dumps. The copy of
 * a ring that is not full yet writes the chunks up to its head's (copy_newest_first) and leaves
 * the bytes above as the previous copy left them: they must read as never written, zeros. */
static void scratch_tidy(dump_ctx *c, uint8_t *buf, uint64_t head) {
    uint64_t cap = c->rec->hot.capacity, chunk = cap < BB__SNAP_CHUNK ? cap : BB__SNAP_CHUNK;
    uint64_t used = head >= cap ? cap : (head + chunk - 1) / chunk * chunk;
    if (c->dirty > used) memset(buf + used, 0, (size_t)(c->dirty - used));
    c->dirty = used;
}

static const uint8_t *shard_region(void *vctx, uint32_t i, uint8_t *scratch, uint64_t *head) {
    dump_ctx *c = vctx;
    struct bb__recorder_hot *h = &c->rec->hot;
    if (c->live) { /* crash path: no waiting, the live ring itself is cut (the process ends) */
        uint8_t *ring = h->rings + ((uint64_t)i << h->cap_log2);
        *head = __atomic_load_n(&h->cursors[i].head, __ATOMIC_ACQUIRE);
        int budget = 0;
        c->nfl = bb__inflight_collect(h, i, *head, c->fl, 256, &budget);
        c->fl_shard = i;
        c->fl_head = *head;
        c->fl_low = *head > h->capacity ? *head - h->capacity : 0;
        c->ev.events = c->in->events;
        c->ev.n = c->in->event_count;
        uint64_t margin = rseq_margin(h, i, &c->ev, *head);
        uint64_t end = bb__ring_copy_cut(*head, *head, margin, h->capacity);
        drop_lapped(h, i, ring, *head, c->fl, c->nfl, &c->ev, end);
        return ring;
    }
    c->ev.events = c->in->events;
    c->ev.n = c->in->event_count;
    if (c->direct) return direct_region(c, i, head);
    bb__shard_snapshot_into(c->rec, i, scratch, head, &c->ev);
    scratch_tidy(c, scratch, *head);
    return scratch;
}

/* Crash path: range k of the records still in flight in shard `shard`'s window, as region
 * offsets (each record gives two ranges, the second non-empty only when it wraps). The writer
 * zeroes them in the dump, not in the live ring: a writer the signal interrupted, on this thread
 * or another, left its record half written, and the walk steps over zeros. */
static bool live_blank(void *vctx, uint32_t shard, size_t k, uint64_t *off, uint64_t *len) {
    dump_ctx *c = vctx;
    uint64_t cap = c->rec->hot.capacity;
    for (; shard == c->fl_shard && k / 2 < c->nfl; k++) {
        const bb__inflight *f = &c->fl[k / 2];
        uint64_t from = f->pos > c->fl_low ? f->pos : c->fl_low;
        uint64_t to = f->pos + f->len < c->fl_head ? f->pos + f->len : c->fl_head;
        if (to <= from) continue;
        uint64_t at = from & (cap - 1), n = to - from, first = cap - at < n ? cap - at : n;
        if (k % 2 == 0) {
            *off = at;
            *len = first;
            return true;
        }
        if (first < n) {
            *off = 0;
            *len = n - first;
            return true;
        }
    }
    return false;
}

/* Fill the parts of `in` that do not need allocation. */
static void input_init(bb_dump_input *in, dump_ctx *c, bb_recorder *rec, const char *host,
                       bool live) {
    memset(in, 0, sizeof *in);
    memset(c, 0, sizeof *c);
    c->rec = rec;
    c->in = in;
    c->live = live;
    in->instance_id = rec->instance_id;
    in->host = host ? host : rec->host;
    in->intern_get = intern_get;
    in->shard_count = rec->hot.shard_count;
    in->shard_capacity = shard_capacity;
    in->shard_region = shard_region;
    in->ctx = c;
}

/* Pin the intern table for the writer (it reads the entries twice: sizes, then bytes), as late
 * as can be: while pinned no generation is recycled, and interning a new string may answer 0. */
static void input_pin(bb_dump_input *in, dump_ctx *c) {
    bb__intern_table_pin(&c->rec->intern, &c->intern); /* before the rings are read */
    c->full_entry = __atomic_load_n(&c->rec->intern.full_used, __ATOMIC_ACQUIRE) != 0;
    in->intern_count = c->intern.n + (c->full_entry ? 1u : 0u);
}

/* The dump is written (or failed): generations may be recycled again. */
static void input_done(dump_ctx *c) { bb__intern_table_unpin(&c->rec->intern); }

/* The program's name, copied at load: glibc's program_invocation_short_name points into argv[0],
 * which daemons that set their process title (nginx, postgres, sshd) overwrite later. */
static char g_prog[256];

__attribute__((constructor)) static void save_program_name(void) {
    const char *p = program_invocation_short_name ? program_invocation_short_name : "";
    size_t n = strnlen(p, sizeof g_prog - 1);
    memcpy(g_prog, p, n);
    g_prog[n] = '\0';
}

/* The process writing the dump (async-signal-safe: getpid and a buffer filled at load): the pid
 * of the caller, which after a fork is the child's even for a recorder it inherited. */
static bb__wire_process process_of(const bb_recorder *rec) {
    const char *prog =
        g_prog[0] || !program_invocation_short_name ? g_prog : program_invocation_short_name;
    size_t n = strnlen(prog, 255);
    bb__wire_process p = {(uint64_t)getpid(), rec->start_ns, {prog, (uint16_t)n, 1}};
    return p;
}

/* A copy buffer of `cap` bytes, zeroed: every page is faulted in before any ring is read (the
 * first store to a page costs a fault, on some VMs also the host's: ~100 ms for 16 MiB where a
 * warm copy takes 1 ms, and a copy that slow lets the writers lap it), in 2 MiB pages where
 * the kernel gives them (512 times fewer faults: 0.15 s instead of 2.7-5.6 s for 512 MiB on
 * this project's VM). NULL when it cannot be mapped. */
static uint8_t *scratch_map(uint64_t cap) {
    void *p = mmap(NULL, (size_t)cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
    (void)madvise(p, (size_t)cap, MADV_HUGEPAGE);
#endif
    memset(p, 0, (size_t)cap);
    return p;
}

/* The recorder's kept scratch (mapped at its first dump), or when another dump holds it one of
 * this dump's own (*own: unmap it after); *dirty: its bytes that may be non-zero. */
static uint8_t *scratch_take(bb_recorder *rec, bool *own, uint64_t *dirty) {
    *own = __atomic_exchange_n(&rec->scratch_busy, 1u, __ATOMIC_ACQUIRE) != 0;
    *dirty = 0;
    if (*own) return scratch_map(rec->hot.capacity);
    if (!rec->scratch) rec->scratch = scratch_map(rec->hot.capacity);
    if (!rec->scratch) __atomic_store_n(&rec->scratch_busy, 0u, __ATOMIC_RELEASE);
    else *dirty = rec->scratch_dirty;
    return rec->scratch;
}

static void scratch_give(bb_recorder *rec, uint8_t *p, bool own, uint64_t dirty) {
    if (!p) return; /* scratch_take released the hold already */
    if (own) {
        munmap(p, (size_t)rec->hot.capacity);
        return;
    }
    rec->scratch_dirty = dirty;
    __atomic_store_n(&rec->scratch_busy, 0u, __ATOMIC_RELEASE);
}

/* Heap-allocated registry and views snapshots for a normal dump. */
typedef struct gathered {
    const bb_event_desc **events;
    const bb_view_desc **views;
    const char **sql;
} gathered;

static void gathered_free(gathered *g) {
    free(g->events);
    free(g->views);
    free(g->sql);
}

static bb_status gather(bb_dump_input *in, gathered *g, bb_error *err) {
    memset(g, 0, sizeof *g);
    size_t cap = 64, n;
    for (;;) {
        g->events = malloc(cap * sizeof *g->events);
        if (!g->events) goto nomem;
        n = bb__registry_snapshot_dump(g->events, cap);
        if (n <= cap) break;
        free(g->events);
        cap = n + 64;
    }
    in->events = g->events;
    in->event_count = n;
    cap = 16;
    for (;;) {
        g->views = malloc(cap * sizeof *g->views);
        if (!g->views) goto nomem;
        n = bb_views_snapshot(g->views, cap);
        if (n <= cap) break;
        free(g->views);
        cap = n + 16;
    }
    g->sql = malloc((n ? n : 1) * sizeof *g->sql);
    if (!g->sql) goto nomem;
    for (size_t i = 0; i < n; i++) g->sql[i] = g->views[i]->sql;
    in->views = g->sql;
    in->view_count = n;
    return BB_OK;
nomem:
    gathered_free(g);
    memset(g, 0, sizeof *g);
    bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "dump: out of memory");
    return BB_ERR_NOMEM;
}

static bb_status dump_sink(bb_recorder *rec, const char *host, bb__sink sink, patch_at *at,
                           bool *redo, bb_error *err);

/* Dump to `fd` through the sparse sink: zero runs of the rings become holes in a file. Inside a
 * file-size guard: past RLIMIT_FSIZE a write fails (EFBIG, reported) instead of killing. With
 * `redo`, a direct dump (see direct_region): *redo when the file must be written again. */
static bb_status dump_once(bb_recorder *rec, const char *host, int fd, off_t base, bool *redo,
                           bb_error *err) {
    bb__sparse_fd sp;
    bb__sparse_fd_init(&sp, fd);
    bb__fsize_guard guard;
    bb__fsize_guard_begin(&guard);
    patch_at at = {fd, base, NULL, 0};
    bb_status st = dump_sink(rec, host, bb__sink_sparse_fd(&sp), base >= 0 ? &at : NULL, redo, err);
    int rc = st == BB_OK && !(redo && *redo) ? bb__sparse_fd_finish(&sp) : 0;
    bb__fsize_guard_end(&guard);
    if (rc) {
        bb__err_set(err, BB_ERR_IO, UINT64_MAX, NULL, "dump: extending the output: %s",
                    strerror(rc));
        st = BB_ERR_IO;
    }
    return st;
}

/* Dump to `fd`: directly from the live rings first (direct_region) when `fd` is a regular file
 * that ends where the dump begins, so that a dump done again can cut it back there; through
 * the copies of the rings otherwise, or again when writers moved during the direct dump. */
static bb_status dump_to_fd(bb_recorder *rec, const char *host, int fd, bb_error *err) {
    off_t base = patch_base(fd);
    struct stat st;
    if (base >= 0 && fstat(fd, &st) == 0 && st.st_size == base) {
        bool redo = false;
        bb_status s = dump_once(rec, host, fd, base, &redo, err);
        if (!redo) return s;
        if (ftruncate(fd, base) != 0 || lseek(fd, base, SEEK_SET) != base) {
            bb__err_set(err, BB_ERR_IO, UINT64_MAX, NULL, "dump: rewinding the output: %s",
                        strerror(errno));
            return BB_ERR_IO;
        }
    }
    return dump_once(rec, host, fd, base, NULL, err);
}

uint64_t bb__dumps_direct, bb__dumps_redone;

/* Dump through `sink`: with the exact Intern section when `at` (NULL: none) can patch the
 * dump's start and the marks can be allocated, else with every entry in the reference order.
 * With `redo` (not under ThreadSanitizer, which would see the live rings read), a direct dump,
 * *redo when writers moved: the output is to be discarded. */
static bb_status dump_sink(bb_recorder *rec, const char *host, bb__sink sink, patch_at *at,
                           bool *redo, bb_error *err) {
    bb_dump_input in;
    dump_ctx c;
    gathered g;
    input_init(&in, &c, rec, host, false);
    bb_status st = gather(&in, &g, err);
    if (st != BB_OK) return st;
    uint64_t *marks = at ? calloc(((size_t)rec->intern.cap_entries + 63) / 64, 8) : NULL;
    bb__dump_exact ex = exact_of(&c, marks, at);
#ifndef BB_TSAN
    c.direct = redo ? calloc(rec->hot.shard_count, sizeof *c.direct) : NULL;
#endif
    if (redo) *redo = false;
    bool own = false;
    uint8_t *scratch = c.direct ? NULL : scratch_take(rec, &own, &c.dirty);
    if (!c.direct && !scratch) {
        gathered_free(&g);
        free(marks);
        bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL,
                    "dump: cannot allocate a %llu-byte scratch buffer",
                    (unsigned long long)rec->hot.capacity);
        return BB_ERR_NOMEM;
    }
    bb__dump_blanks blanks = {direct_blank, &c};
    bb__wire_process proc = process_of(rec);
    input_pin(&in, &c);
    st = bb__dump_write_blanked(&in, &proc, sink, scratch, err, c.direct ? &blanks : NULL,
                                marks ? &ex : NULL);
    if (c.direct) {
        *redo = c.moved || direct_check(&c);
        __atomic_fetch_add(*redo ? &bb__dumps_redone : &bb__dumps_direct, 1, __ATOMIC_RELAXED);
    }
    input_done(&c);
    scratch_give(rec, scratch, own, c.dirty);
    free(c.direct);
    gathered_free(&g);
    free(marks);
    return st;
}

/* Contract: see recorder.h. */
bb_status bb_recorder_dump_fd(bb_recorder *rec, int fd, bb_error *err) {
    if (!rec || fd < 0) {
        bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "dump: invalid recorder or fd");
        return BB_ERR_INVALID;
    }
    return dump_to_fd(rec, NULL, fd, err);
}

/* Contract: see recorder.h. */
bb_status bb_recorder_dump_path(bb_recorder *rec, const char *path, const char *host,
                                bb_error *err) {
    if (!rec || !path || !*path) {
        bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "dump: invalid recorder or path");
        return BB_ERR_INVALID;
    }
    size_t n = strlen(path) + 64;
    char *tmp = malloc(n);
    if (!tmp) {
        bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "dump: out of memory");
        return BB_ERR_NOMEM;
    }
    snprintf(tmp, n, "%s.tmp.%ld.%u", path, (long)getpid(),
             __atomic_fetch_add(&rec->tmp_counter, 1, __ATOMIC_RELAXED));
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        bb__err_set(err, BB_ERR_IO, UINT64_MAX, NULL, "dump: cannot create %s: %s", tmp,
                    strerror(errno));
        free(tmp);
        return BB_ERR_IO;
    }
    bb_status st = dump_to_fd(rec, host, fd, err);
    if (close(fd) != 0 && st == BB_OK) {
        bb__err_set(err, BB_ERR_IO, UINT64_MAX, NULL, "dump: closing %s: %s", tmp, strerror(errno));
        st = BB_ERR_IO;
    }
    if (st == BB_OK && rename(tmp, path) != 0) {
        bb__err_set(err, BB_ERR_IO, UINT64_MAX, NULL, "dump: cannot rename %s to %s: %s", tmp, path,
                    strerror(errno));
        st = BB_ERR_IO;
    }
    if (st != BB_OK) unlink(tmp);
    free(tmp);
    return st;
}

/* Contract: see recorder.h. */
bb_status bb_recorder_dump_buffer(bb_recorder *rec, void **out, size_t *len, bb_error *err) {
    if (!rec || !out || !len) {
        bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "dump: invalid argument");
        return BB_ERR_INVALID;
    }
    *out = NULL;
    *len = 0;
    bb_dump_input in;
    dump_ctx c;
    gathered g;
    input_init(&in, &c, rec, NULL, false);
    bb_status st = gather(&in, &g, err);
    if (st != BB_OK) return st;
    bool own;
    uint8_t *scratch = scratch_take(rec, &own, &c.dirty); /* before the pin: it can be slow */
    input_pin(&in, &c);
    bb__wire_process proc = process_of(rec);
    uint64_t size = bb__dump_size_process(&in, &proc);
    bb__membuf buf = bb__membuf_fixed(malloc(size ? (size_t)size : 1), (size_t)size);
    uint64_t *marks = calloc(((size_t)rec->intern.cap_entries + 63) / 64, 8);
    patch_at at = {-1, 0, &buf, 0};
    bb__dump_exact ex = exact_of(&c, marks, &at);
    if (!buf.data || !scratch) {
        input_done(&c);
        free(marks);
        free(buf.data);
        scratch_give(rec, scratch, own, c.dirty);
        gathered_free(&g);
        bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "dump: cannot allocate %llu bytes",
                    (unsigned long long)size);
        return BB_ERR_NOMEM;
    }
    st = bb__dump_write_blanked(&in, &proc, bb__sink_membuf(&buf), scratch, err, NULL,
                                marks ? &ex : NULL);
    input_done(&c);
    free(marks);
    scratch_give(rec, scratch, own, c.dirty);
    gathered_free(&g);
    if (st != BB_OK) {
        free(buf.data);
        return st;
    }
    *out = buf.data;
    *len = buf.len;
    return BB_OK;
}

/* Contract: see recorder.h. Uses only the recorder's preallocated arrays, atomics, the
 * (async-signal-safe) registry snapshots and write(2). */
bb_status bb_recorder_dump_fd_signal_safe(bb_recorder *rec, int fd) {
    if (!rec || fd < 0) return BB_ERR_INVALID;
    uint32_t expect = 0;
    if (!__atomic_compare_exchange_n(&rec->sig_busy, &expect, 1, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return BB_ERR_INVALID;
    bb_dump_input in;
    dump_ctx c;
    input_init(&in, &c, rec, NULL, true);
    input_pin(&in, &c);
    size_t n = bb__registry_snapshot_dump(rec->sig_events, BB_SIG_MAX_EVENTS);
    in.events = rec->sig_events;
    in.event_count = n < BB_SIG_MAX_EVENTS ? n : BB_SIG_MAX_EVENTS;
    n = bb_views_snapshot(rec->sig_views, BB_SIG_MAX_VIEWS);
    if (n > BB_SIG_MAX_VIEWS) n = BB_SIG_MAX_VIEWS;
    for (size_t i = 0; i < n; i++) rec->sig_view_sql[i] = rec->sig_views[i]->sql;
    in.views = rec->sig_view_sql;
    in.view_count = n;
    int saved_errno = errno;
    bb__sparse_fd sp;
    bb__sparse_fd_init(&sp, fd);
    bb__fsize_guard guard;
    bb__fsize_guard_begin(&guard);
    bb__dump_blanks blanks = {live_blank, &c};
    bb__wire_process proc = process_of(rec);
    patch_at at = {fd, patch_base(fd), NULL, 0};
    bb__dump_exact ex = exact_of(&c, rec->sig_marks, &at);
    memset(rec->sig_marks, 0, c.mark_words * sizeof *rec->sig_marks);
    bb_status st = bb__dump_write_blanked(&in, &proc, bb__sink_sparse_fd(&sp), NULL, NULL, &blanks,
                                          at.base >= 0 ? &ex : NULL);
    if (st == BB_OK && bb__sparse_fd_finish(&sp) != 0) st = BB_ERR_IO;
    bb__fsize_guard_end(&guard);
    input_done(&c);
    errno = saved_errno;
    __atomic_store_n(&rec->sig_busy, 0, __ATOMIC_RELEASE);
    return st;
}
