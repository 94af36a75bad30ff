/* ring_follow_ready_test.c — the follow buffers bb_ring_follow_records makes ready while a
 * running writer's file is quiet (read/ring_follow.c ready_next, issue 37): calls while the
 * writer moves ready nothing; a few calls with every head unmoved charge a whole ring's buffers
 * per ring to the process's budget, and no more after that; records written next come back
 * exactly (seq in order, none missing); many handles followed at once stay within the budget
 * (some get none); closing every handle gives every byte back; a file whose writer is gone
 * readies nothing. Prints what it counted. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../support/check.h"
#include "backbeat/backbeat.h"
#include "backbeat/ring_reader.h"
#include "read/ring_priv.h"

BB_EVENT(rd_rec, "test::follow_ready", "Rec", NULL, BB_FIELD(uint64_t, seq, NULL));

#define SHARDS 2u
#define RING ((uint64_t)16 << 20)
#define HANDLES 16

static char g_dir[] = "/tmp/bb_fready_XXXXXX";

static uint64_t ready(void) { return __atomic_load_n(&bb__ring_follow_ready, __ATOMIC_RELAXED); }

typedef struct got {
    uint64_t n, next;
    bool ordered;
} got;

static int on_rec(void *ctx, const bb_ring_record *r) {
    got *g = ctx;
    uint64_t seq;
    memcpy(&seq, r->fields, sizeof seq);
    g->ordered &= seq == g->next;
    g->next = seq + 1;
    g->n++;
    return 0;
}

/* One follow call from NOW-or-where-it-was cursors; false on error. */
static bool follow(bb_ring *r, bb_ring_cursor *cur, got *g) {
    bb_error err;
    if (bb_ring_follow_records(r, cur, on_rec, g, &err) == BB_OK) return true;
    CHECK(0, "follow: %s", err.message);
    return false;
}

/* Quiet calls until one more charges nothing (at most 400: a ring is made ready a MiB a call);
 * how many. */
static int quiet_calls(bb_ring *r, bb_ring_cursor *cur, got *g) {
    int k = 0, same = 0;
    while (k < 400 && same < 100) {
        uint64_t before = ready();
        if (!follow(r, cur, g)) break;
        same = ready() == before ? same + 1 : 0;
        k++;
    }
    return k - same;
}

int main(void) {
    if (!mkdtemp(g_dir)) return 77;
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = SHARDS;
    o.bytes_per_shard = RING;
    bb_recorder *rec = NULL;
    bb_error err;
    if (bb_recorder_create_ring(&o, g_dir, true, &rec, &err) != BB_OK) {
        printf("skipped: %s\n", err.message);
        rmdir(g_dir);
        return 77;
    }
    bb_recorder_enable(rec, true);
    const char *path = bb_recorder_ring_path(rec);

    /* calls while the writer moves ready nothing; quiet calls on a running writer's file ready
     * a whole ring's buffers for each ring, one ring a call */
    bb_ring *r[HANDLES] = {NULL};
    bb_ring_cursor cur[HANDLES][SHARDS];
    for (int h = 0; h < HANDLES; h++)
        for (uint32_t i = 0; i < SHARDS; i++) cur[h][i].pos = BB_RING_NOW;
    CHECK(bb_ring_open(path, &r[0], &err) == BB_OK, "open: %s", err.message);
    if (!r[0]) return 1;
    got g = {0, 0, true};
    uint64_t written = 0;
    CHECK(follow(r[0], cur[0], &g), "first call"); /* from the head: every record after it */
    for (int k = 0; k < 8; k++) {
        BB_RECORD(rec, rd_rec, .seq = written++);
        CHECK(follow(r[0], cur[0], &g), "moving call %d", k);
    }
    CHECK(ready() == 0, "calls while the writer moves readied %llu bytes",
          (unsigned long long)ready());
    int calls = quiet_calls(r[0], cur[0], &g);
    uint64_t one = ready();
    CHECK(one >= SHARDS * RING, "quiet calls readied %llu bytes, %u rings of %llu",
          (unsigned long long)one, SHARDS, (unsigned long long)RING);
    CHECK(follow(r[0], cur[0], &g) && ready() == one, "a later quiet call charges nothing more");

    /* what is written next comes back whole through the readied buffers */
    for (uint64_t k = 0; k < 200000; k++) BB_RECORD(rec, rd_rec, .seq = written++);
    CHECK(follow(r[0], cur[0], &g), "busy call");
    CHECK(g.n == written && g.ordered, "%llu of %llu records, in order: %d",
          (unsigned long long)g.n, (unsigned long long)written, g.ordered);

    /* many handles at once: within the budget (the check comes before a ring's buffers are
     * made, so the last ring made may pass it by its own size) */
    int readied = 1;
    for (int h = 1; h < HANDLES; h++) {
        if (bb_ring_open(path, &r[h], &err) != BB_OK) {
            CHECK(0, "open %d: %s", h, err.message);
            break;
        }
        uint64_t before = ready();
        got gh = {0, 0, true};
        quiet_calls(r[h], cur[h], &gh);
        readied += ready() > before;
    }
    CHECK(ready() <= BB__RING_READY_BUDGET + 2 * RING, "%llu bytes ready, budget %llu",
          (unsigned long long)ready(), (unsigned long long)BB__RING_READY_BUDGET);
    CHECK(readied < HANDLES, "the budget stopped the readying (%d of %d handles)", readied,
          HANDLES);
    for (int h = 0; h < HANDLES; h++) bb_ring_close(r[h]);
    CHECK(ready() == 0, "every byte given back on close: %llu left", (unsigned long long)ready());

    /* a file whose writer is gone (the recorder freed, the file kept) is read once: its call
     * readies nothing */
    char kept[512];
    snprintf(kept, sizeof kept, "%s", path);
    bb_recorder_free(rec);
    bb_ring *dead = NULL;
    CHECK(bb_ring_open(kept, &dead, &err) == BB_OK, "open the kept file: %s", err.message);
    bb_ring_cursor dc[SHARDS];
    for (uint32_t i = 0; i < SHARDS; i++) dc[i].pos = BB_RING_NOW;
    got gd = {0, 0, true};
    CHECK(dead && follow(dead, dc, &gd) && ready() == 0, "a dead file readied %llu bytes",
          (unsigned long long)ready());
    bb_ring_close(dead);
    unlink(kept);
    rmdir(g_dir);
    printf(
        "readied %llu bytes for one handle (%u rings of %llu), the last charged by call %d; %d of %d "
        "handles readied\n",
        (unsigned long long)one, SHARDS, (unsigned long long)RING, calls, readied, HANDLES);
    return failures ? 1 : 0;
}
