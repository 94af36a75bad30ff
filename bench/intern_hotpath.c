/* intern_hotpath.c — what interning a repeated dynamic string costs next to the record it goes
 * into (issue 21): the same event recorded with a constant id, with bb_intern of one of 64
 * repeated keys (24-31 bytes, as a server's lookup keys) on one thread, and the same on two
 * threads at once, and a new string in every record (per-call ns of each). Median of 11 repetitions of 2M events, in thread CPU time; prints ns and the
 * ratios (intern/record, two threads/one), asserts nothing. Run: build-bench/bench/intern_hotpath,
 * or scripts/bench.sh build-bench intern (part of `make bench`). */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <backbeat/backbeat.h>

BB_EVENT(ih_ev, "bench", "Lookup", "A key lookup.", BB_KEY(uint64_t, conn, "The connection."),
         BB_INTERN_DYN_F(key, "The key looked up."), BB_FIELD(uint32_t, len, "Value length."));

enum { N = 2000000, REPS = 11, NKEYS = 64 };
static char keys[NKEYS][40];
static size_t key_len[NKEYS];
static bb_recorder *rec;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts); /* the machine may be shared: CPU time */
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void pin(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu % CPU_SETSIZE, &s);
    (void)pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

__attribute__((noinline)) static void run_record(void) {
    for (uint64_t i = 0; i < N; i++) BB_RECORD(rec, ih_ev, .conn = i, .key = 7, .len = 3);
}

__attribute__((noinline)) static void run_intern(void) {
    for (uint64_t i = 0; i < N; i++) {
        size_t k = (i * 13) % NKEYS;
        BB_RECORD(rec, ih_ev, .conn = i, .key = bb_intern(rec, keys[k], key_len[k]), .len = 3);
    }
}

static uint64_t distinct_next; /* the next new string's number (never repeats in a run) */

/* A new string each call ("/uri/" and 16 hex digits): the table's generations keep turning,
 * and the other shard, quiet meanwhile, is read at each switch (issue 38). */
__attribute__((noinline)) static void run_distinct(void) {
    char b[24] = "/uri/";
    for (uint64_t i = 0; i < N; i++) {
        uint64_t v = distinct_next++;
        for (int d = 0; d < 16; d++) b[5 + d] = "0123456789abcdef"[(v >> (60 - 4 * d)) & 15];
        BB_RECORD(rec, ih_ev, .conn = i, .key = bb_intern(rec, b, 21), .len = 3);
    }
}

/* ns per event of fn on this thread. */
static double per_event(void (*fn)(void)) {
    uint64_t t0 = now_ns();
    fn();
    return (double)(now_ns() - t0) / N;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct worker {
    int cpu;
    double ns;
    pthread_barrier_t *bar;
} worker;

static void *two_main(void *arg) {
    worker *w = arg;
    pin(w->cpu);
    pthread_barrier_wait(w->bar);
    w->ns = per_event(run_intern);
    return NULL;
}

/* Both threads interning at once: the mean of their per-event ns. */
static double two_threads(void) {
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, 2);
    worker w[2] = {{0, 0, &bar}, {1, 0, &bar}};
    pthread_t t;
    pthread_create(&t, NULL, two_main, &w[1]);
    two_main(&w[0]);
    pthread_join(t, NULL);
    pthread_barrier_destroy(&bar);
    return (w[0].ns + w[1].ns) / 2;
}

int main(void) {
    for (int k = 0; k < NKEYS; k++)
        key_len[k] =
            (size_t)snprintf(keys[k], sizeof keys[k], "session:%08x:user-%d", k * 2654435761u, k);
    rec = bb_recorder_new(0, 1 << 22);
    if (!rec) return 1;
    bb_recorder_enable(rec, true);
    pin(0);
    double r[REPS], i1[REPS], i2[REPS], nd[REPS];
    for (int k = 0; k < REPS; k++) {
        r[k] = per_event(run_record);
        i1[k] = per_event(run_intern);
        i2[k] = two_threads();
        pin(0);
        nd[k] = per_event(run_distinct);
    }
    qsort(r, REPS, sizeof r[0], cmp);
    qsort(i1, REPS, sizeof i1[0], cmp);
    qsort(i2, REPS, sizeof i2[0], cmp);
    qsort(nd, REPS, sizeof nd[0], cmp);
    double mr = r[REPS / 2], m1 = i1[REPS / 2], m2 = i2[REPS / 2], mn = nd[REPS / 2];
    bb_recorder_stats st;
    bb_recorder_stats_get(rec, &st);
    printf(
        "intern: record %.1f ns | record+intern 1 thread %.1f ns (%.2fx) | 2 threads %.1f ns per call "
        "(%.2fx one thread) | a new string each call %.1f ns (%.2fx; %llu of %llu calls answered 0) "
        "[%s commit, %u shards]\n",
        mr, m1, m1 / mr, m2, m2 / m1, mn, mn / mr, (unsigned long long)st.intern_full,
        (unsigned long long)distinct_next, bb_recorder_commit_name(rec),
        bb_recorder_shard_count(rec));
    bb_recorder_free(rec);
    return 0;
}
