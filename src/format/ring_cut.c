/* ring_cut.c — the cut of a ring copied while writers run (see ring_cut.h): blanking and the
 * walk down from the head that finds where to cut, shared by the live dump and the ring-file
 * reader. */
/* SPDX-License-Identifier: MIT */
#include "format/ring_cut.h"

#include <stddef.h>
#include <string.h>

/* The walk also reads live rings that writers may be storing into (the crash path's dump, the
 * intern table's generation scan, intern.c): a deliberate race, as the dump's copy is
 * (recorder_dump.c racy_copy). Every read is masked into the ring and every value read is
 * checked before it is used (a torn record is rejected, as the reader rejects it), so torn
 * bytes can only make the walk step over records a lapping writer is overwriting anyway. Under
 * ThreadSanitizer the functions that read ring bytes are uninstrumented, out of line, and read
 * through volatile loads, so that the intended race is neither reported nor optimised. */
#if defined(__SANITIZE_THREAD__)
#define BB_RING_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BB_RING_TSAN 1
#endif
#endif
#ifdef BB_RING_TSAN
#define BB_RACY __attribute__((no_sanitize("thread"), noinline))
typedef const volatile uint8_t racy_u8;
#else
#define BB_RACY
typedef const uint8_t racy_u8;
#endif

/* Contract: see ring_cut.h. */
void bb__ring_blank(uint8_t *buf, uint64_t cap, uint64_t from, uint64_t to) {
    if (to <= from) return;
    uint64_t n = to - from;
    if (n >= cap) {
        memset(buf, 0, (size_t)cap);
        return;
    }
    uint64_t off = from & (cap - 1);
    uint64_t first = cap - off < n ? cap - off : n;
    memset(buf + off, 0, (size_t)first);
    if (first < n) memset(buf, 0, (size_t)(n - first));
}

#ifdef BB_RING_TSAN
#define RING_LE BB_RACY
#else
#define RING_LE __attribute__((always_inline)) inline /* n is a constant: one load (issue 37) */
#endif

/* `n` (<= 8) bytes at absolute position `pos`, little-endian, wrapping. */
RING_LE static uint64_t ring_le(const uint8_t *ring, uint64_t cap, uint64_t pos, unsigned n) {
    racy_u8 *r = ring;
    uint64_t v = 0;
    uint64_t at = pos & (cap - 1);
    if (at + n <= cap) {
#ifdef BB_RING_TSAN
        for (unsigned k = 0; k < n; k++) v |= (uint64_t)r[at + k] << (8 * k);
#else
        memcpy(&v, r + at, n); /* little-endian only (detail/frame.h) */
#endif
        return v;
    }
    for (unsigned k = 0; k < n; k++) v |= (uint64_t)r[(pos + k) & (cap - 1)] << (8 * k);
    return v;
}

/* The 8-byte word at p (8-aligned). */
BB_RACY static uint64_t word_at(racy_u8 *p) {
#ifdef BB_RING_TSAN
    return *(const volatile uint64_t *)(const volatile void *)p;
#else
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
#endif
}

/* Lowest position a >= low with [a, pos) all zero, a word at a time where aligned. */
BB_RACY static uint64_t zero_start(const uint8_t *r, uint64_t cap, uint64_t pos, uint64_t low) {
    while (pos > low) {
        uint64_t at = ((pos - 1) & (cap - 1)) + 1; /* physical end of this piece */
        uint64_t piece = pos - low < at ? pos - low : at, k = 0;
        racy_u8 *p = r + at;
        while (k < piece && ((uintptr_t)(p - k) & 7) != 0) {
            if (p[-1 - (ptrdiff_t)k]) return pos - k;
            k++;
        }
        while (k + 8 <= piece) {
            if (word_at(p - k - 8)) break;
            k += 8;
        }
        for (; k < piece; k++)
            if (p[-1 - (ptrdiff_t)k]) return pos - k;
        pos -= piece;
    }
    return low;
}

/* From `pos` (the start of an accepted record whose frame is `f` bytes, event `id`), down over
 * the records below that repeat it, none starting below `floor`, none wrapping: the position
 * reached. Each is what the walk accepts (its trailer says f - BB__FRAME_TRAILER, its id is
 * `id`); the next position does not wait on the loads (it is pos - f whatever they hold), only
 * the branch does, so the loads of many records overlap instead of forming one chain: 3.4 ns a
 * record of 34 bytes became ~1 (issue 37). */
static uint64_t repeats(const uint8_t *ring, uint64_t cap, uint64_t pos, uint64_t floor, uint64_t f,
                        uint64_t id) {
#ifdef BB_RING_TSAN
    (void)ring, (void)cap, (void)floor, (void)f, (void)id;
    return pos; /* the racy reads stay in ring_le */
#else
    uint64_t at = ((pos - 1) & (cap - 1)) + 1; /* physical end of the record below pos */
    uint64_t n = (pos - floor) / f < at / f ? (pos - floor) / f : at / f, k = 0;
    uint16_t len = (uint16_t)(f - BB__FRAME_TRAILER);
    const uint8_t *p = ring + at;
    for (; k < n; k++, p -= f) {
        uint16_t t;
        uint64_t i;
        memcpy(&t, p - BB__FRAME_TRAILER, 2);
        memcpy(&i, p - f + BB__FRAME_ID, 8);
        if (t != len || i != id) break;
    }
    return pos - k * f;
#endif
}

/* The walk down from `head`: stops at the end of the first record accepted that starts below
 * `end` (returned), or for which `visit` (when not NULL) returns true; *lowest: the start of the
 * lowest record accepted (head if none). */
static uint64_t walk(const uint8_t *ring, uint64_t cap, uint64_t low, uint64_t head, uint64_t end,
                     bb__ring_size_fn size, void *ctx, uint64_t *lowest, bb__ring_visit_fn visit,
                     void *vctx) {
    uint64_t pos = head, last_id = 0;
    int32_t last_sz = -1; /* size() of last_id: a ring mostly repeats its events */
    *lowest = head;
    while (pos - low >= BB__FRAME_TRAILER) {
        uint64_t len = ring_le(ring, cap, pos - BB__FRAME_TRAILER, BB__FRAME_TRAILER);
        if (len == 0) { /* always down, even if a live ring's bytes change under the scan */
            uint64_t z = zero_start(ring, cap, pos, low) + 1;
            pos = z < pos ? z : pos - 1;
            continue;
        }
        if (len + BB__FRAME_TRAILER > pos - low || len < BB__FRAME_HEAD) {
            pos--;
            continue;
        }
        uint64_t start = pos - BB__FRAME_TRAILER - len;
        uint64_t id = ring_le(ring, cap, start + BB__FRAME_ID, 8);
        if (id != last_id || last_sz < 0) {
            last_id = id;
            last_sz = size(ctx, id);
        }
        int32_t sz = last_sz;
        if (sz < 0 || len != BB__FRAME_HEAD + (uint64_t)sz) {
            pos--;
            continue;
        }
        if (start < end || (visit && visit(vctx, start, pos))) return pos;
        pos = start;
        *lowest = start;
        if (!visit)
            *lowest = pos =
                repeats(ring, cap, pos, end > low ? end : low, len + BB__FRAME_TRAILER, id);
    }
    return pos;
}

/* Contract: see ring_cut.h. */
uint64_t bb__ring_cut_below(const uint8_t *ring, uint64_t cap, uint64_t low, uint64_t head,
                            uint64_t end, bb__ring_size_fn size, void *ctx) {
    uint64_t lowest;
    return walk(ring, cap, low, head, end, size, ctx, &lowest, NULL, NULL);
}

/* Contract: see ring_cut.h. */
uint64_t bb__ring_lowest(const uint8_t *ring, uint64_t cap, uint64_t low, uint64_t head,
                         bb__ring_size_fn size, void *ctx) {
    uint64_t lowest;
    walk(ring, cap, low, head, 0, size, ctx, &lowest, NULL, NULL);
    return lowest;
}

/* Contract: see ring_cut.h. */
uint64_t bb__ring_cut(uint8_t *ring, uint64_t cap, uint64_t low, uint64_t head, uint64_t end,
                      bb__ring_size_fn size, void *ctx) {
    if (end <= low || head <= low) return low;
    if (end > head) end = head;
    uint64_t to = bb__ring_cut_below(ring, cap, low, head, end, size, ctx);
    bb__ring_blank(ring, cap, low, to);
    return to;
}

/* Contract: see ring_cut.h. */
void bb__ring_walk_each(const uint8_t *ring, uint64_t cap, uint64_t low, uint64_t head,
                        bb__ring_size_fn size, void *ctx, bb__ring_visit_fn visit, void *vctx) {
    uint64_t lowest;
    if (head > low) walk(ring, cap, low, head, 0, size, ctx, &lowest, visit, vctx);
}

/* Contract: see ring_cut.h. */
BB_RACY void bb__ring_read(const uint8_t *ring, uint64_t cap, uint64_t pos, void *out, size_t n) {
    racy_u8 *r = ring;
    uint8_t *o = out;
    for (size_t k = 0; k < n; k++) o[k] = r[(pos + k) & (cap - 1)];
}
