/* ring_window.c — bb_ring_snapshot and bb_ring_follow (backbeat/ring_reader.h): which part of
 * each ring to read, its copy, and the cut a live dump makes (format/ring_cut.h).
 *
 * Per ring: the head is read (acquire), then the announcement table (a writer announces before
 * it reserves, so one whose reservation the head includes is seen); the window is copied; for
 * a running process the head is read again and every record that starts below the positions
 * writers may have overwritten meanwhile (one lap below the new head, plus the rseq margin:
 * the file does not say which commit path wrote it) is cut, as are records below a lapped
 * writer's mark and below the late bytes of a writer in flight under the window. A snapshot of
 * a running process re-copies the records in flight that completed and blanks the others; a
 * follow call stops the ring's read below the lowest record in flight (it comes with a later
 * call), so nothing it returns can still change. A snapshot of a running process copies ring i
 * holding CPU i (common/cpu_hold.h), where that ring's writers run on the rseq path, and catches
 * up on what they added meanwhile (catch_up, as the in-process dump does); every copy runs
 * oldest chunk first, ahead of the writers' overwriting (copy_oldest_first). A dead process's
 * file gets the blanking of docs/RING_FILE.md "Records in flight". */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "backbeat/reader.h"
#include "common/cpu_hold.h"
#include "common/error_set.h"
#include "format/ring_cut.h"
#include "format/ring_file.h"
#include "format/rseq_margin.h"
#include "read/ring_priv.h"

/* Follow calls in a row a ring may wait for a writer between announcing and reserving before
 * its announcement is treated as a dead writer's (left to the hole search). */
#define STALL_LIMIT 32u

/* One call: what every ring's read shares. */
typedef struct call {
    bb_ring *r;
    bool live, follow;
    bb__ring_ann *anns;
    size_t nanns;
    uint64_t *h0, *start, *from; /* per ring: head read, window bottom, the caller's position
                                  * (BB_RING_OLDEST kept as such: nothing is lost from it) */
    size_t *a0, *an;             /* per ring: its announcements anns[a0, a0 + an) */
    bb__ring_shard_out *out;
    bb__cpu_hold hold; /* a live snapshot's hold on the CPU of the ring it copies */
    bool held;
} call;

static uint64_t cursor_off(const bb_ring *r, uint32_t i) {
    return r->g.cursors + (uint64_t)i * BB_RING_CURSOR_STRIDE;
}

/* Where ring i's read stops: the head, or (following a running process) below its lowest
 * record in flight, or where it started while a writer's position is not yet published. */
static uint64_t read_top(call *c, uint32_t i) {
    uint64_t top = c->h0[i];
    bool unknown = false;
    for (size_t k = c->a0[i]; k < c->a0[i] + c->an[i]; k++) {
        const bb__ring_ann *a = &c->anns[k];
        if (a->pos == UINT64_MAX) unknown = true;
        else if (a->pos >= c->start[i] && a->pos < top) top = a->pos;
    }
    if (!c->follow || !c->live) return c->h0[i];
    if (!unknown) c->r->stalls[i] = 0;
    else if (c->r->stalls[i]++ < STALL_LIMIT) top = c->start[i];
    return top;
}

static uint64_t pow2_at_least(uint64_t n) {
    uint64_t c = 4096;
    while (c < n) c <<= 1;
    return c;
}

/* Plan ring i: its window [start, top) and the dump shard that carries it. */
static void plan_ring(call *c, uint32_t i, const bb_ring_cursor *cur) {
    uint64_t cap = c->r->info.capacity, h0 = c->h0[i];
    uint64_t low = h0 > cap ? h0 - cap : 0, p = cur ? cur->pos : BB_RING_OLDEST;
    if (p != BB_RING_OLDEST && (p == BB_RING_NOW || p > h0)) p = h0;
    c->from[i] = p;
    c->start[i] = p != BB_RING_OLDEST && p > low ? p : low;
    uint64_t top = read_top(c, i);
    if (top < c->start[i]) top = c->start[i];
    c->out[i].head = c->follow ? top : h0;
    c->out[i].cap = c->follow ? pow2_at_least(top - c->start[i]) : cap;
}

/* A running process's snapshot: the records in flight in the window whose writers finished
 * since are copied again; the rest stay announced (blanked by bb__ring_inflight). */
static size_t recopy_done(call *c, uint32_t i, bb__ring_ann *a, size_t n) {
    int budget = 32;
    size_t again = 0;
    for (size_t k = 0; k < n; k++) {
        if (a[k].pos == UINT64_MAX || a[k].pos < c->start[i] || a[k].pos >= c->h0[i]) continue;
        const uint8_t *e = c->r->d + c->r->g.slots + (uint64_t)a[k].slot * BB_RING_SLOT_STRIDE;
        for (;;) {
            uint64_t taglen = __atomic_load_n((const uint64_t *)(const void *)e, __ATOMIC_ACQUIRE);
            uint64_t pos =
                __atomic_load_n((const uint64_t *)(const void *)(e + 8), __ATOMIC_ACQUIRE);
            if ((uint32_t)(taglen >> 32) != a[k].len || pos != a[k].pos ||
                (uint32_t)taglen != c->r->g.tag_base + i) {
                uint64_t to = a[k].pos + a[k].len < c->h0[i] ? a[k].pos + a[k].len : c->h0[i];
                bb__ring_copy(c->r, i, a[k].pos, to, c->out[i].body, c->out[i].cap);
                a[k].pos = UINT64_MAX - 1; /* complete: neither blanked nor a hole */
                again++;
                break;
            }
            if (budget-- <= 0) break;
            sched_yield();
        }
    }
    return again;
}

/* The bound below which writes one lap later may have changed ring i's bytes, with its head
 * read now (after the caller's copy: a fence first) and the rseq margin at that head. */
static uint64_t cut_now(call *c, uint32_t i) {
    bb_ring *r = c->r;
#if !defined(__SANITIZE_THREAD__) /* gcc's TSan has no fences (-Wtsan); it checks races, not this */
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the copy's reads before the head read */
#endif
    uint64_t cap = r->info.capacity, h0 = c->h0[i];
    uint64_t h1 = c->live ? bb__ring_load64(r->d, cursor_off(r, i) + BB_RC_HEAD) : h0;
    uint64_t kept = bb__ring_load64(r->d, cursor_off(r, i) + BB_RC_BIG_FRAME);
    uint64_t margin = bb__rseq_margin(h1, cap, bb__rseq_shard_frame(&r->frames, kept));
    return bb__ring_copy_cut(h0, h1, margin, cap);
}

/* Copy ring i's [start, top) into its dump shard, newest chunk first, and return the cut the
 * copy needs: a chunk's bytes are intact from the bound seen right after it was copied up, so
 * the copy stops at the first chunk that bound reaches into (a writer lapping a slow copy takes
 * the oldest records, never the newest). */
static uint64_t copy_newest_first(call *c, uint32_t i, uint64_t start, uint64_t top) {
    uint64_t chunk = (uint64_t)64 << 10, cut = 0; /* doubling to 1 MiB: the newest first */
    for (uint64_t hi = top; hi > start; chunk = chunk < ((uint64_t)1 << 20) ? chunk * 2 : chunk) {
        uint64_t lo = hi - start > chunk ? hi - chunk : start;
        bb__ring_copy(c->r, i, lo, hi, c->out[i].body, c->out[i].cap);
        cut = cut_now(c, i);
        if (cut > lo) return cut < hi ? cut : hi; /* the chunks above were whole when copied */
        hi = lo;
    }
    return cut;
}

/* Copy ring i's [start, top) into its dump shard, oldest chunk first, and return the cut the
 * copy needs. Writers one lap later overwrite the window from its bottom up, behind the copy:
 * a chunk's bytes are intact from the bound seen right after it was copied up (cut_now), so
 * a bound that reaches into a chunk cuts below it. A copy faster than its writers keeps the
 * whole window (newest first, once lapped, it keeps only its share of the two rates); one the
 * writers lapped (the bound above its chunk: it gets less CPU than they do) copies the rest,
 * from the bound up, newest first, which keeps that share rather than chasing the bound. */
static uint64_t copy_oldest_first(call *c, uint32_t i, uint64_t start, uint64_t top) {
    const uint64_t chunk = (uint64_t)256 << 10;
    uint64_t cut = 0;
    for (uint64_t lo = start; lo < top;) {
        uint64_t hi = top - lo > chunk ? lo + chunk : top;
        bb__ring_copy(c->r, i, lo, hi, c->out[i].body, c->out[i].cap);
        uint64_t b = cut_now(c, i);
        if (b >= top) return top; /* lapped over all of it */
        if (b >= hi) {
            uint64_t e = copy_newest_first(c, i, b, top);
            return e > b ? e : b;
        }
        if (b > lo && b > cut) cut = b < top ? b : top;
        lo = hi;
    }
    return cut;
}

/* The announcements of ring i: anns[a0, a0 + an) (sorted by shard). */
static void slice(call *c) {
    size_t k = 0;
    for (uint32_t i = 0; i < c->r->info.shards; i++) {
        c->a0[i] = k;
        while (k < c->nanns && c->anns[k].shard == i) k++;
        c->an[i] = k - c->a0[i];
    }
}

/* One catching-up round of ring i whose head was read again as `next`: the announcements now
 * in the file joined to those of the rounds before (bb__ring_ann_union), as ring i's only
 * ones (the next ring's refresh reads them all again). Read without waiting for a writer
 * between announcing and reserving: on CPU i such a writer runs only when the copy yields the
 * CPU, to the writers that lap it; its unknown position is left to the hole search
 * (ring_inflight.c), as a stopped writer's. False on allocation failure. */
static bool more_anns(call *c, uint32_t i, uint64_t next) {
    uint64_t cap = c->r->info.capacity;
    bb__ring_ann *now = NULL, *both = NULL;
    size_t nnow = 0, nboth = 0;
    if (!bb__ring_announcements(c->r, false, &now, &nnow)) return false;
    bool ok = bb__ring_ann_union(c->anns + c->a0[i], c->an[i], now, nnow, i,
                                 next > cap ? next - cap : 0, next, &both, &nboth);
    free(now);
    if (!ok) return false;
    free(c->anns);
    c->anns = both;
    c->nanns = nboth;
    slice(c);
    return true;
}

/* A running process's snapshot of ring i, its first copy cut at `end`: catch up on what its
 * writers added meanwhile (format/ring_cut.h bb__ring_catch_up), oldest first, the window
 * moving up to the head read each round (then the announcements: a writer announces before it
 * reserves). Bytes copied by an earlier round stay: those overwritten since are below the
 * returned cut, the highest of every round's. c->h0[i], c->start[i] and the dump shard's head
 * become the last round's. */
static uint64_t catch_up(call *c, uint32_t i, uint64_t end) {
    uint64_t cap = c->r->info.capacity;
    for (int round = 1; round < BB__RING_CATCH_UP_ROUNDS && bb__ring_catch_up(c->h0[i], end, cap);
         round++) {
        uint64_t h0 = c->h0[i];
        uint64_t next = bb__ring_load64(c->r->d, cursor_off(c->r, i));
        if (next <= h0 || !more_anns(c, i, next)) break;
        c->h0[i] = next;
        c->start[i] = next > cap ? next - cap : 0;
        uint64_t e = copy_oldest_first(c, i, next - h0 < cap ? h0 : next - cap, next);
        end = e > end ? e : end;
    }
    bb__ring_dump_set_head(&c->out[i], c->h0[i]);
    return end;
}

/* Zero the bytes of a shard body (dcap, a power of two) outside the window [start, top) it
 * is about to hold: a pooled buffer's, left by an older dump, must not read as records. */
static void clear_outside(uint8_t *body, uint64_t dcap, uint64_t start, uint64_t top) {
    uint64_t n = top - start;
    if (n >= dcap) return;
    uint64_t a = top & (dcap - 1), left = dcap - n; /* from the window's end, around to start */
    uint64_t first = left < dcap - a ? left : dcap - a;
    memset(body + a, 0, (size_t)first);
    if (left > first) memset(body, 0, (size_t)(left - first));
}

/* Read ring i into its dump shard and cut it; fills *cur when following. */
static void read_ring(call *c, uint32_t i, bb_ring_cursor *cur) {
    bb_ring *r = c->r;
    uint64_t top = c->follow && c->out[i].head < c->h0[i] ? c->out[i].head : c->h0[i];
    uint8_t *body = c->out[i].body;
    uint64_t dcap = c->out[i].cap;
    if (!r->buf_zeroed) clear_outside(body, dcap, c->start[i], top);
    uint64_t end = copy_oldest_first(c, i, c->start[i], top);
    if (c->live && !c->follow) end = catch_up(c, i, end);
    if (c->held) bb__cpu_hold_drop(&c->hold); /* before waiting for writers in flight */
    c->held = false;
    uint64_t cap = r->info.capacity, h0 = c->h0[i], start = c->start[i];
    if (!c->follow) top = h0;
    bb__ring_ann *a = c->anns + c->a0[i];
    size_t again = c->live && !c->follow ? recopy_done(c, i, a, c->an[i]) : 0;
    bb__ring_view v = {body, dcap, top, start, r};
    uint64_t late = bb__ring_inflight(&v, a, c->an[i]);
    uint64_t marked = bb__ring_load64(r->d, cursor_off(r, i) + BB_RC_DAMAGED_BELOW);
    if (again) { /* records copied again after the chunks: the bound after them */
        uint64_t e = cut_now(c, i);
        if (e > end) end = e;
    }
    uint64_t low = h0 > cap ? h0 - cap : 0;
    if (late > h0) late = h0;
    if (late > end) end = late;
    if (marked > end && (marked <= h0 || c->live)) end = marked;
    r->stats.cut_shards += (marked > low && marked <= h0) || late > low;
    uint64_t bottom = bb__ring_cut(body, dcap, start, top, end, bb__ring_size_of, r);
    if (!cur) return;
    /* From the oldest record held nothing is lost; from a position (0 included: a follower
     * that started on an empty ring), the bytes up to the oldest record still whole are. */
    uint64_t p = c->from[i] == BB_RING_OLDEST ? start : c->from[i], lost = 0;
    if (bottom > p && c->from[i] != BB_RING_OLDEST) {
        uint64_t first = bb__ring_lowest(body, dcap, bottom, top, bb__ring_size_of, r);
        lost = (first < top ? first : bottom) - p;
    }
    *cur = (bb_ring_cursor){top, lost, top - (bottom > p ? bottom : p), h0};
}

static bool call_init(call *c, bb_ring *r, bool follow) {
    memset(c, 0, sizeof *c);
    c->r = r;
    c->follow = follow;
    c->live = bb__ring_locked(r); /* liveness != GONE, without its /proc reads */
    uint32_t n = r->info.shards;
    c->h0 = calloc(n, sizeof *c->h0);
    c->start = calloc(n, sizeof *c->start);
    c->from = calloc(n, sizeof *c->from);
    c->a0 = calloc(n, sizeof *c->a0);
    c->an = calloc(n, sizeof *c->an);
    c->out = calloc(n, sizeof *c->out);
    if (!c->h0 || !c->start || !c->from || !c->a0 || !c->an || !c->out) return false;
    /* the heads first: a record below them names strings (and a schema) made before it was
     * reserved, so the metadata and intern entries read next hold them */
    for (uint32_t i = 0; i < n; i++) c->h0[i] = bb__ring_load64(r->d, cursor_off(r, i));
    if (!bb__ring_meta_update(r, c->live)) return false;
    if (!bb__ring_announcements(r, c->live, &c->anns, &c->nanns)) return false;
    slice(c);
    return true;
}

static void call_free(call *c) {
    free(c->h0);
    free(c->start);
    free(c->from);
    free(c->a0);
    free(c->an);
    free(c->out);
    free(c->anns);
}

/* A running process's snapshot reads ring i's head (and the records then in flight) again right
 * before copying it, so that the rings dumped before it, and building the dump, do not give its
 * writers time to lap it; the dump's shard header gets the new head. */
static bool refresh(call *c, uint32_t i) {
    c->h0[i] = bb__ring_load64(c->r->d, cursor_off(c->r, i));
    free(c->anns);
    c->anns = NULL;
    if (!bb__ring_announcements(c->r, true, &c->anns, &c->nanns)) return false;
    slice(c);
    plan_ring(c, i, NULL);
    bb__ring_dump_set_head(&c->out[i], c->h0[i]);
    return true;
}

/* One load from each page of [p, p + n): on a VM whose hypervisor maps a guest's pages lazily
 * (shadow page tables), the first access to each page of a mapping exits to it (~10 us here;
 * 46 ms for 16 MiB of 4 KiB pages) even where the kernel has mapped the page already. */
static void touch_pages(const uint8_t *p, uint64_t n) {
    const volatile uint8_t *v = p;
    uint8_t x = 0;
    for (uint64_t k = 0; k < n; k += 4096) x ^= v[k];
    (void)x;
}

/* The dump's ring bodies written once before the heads are read again (refresh), in huge pages
 * where the system gives them, and one load from each page of the file's rings: the first
 * access to a page costs a fault, on some VMs the host's too (~100 ms for 16 MiB), and a copy
 * that slow lets the writers lap it. Rings written to (one about to wrap is copied whole once
 * its head is read again), in a file whose blocks are all there: a sparse file's holes cost no
 * memory. */
static void pretouch(call *c) {
    struct stat sb;
    uint64_t cap = c->r->info.capacity;
    if (fstat(c->r->fd, &sb) != 0 || (uint64_t)sb.st_blocks * 512 < c->r->len) return;
    for (uint32_t i = 0; i < c->r->info.shards; i++) {
        if (c->h0[i] == 0) continue; /* nothing written: nothing to copy */
#ifdef MADV_HUGEPAGE
        uintptr_t b = (uintptr_t)c->out[i].body, huge = (uintptr_t)2 << 20;
        uintptr_t lo = (b + huge - 1) & ~(huge - 1), hi = (b + (uintptr_t)cap) & ~(huge - 1);
        if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#endif
        memset(c->out[i].body, 0, (size_t)cap);
        if (c->r->mapped) touch_pages(c->r->d + c->r->g.rings + (uint64_t)i * cap, cap);
    }
}

/* Snapshot (cursors NULL) or follow. */
static bb_status run(bb_ring *r, bb_ring_cursor *cursors, uint8_t **dump, size_t *len,
                     bb_error *err) {
    call c;
    bb_status st = bb__ring_still_whole(r, err);
    if (st != BB_OK) return st;
    st = BB_ERR_NOMEM;
    if (!call_init(&c, r, cursors != NULL)) {
        call_free(&c);
        return bb__err_set(err, st, UINT64_MAX, NULL, "%s: out of memory", r->name);
    }
    r->stats.written = false;
    r->stats.cut_shards = 0;
    for (uint32_t i = 0; i < r->info.shards; i++) {
        plan_ring(&c, i, cursors ? &cursors[i] : NULL);
        r->stats.written |= c.h0[i] != 0;
    }
    st = bb__ring_still_whole(r, err); /* the dump's schemas, views and strings are the file's */
    if (st == BB_OK) st = bb__ring_dump_build(r, c.out, dump, len, err);
    if (st == BB_OK && c.live && !cursors) pretouch(&c);
    for (uint32_t i = 0; st == BB_OK && i < r->info.shards; i++) {
        if ((st = bb__ring_still_whole(r, err)) != BB_OK) {
            bb__ring_buf_put(*dump);
            *dump = NULL;
            *len = 0;
            break;
        }
        if (c.live && !cursors) { /* run where ring i's writers do (rseq: shard i is CPU i) */
            bb__cpu_hold_take(&c.hold, i, true, bb__cpu_hold_slice_for(r->info.capacity));
            c.held = true;
        }
        if (c.live && !cursors && !refresh(&c, i)) {
            if (c.held) bb__cpu_hold_drop(&c.hold);
            bb__ring_buf_put(*dump);
            *dump = NULL;
            *len = 0;
            st = bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "%s: out of memory", r->name);
            break;
        }
        read_ring(&c, i, cursors ? &cursors[i] : NULL);
    }
    call_free(&c);
    return st;
}

/* Contract: see ring_reader.h. */
bb_status bb_ring_snapshot(bb_ring *r, void **dump, size_t *len, bb_error *err) {
    if (!r || !dump || !len)
        return bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "invalid argument");
    uint8_t *buf = NULL;
    *dump = NULL;
    *len = 0;
    bb_status st = run(r, NULL, &buf, len, err);
    if (st != BB_OK) return st;
    bb_dump *d = NULL;
    bb_error e;
    memset(&e, 0, sizeof e);
    if (bb_dump_open_memory(buf, *len, r->name, &d, &e) != BB_OK) {
        bb__ring_buf_put(buf);
        *len = 0;
        return bb__err_set(err, BB_ERR_CORRUPT, UINT64_MAX, NULL,
                           "%s: the recovered dump does not validate: %s", r->name, e.message);
    }
    bb_dump_close(d);
    *dump = buf;
    bb__err_clear(err);
    return BB_OK;
}

/* Contract: see ring_reader.h. */
bb_status bb_ring_follow(bb_ring *r, bb_ring_cursor *cursors, void **dump, size_t *len,
                         bb_error *err) {
    if (!r || !cursors || !dump || !len)
        return bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "invalid argument");
    uint8_t *buf = NULL;
    *dump = NULL;
    *len = 0;
    r->following = true;
    bb_status st = run(r, cursors, &buf, len, err);
    r->following = false;
    /* What was read is in the dump: the file's pages are let go (issue 43: 3 000 files, 1.9 GB),
     * but while a writer streams into the file (two calls in a row returned records) they stay
     * mapped for the next call, faulting 16 MiB back in costs more than reading it, and through
     * a few calls that return nothing: letting them go after one (a pause of the writer's)
     * had the next call fault the ring in, 4 100 faults and ~55 ms, a lap at 20 M records/s. */
    bool moved = false;
    for (uint32_t i = 0; st == BB_OK && i < r->info.shards; i++) moved |= cursors[i].bytes != 0;
    r->busy_calls = moved ? r->busy_calls + 1 : 0;
    r->idle_calls = moved ? 0 : r->idle_calls + 1;
    if (r->busy_calls >= 2) r->streaming = true;
    else if (r->idle_calls >= BB__RING_IDLE_CALLS) r->streaming = false;
    if (!r->streaming) bb__ring_let_go(r);
    if (st == BB_OK) {
        *dump = buf;
        bb__err_clear(err);
    }
    return st;
}
