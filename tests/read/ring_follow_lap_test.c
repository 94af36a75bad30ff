/* ring_follow_lap_test.c — bb_ring_follow (backbeat/ring_reader.h) when the writer laps a
 * follower whose cursor is at position 0: the ring was empty when the follower started (its
 * first call returned nothing and left the cursor at 0), then the writer wrote more than the
 * ring holds before the next call. Position 0 is then a position like any other, not "the
 * oldest record held": the bytes overwritten before the follower read them must be reported
 * lost, every record returned must be one the writer wrote (check value), none twice, and the
 * records returned plus the bytes reported lost must account for every record written.
 * Also: a fresh cursor at BB_RING_OLDEST on a lapped ring reports nothing lost; a cursor at
 * BB_RING_NOW on an empty ring, lapped, reports its losses too. Single-threaded, in-process,
 * deterministic (the writer is this thread; nothing is timed). */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../support/check.h"
#include "backbeat/backbeat.h"
#include "backbeat/reader.h"
#include "backbeat/ring_reader.h"

BB_EVENT(lap_ev, "lap_test", "Rec", NULL, BB_FIELD(uint64_t, seq, NULL),
         BB_FIELD(uint64_t, check, NULL));

#define CAP 4096u

static uint64_t check_of(uint64_t seq) {
    return seq * UINT64_C(0x9E3779B97F4A7C15) ^ UINT64_C(0x5bd1e995);
}

#define MAXSEQ 4096u

/* What the follow calls returned: per call the count and the lowest and highest seq (a walk
 * goes in ring order, not necessarily in seq order); across calls, each seq seen. */
typedef struct got {
    uint64_t first, last, n, bad, dup;
    uint8_t seen[MAXSEQ];
} got;

static int on_rec(const bb_record *r, void *ctx) {
    got *g = ctx;
    uint64_t seq, chk;
    memcpy(&seq, r->fields, 8);
    memcpy(&chk, r->fields + 8, 8);
    if (chk != check_of(seq) || seq >= MAXSEQ) {
        g->bad++;
        return 0;
    }
    g->dup += g->seen[seq];
    g->seen[seq] = 1;
    if (g->n == 0 || seq < g->first) g->first = seq;
    if (g->n == 0 || seq > g->last) g->last = seq;
    g->n++;
    return 0;
}

/* One follow call of ring `r` at *cur; the records walked into *g (n, first, last reset). */
static void follow(bb_ring *r, bb_ring_cursor *cur, got *g) {
    void *mem = NULL;
    size_t len = 0;
    bb_error err;
    g->n = 0;
    g->first = g->last = UINT64_MAX;
    if (bb_ring_follow(r, cur, &mem, &len, &err) != BB_OK) {
        CHECK(0, "follow: %s", err.message);
        return;
    }
    bb_dump *d = NULL;
    if (bb_dump_open_memory(mem, len, "follow", &d, &err) != BB_OK) {
        CHECK(0, "the follow dump does not open: %s", err.message);
        bb_ring_buffer_free(mem);
        return;
    }
    for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
        const bb_rinstance *in = bb_dump_instance(d, i);
        for (size_t k = 0; k < in->shard_count; k++)
            bb_shard_walk(d, &in->shards[k], on_rec, g, NULL);
    }
    bb_dump_close(d);
    bb_ring_buffer_free(mem);
}

static void record(bb_recorder *rec, uint64_t from, uint64_t n) {
    for (uint64_t s = from; s < from + n; s++)
        BB_RECORD(rec, lap_ev, .seq = s, .check = check_of(s));
}

static bb_recorder *make(const char *dir, bb_ring **ring) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 1;
    o.bytes_per_shard = CAP;
    bb_recorder *rec = NULL;
    bb_error err;
    if (bb_recorder_create_ring(&o, dir, false, &rec, &err) != BB_OK) {
        printf("skipped: %s\n", err.message);
        exit(77);
    }
    bb_recorder_enable(rec, true);
    if (bb_ring_open(bb_recorder_ring_path(rec), ring, &err) != BB_OK) {
        CHECK(0, "open: %s", err.message);
        bb_recorder_free(rec);
        return NULL;
    }
    return rec;
}

/* The follower starts on an empty ring (cursor `start`), the writer laps it `laps` times (plus
 * some), then writes a little more. */
static void lapped_from_empty(const char *dir, uint64_t start, double laps) {
    bb_ring *r = NULL;
    bb_recorder *rec = make(dir, &r);
    if (!rec) return;
    bb_ring_cursor cur = {start, 0, 0, 0};
    static got g;
    memset(&g, 0, sizeof g);
    follow(r, &cur, &g);
    CHECK(g.n == 0 && cur.pos == 0 && cur.lost == 0,
          "empty ring: %llu records, pos %llu, lost %llu", (unsigned long long)g.n,
          (unsigned long long)cur.pos, (unsigned long long)cur.lost);
    /* The frame's size, from one record the follower reads whole. */
    record(rec, 0, 1);
    follow(r, &cur, &g);
    uint64_t frame = cur.bytes;
    CHECK(g.n == 1 && g.first == 0 && frame > 0 && cur.lost == 0, "first record: n %llu bytes %llu",
          (unsigned long long)g.n, (unsigned long long)frame);
    /* Back to an empty-ring follower at position 0: a second ring (the same writer code). */
    bb_ring_close(r);
    bb_recorder_free(rec);
    rec = make(dir, &r);
    if (!rec) return;
    cur = (bb_ring_cursor){start, 0, 0, 0};
    memset(&g, 0, sizeof g);
    follow(r, &cur, &g);
    CHECK(g.n == 0 && cur.pos == 0, "empty ring again: %llu records", (unsigned long long)g.n);
    uint64_t n = (uint64_t)(laps * CAP / (double)frame) + 1;
    record(rec, 0, n);
    follow(r, &cur, &g);
    /* The head grows by the frames, and on the rseq path by the ring's end zeroed when a frame
     * does not fit there (less than a frame per lap). */
    uint64_t written = n * frame, slack = (uint64_t)(laps + 2) * frame;
    CHECK(cur.head >= written && cur.head <= written + slack, "head %llu, wrote %llu bytes",
          (unsigned long long)cur.head, (unsigned long long)written);
    CHECK(g.bad == 0 && g.dup == 0, "%llu foreign, %llu duplicate records",
          (unsigned long long)g.bad, (unsigned long long)g.dup);
    CHECK(g.n > 0 && g.last == n - 1, "lapped: %llu records, last %llu of %llu",
          (unsigned long long)g.n, (unsigned long long)g.last, (unsigned long long)n);
    CHECK(g.n == 0 || g.n == g.last - g.first + 1, "records missing inside the returned window");
    CHECK(g.first > 0, "%.1f laps, yet record 0 was returned", laps);
    CHECK(cur.lost >= g.first * frame && cur.lost <= g.first * frame + slack,
          "start %s, %.2f laps: first record returned %llu (%llu bytes below it), %llu bytes "
          "reported lost",
          start == BB_RING_NOW ? "now" : "oldest", laps, (unsigned long long)g.first,
          (unsigned long long)(g.first * frame), (unsigned long long)cur.lost);
    CHECK(cur.lost + cur.bytes == cur.pos, "lost %llu + returned %llu != %llu",
          (unsigned long long)cur.lost, (unsigned long long)cur.bytes, (unsigned long long)cur.pos);
    /* Nothing new: nothing returned, nothing lost again. */
    follow(r, &cur, &g);
    CHECK(g.n == 0 && cur.lost == 0 && cur.bytes == 0, "idle call: %llu records, lost %llu",
          (unsigned long long)g.n, (unsigned long long)cur.lost);
    /* A little more: it goes on where it was, nothing lost. */
    record(rec, n, 10);
    follow(r, &cur, &g);
    CHECK(g.n == 10 && g.first == n && cur.lost == 0 && g.dup == 0,
          "after: %llu records from %llu, lost %llu", (unsigned long long)g.n,
          (unsigned long long)g.first, (unsigned long long)cur.lost);
    bb_ring_close(r);
    bb_recorder_free(rec);
}

/* A fresh cursor at BB_RING_OLDEST on a ring lapped before it: the oldest record held, whole
 * records from there on, nothing reported lost. */
static void oldest_on_lapped(const char *dir) {
    bb_ring *r = NULL;
    bb_recorder *rec = make(dir, &r);
    if (!rec) return;
    record(rec, 0, 3 * CAP / 16);
    bb_ring_cursor cur = {BB_RING_OLDEST, 0, 0, 0};
    static got g;
    memset(&g, 0, sizeof g);
    follow(r, &cur, &g);
    CHECK(g.n > 0 && g.first > 0 && g.last == 3 * CAP / 16 - 1 && g.bad == 0 && g.dup == 0,
          "oldest: %llu records %llu..%llu", (unsigned long long)g.n, (unsigned long long)g.first,
          (unsigned long long)g.last);
    CHECK(cur.lost == 0, "a fresh cursor at the oldest record reported %llu bytes lost",
          (unsigned long long)cur.lost);
    bb_ring_close(r);
    bb_recorder_free(rec);
}

int main(void) {
    char dir[] = "/tmp/bb_lap_XXXXXX";
    if (!mkdtemp(dir)) return 77;
    const double laps[] = {1.01, 1.5, 2.0, 3.7};
    for (size_t k = 0; k < sizeof laps / sizeof *laps; k++) {
        lapped_from_empty(dir, BB_RING_OLDEST, laps[k]);
        lapped_from_empty(dir, BB_RING_NOW, laps[k]);
    }
    oldest_on_lapped(dir);
    rmdir(dir);
    return failures ? 1 : 0;
}
