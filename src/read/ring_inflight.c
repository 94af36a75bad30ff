/* ring_inflight.c — the records a ring file's writers had in flight, from the file's
 * announcement table (docs/RING_FILE.md "Records in flight").
 *
 * On the fetch_add path a writer announces (length, shard) in its entry of the table, reserves
 * with a fetch_add, publishes the reserved position, copies the frame and retires the
 * announcement (detail/recorder_inline.h). An entry still announced says one of:
 *   - position published: [pos, pos + len) may hold part of the frame over bytes of an older
 *     lap: blanked in the copy (the union of all such ranges, so that a crafted table whose
 *     every entry claims the whole ring costs one pass over it); when pos lies below the
 *     window, the writer's late bytes may sit in the window one lap up: the caller cuts below
 *     them, as for a lapped writer's mark;
 *   - position unknown: the thread was stopped before its reservation (nothing to do) or right
 *     after it, before publishing the position (its slot then holds only older bytes). Such a
 *     hole breaks the reader's walk down from the head at its top; when a record the walk
 *     accepts ends exactly `len` bytes below that break, the hole is [there, break) and is
 *     blanked.
 * Blanked bytes read as zero lengths, which the reader's walk steps over. What stays possible:
 * a hole whose older bytes form a whole frame of a recovered event ending exactly at its top
 * (needs a record boundary of the older lap at both ends) passes for a record. */
/* SPDX-License-Identifier: MIT */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/detail/frame.h"
#include "format/ring_cut.h"
#include "format/ring_file.h"
#include "read/ring_priv.h"

/* One announcement entry, re-read while its position is unknown when `wait` (bounded by the
 * call's budget of yields). False when it is not one of this file's shards' records. */
static bool read_entry(const bb_ring *r, uint32_t i, bool wait, int *budget, bb__ring_ann *a) {
    const uint8_t *e = r->d + r->g.slots + (uint64_t)i * BB_RING_SLOT_STRIDE;
    for (;;) {
        uint64_t taglen = __atomic_load_n((const uint64_t *)(const void *)e, __ATOMIC_ACQUIRE);
        uint64_t pos = __atomic_load_n((const uint64_t *)(const void *)(e + 8), __ATOMIC_ACQUIRE);
        uint32_t tag = (uint32_t)taglen, len = (uint32_t)(taglen >> 32);
        if (tag < r->g.tag_base || tag - r->g.tag_base >= r->info.shards ||
            len < BB__FRAME_OVERHEAD || len > r->info.capacity)
            return false;
        if (pos == UINT64_MAX && wait && *budget > 0) {
            (*budget)--; /* spin: a running writer publishes within nanoseconds */
            if (*budget % 256 == 0) sched_yield();
            __asm__ __volatile__("" ::: "memory");
            continue;
        }
        *a = (bb__ring_ann){tag - r->g.tag_base, i, len, pos};
        return true;
    }
}

static int by_shard(const void *x, const void *y) {
    const bb__ring_ann *a = x, *b = y;
    if (a->shard != b->shard) return a->shard < b->shard ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Contract: see ring_priv.h. */
bool bb__ring_announcements(const bb_ring *r, bool wait, bb__ring_ann **out, size_t *n) {
    *n = 0;
    *out = malloc((size_t)r->g.slot_count * sizeof **out);
    if (!*out) return false;
    int budget = 8192; /* spins, a yield every 256 */
    for (uint32_t i = 0; i + 1 < r->g.slot_count; i++)
        if (read_entry(r, i, wait, &budget, &(*out)[*n])) (*n)++;
    if (*n) qsort(*out, *n, sizeof **out, by_shard);
    return true;
}

/* Whether the later read now[n] holds the writer of the earlier announcement `a`. */
static bool still_listed(const bb__ring_ann *now, size_t n, const bb__ring_ann *a) {
    for (size_t k = 0; k < n; k++)
        if (now[k].slot == a->slot &&
            (now[k].pos == a->pos || (a->pos == UINT64_MAX && now[k].len == a->len)))
            return true;
    return false;
}

/* Contract: see ring_priv.h. */
bool bb__ring_ann_union(const bb__ring_ann *had, size_t nhad, const bb__ring_ann *now, size_t nnow,
                        uint32_t shard, uint64_t low, uint64_t head, bb__ring_ann **out,
                        size_t *n) {
    *n = 0;
    *out = malloc((nhad + nnow + 1) * sizeof **out);
    if (!*out) return false;
    for (size_t k = 0; k < nnow; k++)
        if (now[k].shard == shard) (*out)[(*n)++] = now[k];
    size_t fresh = *n;
    for (size_t k = 0; k < nhad; k++) {
        const bb__ring_ann *a = &had[k];
        if (a->shard != shard || (a->pos != UINT64_MAX && (a->pos < low || a->pos >= head)))
            continue;
        if (!still_listed(*out, fresh, a)) (*out)[(*n)++] = *a;
    }
    if (*n) qsort(*out, *n, sizeof **out, by_shard);
    return true;
}

/* `n` (<= 8) bytes at absolute position `pos`, little-endian, wrapping. */
static uint64_t ring_le(const bb__ring_view *v, uint64_t pos, unsigned n) {
    uint64_t x = 0;
    for (unsigned k = 0; k < n; k++) x |= (uint64_t)v->ring[(pos + k) & (v->cap - 1)] << (8 * k);
    return x;
}

/* The start of the record the reader's walk would accept ending at `pos`, or UINT64_MAX. */
static uint64_t frame_end(const bb__ring_view *v, uint64_t pos) {
    if (pos < v->low || pos - v->low < BB__FRAME_TRAILER) return UINT64_MAX;
    uint64_t len = ring_le(v, pos - BB__FRAME_TRAILER, BB__FRAME_TRAILER);
    if (len < BB__FRAME_HEAD || len + BB__FRAME_TRAILER > pos - v->low) return UINT64_MAX;
    uint64_t start = pos - BB__FRAME_TRAILER - len;
    int32_t sz = bb__ring_size_of((void *)(uintptr_t)v->r, ring_le(v, start + BB__FRAME_ID, 8));
    return sz >= 0 && len == BB__FRAME_HEAD + (uint64_t)sz ? start : UINT64_MAX;
}

/* Lengths of the announcements with an unknown position, consumed as holes are found. */
typedef struct pending {
    uint32_t len[12]; /* more (threads of one shard stopped at once) are left to the reader */
    size_t n;
} pending;

/* Whether [at, top) can be a hole: the window's low end, a record the walk accepts, or zeros
 * end right below it. */
static bool hole_fits(const bb__ring_view *v, uint64_t at) {
    return at == v->low || frame_end(v, at) != UINT64_MAX ||
           ring_le(v, at - BB__FRAME_TRAILER, BB__FRAME_TRAILER) == 0;
}

static uint64_t mask_len(const pending *p, uint32_t mask) {
    uint64_t n = 0;
    for (size_t k = 0; k < p->n; k++)
        if (mask >> k & 1) n += p->len[k];
    return n;
}

/* The walk broke at `top`: find the fewest pending holes that fill [at, top) exactly (threads
 * stopped at once hold adjacent reservations), blank them and drop them from `p`. */
static bool fill_hole(bb__ring_view *v, pending *p, uint64_t top) {
    uint32_t best = 0;
    for (uint32_t mask = 1; mask < (1u << p->n); mask++) {
        if (best && __builtin_popcount(mask) >= __builtin_popcount(best)) continue;
        uint64_t len = mask_len(p, mask);
        if (len <= top - v->low && hole_fits(v, top - len)) best = mask;
    }
    if (!best) return false;
    bb__ring_blank(v->ring, v->cap, top - mask_len(p, best), top);
    size_t kept = 0;
    for (size_t k = 0; k < p->n; k++)
        if (!(best >> k & 1)) p->len[kept++] = p->len[k];
    p->n = kept;
    return true;
}

/* Walk down from the head as the reader does; at each break, try to fill a pending hole. */
static void find_holes(bb__ring_view *v, pending *p) {
    uint64_t pos = v->head;
    bool after_zero = false;
    while (p->n && pos - v->low >= BB__FRAME_TRAILER) {
        if (ring_le(v, pos - BB__FRAME_TRAILER, BB__FRAME_TRAILER) == 0) {
            pos--;
            after_zero = true;
            continue;
        }
        uint64_t start = frame_end(v, pos);
        if (start != UINT64_MAX) {
            pos = start;
            after_zero = false;
            continue;
        }
        /* Just below a zero run the trailer's high byte of the record under it reads as a
         * length with the zero above: step once more before calling it a break. */
        if (after_zero && v->ring[(pos - 1) & (v->cap - 1)] == 0) {
            pos--;
            continue;
        }
        after_zero = false;
        if (!fill_hole(v, p, pos)) return; /* not a hole's shape: left to the reader */
    }
}

/* Blank the union of the known ranges a[0..n) (sorted by position) clipped to the window. */
static void blank_known(bb__ring_view *v, const bb__ring_ann *a, size_t n) {
    uint64_t from = 0, to = 0; /* the range being merged */
    for (size_t k = 0; k < n; k++) {
        if (a[k].pos == UINT64_MAX || a[k].pos < v->low || a[k].pos >= v->head) continue;
        uint64_t s = a[k].pos, e = a[k].pos + a[k].len < v->head ? a[k].pos + a[k].len : v->head;
        if (s > to) {
            bb__ring_blank(v->ring, v->cap, from, to);
            from = s;
        }
        if (e > to) to = e;
    }
    bb__ring_blank(v->ring, v->cap, from, to);
}

/* Contract: see ring_priv.h. */
uint64_t bb__ring_inflight(bb__ring_view *v, const bb__ring_ann *a, size_t n) {
    pending p = {{0}, 0};
    uint64_t cut = 0;
    for (size_t k = 0; k < n; k++) {
        if (a[k].pos == UINT64_MAX) {
            if (p.n < sizeof p.len / sizeof p.len[0]) p.len[p.n++] = a[k].len;
        } else if (a[k].pos < v->low && a[k].pos < v->head) {
            uint64_t end = bb__ring_last_lap(a[k].pos, v->head, v->cap) + a[k].len;
            if (end > cut) cut = end;
        }
    }
    blank_known(v, a, n);
    find_holes(v, &p);
    return cut;
}
