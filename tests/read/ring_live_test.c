/* ring_live_test.c — reading the ring file of a running process (issue 19.3): a child with 8
 * threads records self-checking per-thread counters (tests/capture/ring/ring_child.c "heavy")
 * into small rings of a ring file while this process reads the live file again and again, with
 * the library (bb_ring_snapshot, bb_ring_follow) and with `backbeat recover --force`. Every
 * record read must be one a writer wrote, whole: its check value matches its thread and
 * counter, no counter appears twice, and a thread's counters rise with their timestamps. Over
 * 20 rounds that alternate the commit path (rseq, fetch_add) and the shard count (a shard
 * shared by all threads exercises the records in flight). Bounded: ~1 s per round.
 * Usage: ring_live_test (skips with 77 where ring files cannot be made). */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../capture/ring/ring_check.h"
#include "../capture/ring/ring_proc.h"
#include "../support/check.h"
#include "backbeat/reader.h"
#include "backbeat/ring_reader.h"

#define THREADS 8

typedef struct rec {
    uint64_t seq, ts;
} rec;

/* What the reads of one round saw. */
typedef struct seen {
    rec *r[THREADS];
    size_t n[THREADS], cap[THREADS];
    size_t bad, total;
} seen;

static void add(seen *s, uint32_t t, uint64_t seq, uint64_t ts) {
    if (s->n[t] == s->cap[t]) {
        s->cap[t] = s->cap[t] ? 2 * s->cap[t] : 1024;
        s->r[t] = realloc(s->r[t], s->cap[t] * sizeof *s->r[t]);
        if (!s->r[t]) abort();
    }
    s->r[t][s->n[t]++] = (rec){seq, ts};
}

static int on_record(const bb_record *r, void *ctx) {
    seen *s = ctx;
    s->total++;
    if (r->schema->name.len != 14 || memcmp(r->schema->name.ptr, "ring_test::Rec", 14) != 0) {
        s->bad++;
        return 0;
    }
    uint32_t t;
    uint64_t seq, check;
    memcpy(&t, r->fields, 4);
    memcpy(&seq, r->fields + 8, 8);
    memcpy(&check, r->fields + 16, 8);
    if (t >= THREADS || check != ring_check(t, seq)) s->bad++;
    else add(s, t, seq, r->ts);
    return 0;
}

static int by_seq(const void *a, const void *b) {
    const rec *x = a, *y = b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* No counter twice, timestamps rising with the counters; resets `s`. */
static void verdict(seen *s, const char *what, int round) {
    CHECK(s->bad == 0, "round %d, %s: %zu foreign or torn records of %zu", round, what, s->bad,
          s->total);
    for (int t = 0; t < THREADS; t++) {
        if (s->n[t]) qsort(s->r[t], s->n[t], sizeof *s->r[t], by_seq);
        for (size_t i = 1; i < s->n[t]; i++) {
            CHECK(s->r[t][i].seq != s->r[t][i - 1].seq,
                  "round %d, %s: thread %d counter %llu twice", round, what, t,
                  (unsigned long long)s->r[t][i].seq);
            CHECK(s->r[t][i].ts >= s->r[t][i - 1].ts, "round %d, %s: thread %d time goes back",
                  round, what, t);
        }
        s->n[t] = 0;
    }
    s->bad = s->total = 0;
}

/* Every record of the dump at mem[len] (or the file `path`) into `s`. */
static bool walk(const void *mem, size_t len, const char *path, seen *s) {
    bb_dump *d = NULL;
    bb_error err;
    bb_status st =
        path ? bb_dump_open(path, &d, &err) : bb_dump_open_memory(mem, len, "live", &d, &err);
    CHECK(st == BB_OK, "open: %s", err.message);
    if (st != BB_OK) return false;
    for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
        const bb_rinstance *in = bb_dump_instance(d, i);
        for (size_t k = 0; k < in->shard_count; k++)
            bb_shard_walk(d, &in->shards[k], on_record, s, NULL);
    }
    bb_dump_close(d);
    return true;
}

static void snapshot_once(const char *ring, seen *s, int round) {
    bb_ring *r = NULL;
    bb_error err;
    CHECK(bb_ring_open(ring, &r, &err) == BB_OK, "open %s: %s", ring, err.message);
    if (!r) return;
    void *mem = NULL;
    size_t len = 0;
    CHECK(bb_ring_snapshot(r, &mem, &len, &err) == BB_OK, "snapshot: %s", err.message);
    if (mem) walk(mem, len, NULL, s);
    bb_ring_buffer_free(mem);
    bb_ring_close(r);
    verdict(s, "snapshot", round);
}

/* Follow for ~150 ms: every record once, whole. */
static void follow_once(const char *ring, seen *s, int round) {
    bb_ring *r = NULL;
    bb_error err;
    if (bb_ring_open(ring, &r, &err) != BB_OK) return;
    bb_ring_cursor cur[64];
    memset(cur, 0, sizeof cur);
    for (int k = 0; k < 64; k++) cur[k].pos = BB_RING_OLDEST; /* not 0: a position (lost below) */
    uint32_t n = bb_ring_get_info(r)->shards;
    for (int k = 0; k < 20 && n <= 64; k++) {
        void *mem = NULL;
        size_t len = 0;
        CHECK(bb_ring_follow(r, cur, &mem, &len, &err) == BB_OK, "follow: %s", err.message);
        if (mem) walk(mem, len, NULL, s);
        bb_ring_buffer_free(mem);
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    bb_ring_close(r);
    verdict(s, "follow", round);
}

static void round_once(const char *dir, int round, seen *s) {
    char env_dir[300], env_shards[32], env_commit[48];
    snprintf(env_dir, sizeof env_dir, "BACKBEAT_RING_DIR=%s", dir);
    snprintf(env_shards, sizeof env_shards, "BACKBEAT_SHARDS=%d", round % 2 ? 1 : 2);
    snprintf(env_commit, sizeof env_commit, "BACKBEAT_COMMIT=%s",
             round % 4 < 2 ? "fetch_add" : "rseq");
    char *env[] = {env_dir, env_shards, env_commit, "BACKBEAT_ENABLE=1", "BACKBEAT_BYTES=64k",
                   NULL};
    char *args[] = {"heavy", "8", "nopin", NULL};
    ring_child c;
    if (!ring_spawn(&c, BB_RING_CHILD, args, env, NULL)) {
        CHECK(0, "spawn");
        return;
    }
    uint64_t msg[2];
    for (int k = 0; k < 16 && ring_report(&c, msg); k++) {}
    char ring[512], out[600];
    CHECK(ring_find(dir, ring, sizeof ring) == 1, "one ring file in %s", dir);
    for (int k = 0; k < 3; k++) snapshot_once(ring, s, round);
    follow_once(ring, s, round);
    snprintf(out, sizeof out, "%s/live.bb", dir);
    char *cli[] = {"recover", "--force", ring, "-o", out, NULL};
    CHECK(ring_cli(BB_CLI, cli, NULL) == 0, "recover --force");
    walk(NULL, 0, out, s);
    verdict(s, "recover --force", round);
    unlink(out);
    ring_kill(&c);
    unlink(ring);
}

int main(void) {
    char dir[] = "/tmp/bb_ring_live_XXXXXX";
    if (!mkdtemp(dir)) return 77;
    ring_child_stderr = "/dev/null";
    seen s;
    memset(&s, 0, sizeof s);
    for (int round = 0; round < 20; round++) round_once(dir, round, &s);
    for (int t = 0; t < THREADS; t++) free(s.r[t]);
    rmdir(dir);
    return failures ? 1 : 0;
}
