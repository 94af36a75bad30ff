/* ring_live_complete_test.c — a snapshot of a running process's ring file keeps every ring
 * without real-time priority (issue 37): a child's 8 threads record back to back into 2 rings
 * of 16 MiB of a ring file (more writers than CPUs on a 2-CPU host) while this process takes
 * bb_ring_snapshot of the file SNAPS times with BACKBEAT_LIVE_RT=0 (re-executing itself with it
 * when unset): the copy holds the ring's CPU with a long time slice but never SCHED_FIFO, which
 * is what an unprivileged `backbeat recover --force` or `watch` gets. Every record must be one a
 * writer wrote (its check word), none twice, in every snapshot; each ring must keep whole
 * records covering at least FLOOR percent of its window (the ring, or the bytes written when it
 * has not wrapped yet) in all snapshots but UNDER. Run as `nobody` at load ~13 on 2 CPUs, the
 * reader before the catch-up rounds and the page touch (src/read/ring_window.c catch_up,
 * pretouch) kept 2.7-100 % of these rings (7 of 8 under the floor, each ring 3 or 4 times);
 * with them 100 % in every snapshot, and in 7 later runs at load 10-12 one ring of 28 kept
 * 65.8 %, another 80.9 %, the rest 87-100 % (under fair scheduling a copy can still be lapped:
 * docs/RING_FILE.md). The copy then cost ~100-190 ms of CPU for 64 MiB, most of it tmpfs's
 * SEEK_HOLE asked once per chunk (src/read/ring_dump.c copy_extents); asked once, and the copy
 * made oldest chunk first (src/read/ring_window.c copy_oldest_first), it costs 4-18 ms and
 * `nobody` at load 11-14 kept 100 % of every ring of 64 MiB: the floor is the goal, in
 * every snapshot, and ring_live_complete_64 runs this with 64 MiB rings.
 * Usage: ring_live_complete_test [MIB] (default 16; skips with 77 where ring files cannot be
 * made, and under ThreadSanitizer). */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
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
#define SNAPS 4
#define FLOOR 90  /* percent of each ring's window kept as whole records (issue 37's goal) */
#define UNDER 0   /* snapshots of SNAPS in which a ring may keep less */
#define FRAME 42u /* ring_test::Rec: 24 field bytes and the frame's 18 */

/* What the walk of one ring saw: (thread << 48 | counter) of each record that checked. */
typedef struct shard_seen {
    uint64_t *ids;
    size_t n, cap, bad;
} shard_seen;

static int on_record(const bb_record *r, void *ctx) {
    shard_seen *s = ctx;
    uint32_t t;
    uint64_t seq, check;
    if (r->schema->record_size != 24) {
        s->bad++;
        return 0;
    }
    memcpy(&t, r->fields, 4);
    memcpy(&seq, r->fields + 8, 8);
    memcpy(&check, r->fields + 16, 8);
    if (t >= THREADS || check != ring_check(t, seq) || seq >> 48) {
        s->bad++;
        return 0;
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1 << 16;
        s->ids = realloc(s->ids, s->cap * sizeof *s->ids);
        if (!s->ids) abort();
    }
    s->ids[s->n++] = (uint64_t)t << 48 | seq;
    return 0;
}

static int by_id(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int under[2]; /* per ring: snapshots that kept less than FLOOR % */

/* Check one ring of a snapshot: its records whole, once; count it when under FLOOR %. */
static void check_ring(bb_dump *d, const bb_rshard *sh, int k) {
    shard_seen s = {NULL, 0, 0, 0};
    bb_shard_walk(d, sh, on_record, &s, NULL);
    size_t twice = 0;
    if (s.n) qsort(s.ids, s.n, sizeof *s.ids, by_id);
    for (size_t i = 1; i < s.n; i++) twice += s.ids[i] == s.ids[i - 1];
    uint64_t window = sh->head < sh->capacity ? sh->head : sh->capacity;
    double kept = window ? 100.0 * (double)(s.n * FRAME) / (double)window : 100;
    fprintf(stderr,
            "ring_live_complete: snapshot %d ring %u: %zu records, %.1f%% of the window (%llu "
            "bytes)\n",
            k, sh->shard_id, s.n, kept, (unsigned long long)window);
    CHECK(s.bad == 0, "snapshot %d ring %u: %zu torn or foreign records", k, sh->shard_id, s.bad);
    CHECK(twice == 0, "snapshot %d ring %u: %zu records twice", k, sh->shard_id, twice);
    if ((uint64_t)s.n * FRAME * 100 < window * FLOOR && sh->shard_id < 2) under[sh->shard_id]++;
    free(s.ids);
}

/* One snapshot of the file at `ring`, every ring checked. */
static void snapshot_once(const char *ring, int k) {
    bb_ring *r = NULL;
    bb_error err;
    CHECK(bb_ring_open(ring, &r, &err) == BB_OK, "open %s: %s", ring, err.message);
    if (!r) return;
    void *mem = NULL;
    size_t len = 0;
    bb_dump *d = NULL;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK(bb_ring_snapshot(r, &mem, &len, &err) == BB_OK, "snapshot: %s", err.message);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    fprintf(stderr, "ring_live_complete: snapshot %d took %.1f ms\n", k,
            (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
    if (mem) CHECK(bb_dump_open_memory(mem, len, "live", &d, &err) == BB_OK, "%s", err.message);
    size_t rings = 0;
    for (size_t i = 0; d && i < bb_dump_instance_count(d); i++) {
        const bb_rinstance *in = bb_dump_instance(d, i);
        for (size_t j = 0; j < in->shard_count; j++, rings++) check_ring(d, &in->shards[j], k);
    }
    CHECK(rings == 2, "snapshot %d: %zu rings, not 2", k, rings);
    if (d) bb_dump_close(d);
    bb_ring_buffer_free(mem);
    bb_ring_close(r);
}

/* Read the child's reports until it ends (a full pipe would stop its writers). */
static void *drain(void *arg) {
    ring_child *c = arg;
    uint64_t msg[2];
    while (ring_report(c, msg)) {}
    return NULL;
}

/* Under ThreadSanitizer a snapshot's copy runs ~20x slower (4-13 s for 2 x 16 MiB), so what this
 * measures is the sanitizer; the reader's concurrency is checked under it by ring_live_reads. */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif

int main(int argc, char **argv) {
#ifdef UNDER_TSAN
    fprintf(stderr, "ring_live_complete: skipped under ThreadSanitizer\n");
    return 77;
#endif
    const char *rt = getenv("BACKBEAT_LIVE_RT");
    if (!rt || strcmp(rt, "0") != 0) { /* read when the library loads: run again with it */
        setenv("BACKBEAT_LIVE_RT", "0", 1);
        execv("/proc/self/exe", argv);
        perror("execv /proc/self/exe");
        return 1;
    }
    char dir[] = "/tmp/bb_ring_complete_XXXXXX";
    if (!mkdtemp(dir)) return 77;
    ring_child_stderr = "/dev/null";
    char env_dir[300];
    snprintf(env_dir, sizeof env_dir, "BACKBEAT_RING_DIR=%s", dir);
    char env_bytes[48];
    snprintf(env_bytes, sizeof env_bytes, "BACKBEAT_BYTES=%dM", argc > 1 ? atoi(argv[1]) : 16);
    char *env[] = {env_dir, "BACKBEAT_SHARDS=2", "BACKBEAT_ENABLE=1", env_bytes, NULL};
    char *args[] = {"heavy", "8", "nopin", NULL};
    ring_child c;
    if (!ring_spawn(&c, BB_RING_CHILD, args, env, NULL)) {
        rmdir(dir);
        return 77;
    }
    pthread_t t;
    CHECK(pthread_create(&t, NULL, drain, &c) == 0, "drain thread");
    /* let both rings wrap: 8 writers fill 2 x 16 MiB in well under a second */
    nanosleep(&(struct timespec){0, 500 * 1000 * 1000}, NULL);
    char ring[512];
    if (ring_find(dir, ring, sizeof ring) == 1) {
        for (int k = 0; k < SNAPS; k++) snapshot_once(ring, k);
        for (int i = 0; i < 2; i++)
            CHECK(under[i] <= UNDER, "ring %d kept under %d%% of its window in %d of %d snapshots",
                  i, FLOOR, under[i], SNAPS);
    } else {
        CHECK(0, "one ring file in %s", dir);
    }
    ring_kill(&c);
    pthread_join(t, NULL);
    unlink(ring);
    rmdir(dir);
    return failures ? 1 : 0;
}
