/* ring_cut_test.c — the walk of src/format/ring_cut.c (bb__ring_cut_below, bb__ring_lowest,
 * bb__ring_walk_each, bb__ring_cut) against the walk's definition, one record at a time, on
 * random rings: runs of repeated events (the walk's fast path over them), other sizes, unknown
 * ids, zeroed tails, torn bytes, records wrapping the ring's end, cut bounds anywhere. */
/* SPDX-License-Identifier: MIT */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/ring_cut.h"

static int failures, laps;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Four events; the fifth id is unknown to size(). */
static const uint64_t ids[5] = {0x1111aaaa5555ull, 0x2222bbbb6666ull, 0x3333cccc7777ull,
                                0x4444dddd8888ull, 0x5555eeee9999ull};
static const int32_t sizes[5] = {18, 0, 100, 7, 18};

static int32_t size_of(void *ctx, uint64_t id) {
    (void)ctx;
    for (int k = 0; k < 4; k++)
        if (ids[k] == id) return sizes[k];
    return -1;
}

static uint64_t le(const uint8_t *r, uint64_t cap, uint64_t pos, unsigned n) {
    uint64_t v = 0;
    for (unsigned k = 0; k < n; k++) v |= (uint64_t)r[(pos + k) & (cap - 1)] << (8 * k);
    return v;
}

/* The walk's definition: down from head a byte at a time until a record is accepted. */
typedef struct seen {
    uint64_t start[1 << 14], end[1 << 14];
    size_t n;
} seen;
static uint64_t oracle(const uint8_t *r, uint64_t cap, uint64_t low, uint64_t head, uint64_t end,
                       uint64_t *lowest, seen *s) {
    uint64_t pos = head;
    *lowest = head;
    if (s) s->n = 0;
    while (pos - low >= BB__FRAME_TRAILER) {
        uint64_t len = le(r, cap, pos - BB__FRAME_TRAILER, BB__FRAME_TRAILER);
        if (len == 0 || len + BB__FRAME_TRAILER > pos - low || len < BB__FRAME_HEAD) {
            pos--;
            continue;
        }
        uint64_t start = pos - BB__FRAME_TRAILER - len;
        int32_t sz = size_of(NULL, le(r, cap, start + BB__FRAME_ID, 8));
        if (sz < 0 || len != BB__FRAME_HEAD + (uint64_t)sz) {
            pos--;
            continue;
        }
        if (start < end) return pos;
        if (s && s->n < 1 << 14) s->start[s->n] = start, s->end[s->n++] = pos;
        pos = start;
        *lowest = start;
    }
    return pos;
}

static void put(uint8_t *r, uint64_t cap, uint64_t pos, uint64_t v, unsigned n) {
    for (unsigned k = 0; k < n; k++) r[(pos + k) & (cap - 1)] = (uint8_t)(v >> (8 * k));
}

/* Records from position 0 up to about `total` bytes: runs of one event, a zeroed tail before
 * the ring's end now and then (the rseq path's), torn bytes sprinkled. `rseq`: as the rseq path
 * writes, a tail always, no torn bytes. Returns the head. */
static uint64_t fill(uint8_t *r, uint64_t cap, uint64_t total, bool rseq) {
    uint64_t pos = 0;
    memset(r, 0, (size_t)cap);
    while (pos < total) {
        int e = (int)(next_rand() % 5);
        uint64_t run = 1 + next_rand() % (next_rand() % 4 == 0 ? 200 : 6);
        uint64_t frame = BB__FRAME_SIZE((uint64_t)sizes[e]);
        for (uint64_t k = 0; k < run; k++) {
            uint64_t off = pos & (cap - 1);
            if (cap - off < frame && (rseq || next_rand() % 2)) { /* skip the tail, as rseq */
                for (uint64_t z = off; z < cap; z++) r[z] = 0;
                pos += cap - off;
            }
            put(r, cap, pos, next_rand(), 8); /* ts */
            put(r, cap, pos + BB__FRAME_ID, ids[e], 8);
            for (int32_t b = 0; b < sizes[e]; b++)
                r[(pos + BB__FRAME_HEAD + (uint64_t)b) & (cap - 1)] = (uint8_t)next_rand();
            put(r, cap, pos + BB__FRAME_HEAD + (uint64_t)sizes[e], BB__FRAME_HEAD + sizes[e], 2);
            pos += frame;
        }
        if (!rseq && next_rand() % 16 == 0) r[next_rand() & (cap - 1)] = (uint8_t)next_rand();
    }
    return pos;
}

static void check(const char *what, uint64_t got, uint64_t want, uint64_t head, uint64_t end) {
    if (got == want) return;
    if (failures++ < 10)
        fprintf(stderr, "%s: %llu, want %llu (head %llu, end %llu)\n", what,
                (unsigned long long)got, (unsigned long long)want, (unsigned long long)head,
                (unsigned long long)end);
}

typedef struct visits {
    const seen *want;
    size_t n;
    bool bad;
} visits;
static bool visit(void *vctx, uint64_t start, uint64_t end) {
    visits *v = vctx;
    if (v->n >= v->want->n || v->want->start[v->n] != start || v->want->end[v->n] != end)
        v->bad = true;
    v->n++;
    return false;
}

/* A ring as the rseq path writes it: the walk from the start of the head's lap finds the cut
 * the walk from the head does, over rings of 1 to 4 laps and bounds anywhere in the window. */
static void lap_ring(uint8_t *r, uint64_t cap) {
    uint64_t head = fill(r, cap, cap + next_rand() % (3 * cap), true), low = head - cap;
    for (int t = 0; t < 24; t++) {
        uint64_t end = low + next_rand() % (cap + 1), lw, from = bb__ring_lap_start(head, end, cap);
        check("bb__ring_cut_below from bb__ring_lap_start",
              bb__ring_cut_below(r, cap, low, from, end, size_of, NULL),
              oracle(r, cap, low, head, end, &lw, NULL), head, end);
        laps += from < head;
    }
}

static void one_ring(uint8_t *r, uint64_t cap, seen *s) {
    uint64_t head = fill(r, cap, cap / 2 + next_rand() % (3 * cap), false);
    uint64_t low = head > cap ? head - cap : 0;
    for (int t = 0; t < 24; t++) {
        uint64_t end = t == 0 ? 0 : low + next_rand() % (head - low + 1), want_low;
        uint64_t want = oracle(r, cap, low, head, end, &want_low, NULL);
        check("bb__ring_cut_below", bb__ring_cut_below(r, cap, low, head, end, size_of, NULL), want,
              head, end);
        if (t == 0)
            check("bb__ring_lowest", bb__ring_lowest(r, cap, low, head, size_of, NULL), want_low,
                  head, end);
    }
    oracle(r, cap, low, head, 0, &(uint64_t){0}, s);
    visits v = {s, 0, false};
    bb__ring_walk_each(r, cap, low, head, size_of, NULL, visit, &v);
    if (v.bad || v.n != s->n) check("bb__ring_walk_each visits", v.n, s->n, head, 0);
    uint64_t end = low + next_rand() % (head - low + 1), lw;
    uint64_t want = oracle(r, cap, low, head, end, &lw, NULL);
    uint64_t got = bb__ring_cut(r, cap, low, head, end, size_of, NULL);
    if (end > low) check("bb__ring_cut", got, want, head, end);
    for (uint64_t p = low; p < got && p < low + cap; p++)
        if (r[p & (cap - 1)]) {
            check("bb__ring_cut: a byte below the cut not zeroed", p, got, head, end);
            break;
        }
}

int main(void) {
    static seen s;
    for (uint64_t cap = 1024; cap <= (1u << 16); cap <<= 2) {
        uint8_t *r = malloc((size_t)cap);
        if (!r) return 1;
        for (int k = 0; k < 300; k++) one_ring(r, cap, &s);
        for (int k = 0; k < 300; k++) lap_ring(r, cap);
        free(r);
    }
    if (laps < 1000)
        check("walks from a lap's start (fewer than 1000)", (uint64_t)laps, 1000, 0, 0);
    if (failures) fprintf(stderr, "ring_cut_test: %d failures\n", failures);
    else
        printf("ring_cut_test: the walk matches its definition on 1800 random rings (%d walks "
               "from a lap's start)\n",
               laps);
    return failures != 0;
}
