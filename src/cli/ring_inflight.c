/* ring_inflight.c — blank what a killed process's writers left in flight in its rings.
 *
 * On the fetch_add path a writer announces (length, shard) in its entry of the recorder's
 * announcement table, reserves with a fetch_add, publishes the reserved position, copies the
 * frame and retires the announcement (detail/recorder_inline.h). A ring file holds the table,
 * so after a SIGKILL an entry still announced says one of:
 *   - position published: [pos, pos + len) holds part of the frame over bytes of an older lap:
 *     blanked exactly (or, when pos lies below the window, the writer's late bytes may sit in
 *     the window one lap up: the caller cuts below them, as for a lapped writer's mark);
 *   - position unknown: the thread was stopped before its reservation (nothing to do) or right
 *     after it, before publishing the position (its slot then holds only older bytes, often
 *     the one place a kill lands, just after the long locked instruction). Such a hole breaks
 *     the reader's walk down from the head at its top; when a record the walk accepts ends
 *     exactly `len` bytes below that break, the hole is [there, break) and is blanked.
 * Blanked bytes read as zero lengths, which the reader's walk steps over. What stays possible:
 * a hole whose older bytes form a whole frame of a recovered event ending exactly at its top
 * (needs a record boundary of the older lap at both ends) passes for a record. */
/* SPDX-License-Identifier: MIT */
#include "cli/ring_inflight.h"

#include <string.h>

#include "backbeat/detail/frame.h"
#include "format/ring_file.h"

uint64_t cli_ring_le(const cli_ring_view *v, uint64_t pos, unsigned n) {
    uint64_t x = 0;
    for (unsigned k = 0; k < n; k++) x |= (uint64_t)v->ring[(pos + k) & (v->cap - 1)] << (8 * k);
    return x;
}

uint64_t cli_ring_frame_end(const cli_ring_view *v, uint64_t pos) {
    if (pos < v->low || pos - v->low < BB__FRAME_TRAILER) return UINT64_MAX;
    uint64_t len = cli_ring_le(v, pos - BB__FRAME_TRAILER, BB__FRAME_TRAILER);
    if (len < BB__FRAME_HEAD || len + BB__FRAME_TRAILER > pos - v->low) return UINT64_MAX;
    uint64_t start = pos - BB__FRAME_TRAILER - len;
    uintptr_t sz = (uintptr_t)u64map_get(v->sizes, cli_ring_le(v, start + BB__FRAME_ID, 8));
    return sz && len == BB__FRAME_HEAD + (sz - 1) ? start : UINT64_MAX;
}

static void blank(cli_ring_view *v, uint64_t from, uint64_t to) {
    for (uint64_t a = from; a < to; a++) v->ring[a & (v->cap - 1)] = 0;
}

/* Lengths of the announcements with an unknown position, consumed as holes are found. */
typedef struct pending {
    uint32_t len[12]; /* more (threads of one shard stopped at once) are left to the reader */
    size_t n;
} pending;

/* Whether [at, top) can be a hole: the window's low end, a record the walk accepts, or zeros
 * end right below it. */
static bool hole_fits(const cli_ring_view *v, uint64_t at) {
    return at == v->low || cli_ring_frame_end(v, at) != UINT64_MAX ||
           cli_ring_le(v, at - BB__FRAME_TRAILER, BB__FRAME_TRAILER) == 0;
}

/* Sum of the pending lengths chosen by `mask`. */
static uint64_t mask_len(const pending *p, uint32_t mask) {
    uint64_t n = 0;
    for (size_t k = 0; k < p->n; k++)
        if (mask >> k & 1) n += p->len[k];
    return n;
}

/* The walk broke at `top`: find the fewest pending holes that fill [at, top) exactly (threads
 * stopped at once hold adjacent reservations), blank them and drop them from `p`. */
static bool fill_hole(cli_ring_view *v, pending *p, uint64_t top) {
    uint32_t best = 0;
    for (uint32_t mask = 1; mask < (1u << p->n); mask++) {
        if (best && __builtin_popcount(mask) >= __builtin_popcount(best)) continue;
        uint64_t len = mask_len(p, mask);
        if (len <= top - v->low && hole_fits(v, top - len)) best = mask;
    }
    if (!best) return false;
    blank(v, top - mask_len(p, best), top);
    size_t kept = 0;
    for (size_t k = 0; k < p->n; k++)
        if (!(best >> k & 1)) p->len[kept++] = p->len[k];
    p->n = kept;
    return true;
}

/* Walk down from the head as the reader does; at each break, try to fill a pending hole. The
 * step over zeros goes one byte at a time: bounded by the window, linear. */
static void find_holes(cli_ring_view *v, pending *p) {
    uint64_t pos = v->head;
    bool after_zero = false;
    while (p->n && pos - v->low >= BB__FRAME_TRAILER) {
        if (cli_ring_le(v, pos - BB__FRAME_TRAILER, BB__FRAME_TRAILER) == 0) {
            pos--;
            after_zero = true;
            continue;
        }
        uint64_t start = cli_ring_frame_end(v, pos);
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

static uint64_t get64(const uint8_t *d) {
    uint64_t x;
    memcpy(&x, d, 8);
    return x;
}

uint64_t cli_ring_inflight(cli_ring_view *v, const uint8_t *slots, uint32_t count, uint32_t tag) {
    pending p = {{0}, 0};
    uint64_t cut = 0;
    for (uint32_t i = 0; i + 1 < count; i++) {
        const uint8_t *e = slots + (size_t)i * BB_RING_SLOT_STRIDE;
        uint64_t taglen = get64(e), pos = get64(e + 8);
        uint64_t len = taglen >> 32;
        if ((uint32_t)taglen != tag || len < BB__FRAME_OVERHEAD || len > v->cap) continue;
        if (pos == UINT64_MAX) {
            if (p.n < sizeof p.len / sizeof p.len[0]) p.len[p.n++] = (uint32_t)len;
        } else if (pos < v->low && pos < v->head) {
            uint64_t end = pos + (v->head - 1 - pos) / v->cap * v->cap + len;
            if (end > cut) cut = end;
        } else if (pos < v->head) {
            blank(v, pos, pos + len < v->head ? pos + len : v->head);
        }
    }
    find_holes(v, &p);
    return cut;
}
