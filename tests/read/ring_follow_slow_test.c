/* ring_follow_slow_test.c — bb_ring_follow (backbeat/ring_reader.h) by a follower deliberately
 * slower than its writer (issue 37): between two follow calls the writer (this thread) writes
 * bursts from a few records to several laps of the ring, in a fixed pseudo-random order, so that
 * the follower keeps up, falls a lap behind, resynchronises, and its calls get windows of very
 * different sizes (the dump buffers come back from the read library's pool holding an older
 * call's records). Every call must return whole records the writer wrote (check value), none
 * twice across calls, a run without gaps that ends at the last record written; the bytes it
 * reports lost must be those of the records it skipped (plus less than a frame per lap: the
 * ring's end left unused when a frame does not fit), and over the run the records returned plus
 * those lost account for every record written. Single-threaded, deterministic, bounded. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../support/check.h"
#include "backbeat/backbeat.h"
#include "backbeat/reader.h"
#include "backbeat/ring_reader.h"

BB_EVENT(slow_ev, "slow_test", "Rec", NULL, BB_FIELD(uint64_t, seq, NULL),
         BB_FIELD(uint64_t, check, NULL));

#define CAP (64u << 10)
#define FRAME 34u /* 16 field bytes + 18 */
#define CALLS 400u
#define MAXSEQ (1u << 22)

static uint64_t check_of(uint64_t seq) {
    return seq * UINT64_C(0x9E3779B97F4A7C15) ^ UINT64_C(0x5bd1e995);
}

typedef struct got {
    uint64_t first, last, n, bad, dup;
    uint8_t *seen; /* MAXSEQ */
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

static bool follow(bb_ring *r, bb_ring_cursor *cur, got *g) {
    void *mem = NULL;
    size_t len = 0;
    bb_error err;
    bb_dump *d = NULL;
    g->n = 0;
    if (bb_ring_follow(r, cur, &mem, &len, &err) != BB_OK ||
        bb_dump_open_memory(mem, len, "follow", &d, &err) != BB_OK) {
        CHECK(0, "follow: %s", err.message);
        bb_ring_buffer_free(mem);
        return false;
    }
    for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
        const bb_rinstance *in = bb_dump_instance(d, i);
        for (size_t k = 0; k < in->shard_count; k++)
            bb_shard_walk(d, &in->shards[k], on_rec, g, NULL);
    }
    bb_dump_close(d);
    bb_ring_buffer_free(mem);
    return true;
}

/* The burst before call k: mostly less than a lap, every few calls one to four laps. */
static uint64_t burst(uint32_t *rng) {
    *rng = *rng * 1103515245u + 12345u;
    uint32_t x = *rng >> 8;
    uint64_t lap = CAP / FRAME;
    if (x % 5 == 0) return lap + x % (3 * lap);
    return 1 + x % (lap * 3 / 4);
}

int main(void) {
    char dir[] = "/tmp/bb_slow_XXXXXX";
    if (!mkdtemp(dir)) return 77;
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 1;
    o.bytes_per_shard = CAP;
    bb_recorder *rec = NULL;
    bb_error err;
    if (bb_recorder_create_ring(&o, dir, false, &rec, &err) != BB_OK) {
        printf("skipped: %s\n", err.message);
        rmdir(dir);
        return 77;
    }
    bb_recorder_enable(rec, true);
    bb_ring *r = NULL;
    got g = {0};
    g.seen = calloc(MAXSEQ, 1);
    if (!g.seen || bb_ring_open(bb_recorder_ring_path(rec), &r, &err) != BB_OK) {
        CHECK(0, "open: %s", g.seen ? err.message : "out of memory");
        bb_recorder_free(rec);
        return 1;
    }
    bb_ring_cursor cur = {0, 0, 0, 0}; /* a position: every loss from the start is counted */
    uint64_t written = 0, returned = 0, lost = 0, lapped = 0, slack_total = 0;
    uint32_t rng = 12345;
    for (uint32_t k = 0; k < CALLS && written < MAXSEQ - 4 * CAP; k++) {
        uint64_t n = burst(&rng), next = written, from = cur.pos;
        for (uint64_t s = written; s < written + n; s++)
            BB_RECORD(rec, slow_ev, .seq = s, .check = check_of(s));
        written += n;
        if (!follow(r, &cur, &g)) break;
        returned += g.n;
        lost += cur.lost;
        lapped += cur.lost != 0;
        CHECK(g.bad == 0 && g.dup == 0, "call %u: %llu foreign, %llu duplicate records", k,
              (unsigned long long)g.bad, (unsigned long long)g.dup);
        CHECK(g.n > 0 && g.last == written - 1 && g.n == g.last - g.first + 1,
              "call %u: %llu records %llu..%llu after writing up to %llu", k,
              (unsigned long long)g.n, (unsigned long long)g.first, (unsigned long long)g.last,
              (unsigned long long)(written - 1));
        /* what it skipped: the records from where it was to the first returned */
        uint64_t skipped = g.n ? g.first - next : 0, laps = (cur.pos - from) / CAP + 1;
        slack_total += laps * FRAME;
        CHECK(cur.lost >= skipped * FRAME && cur.lost < skipped * FRAME + laps * FRAME,
              "call %u: %llu records skipped, %llu bytes reported lost", k,
              (unsigned long long)skipped, (unsigned long long)cur.lost);
        CHECK(cur.lost + cur.bytes == cur.pos - from, "call %u: lost %llu + returned %llu != %llu",
              k, (unsigned long long)cur.lost, (unsigned long long)cur.bytes,
              (unsigned long long)(cur.pos - from));
        if (failures) break;
    }
    uint64_t lost_records = lost / FRAME;
    CHECK(returned + lost_records <= written &&
              returned + lost_records + slack_total / FRAME >= written,
          "%llu written, %llu returned, %llu lost (%llu bytes)", (unsigned long long)written,
          (unsigned long long)returned, (unsigned long long)lost_records, (unsigned long long)lost);
    CHECK(lapped > 10, "the writer lapped the follower only %llu times",
          (unsigned long long)lapped);
    printf("slow follower: %llu written, %llu returned, %llu lost (%llu bytes, %llu laps lost)\n",
           (unsigned long long)written, (unsigned long long)returned,
           (unsigned long long)lost_records, (unsigned long long)lost, (unsigned long long)lapped);
    bb_ring_close(r);
    bb_recorder_free(rec);
    free(g.seen);
    rmdir(dir);
    return failures ? 1 : 0;
}
