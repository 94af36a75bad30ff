/* global_hotpath.c — what recording through the global recorder costs over a local recorder.
 *
 * Same event (3 fields: u64 key, two u32), same clock, same shard count and ring size: a local
 * recorder held in a variable (BB_RECORD) against the global one (BB_GRECORD, which adds the
 * load of the thread-local recorder pointer and its branch). Pinned to one CPU; each figure is
 * the median of 21 repetitions of 2M events, in ns/event, the two run back to back in
 * alternating order and the extra cost taken as the median of the paired differences; enabled
 * and disabled. Prints numbers, asserts
 * nothing. Run: build-bench/bench/global_hotpath, or scripts/bench.sh build-bench global.
 */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <backbeat/backbeat.h>

BB_EVENT(gh_ev, "bench", "GlobalHot", "Hot-path benchmark event.", BB_KEY(uint64_t, key, "A key."),
         BB_FIELD(uint32_t, len, "A length."), BB_FIELD(uint32_t, kind, "A kind."));

enum { N = 2000000, REPS = 21 };

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void run_local(bb_recorder *rec) {
    for (uint64_t i = 0; i < N; i++) BB_RECORD(rec, gh_ev, .key = i, .len = (uint32_t)i, .kind = 3);
}

__attribute__((noinline)) static void run_global(void) {
    for (uint64_t i = 0; i < N; i++) BB_GRECORD(gh_ev, .key = i, .len = (uint32_t)i, .kind = 3);
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct result {
    double local, global, extra; /* medians; extra = median of the paired differences */
} result;

/* Interleave local and global runs so drift affects both alike; medians. */
static result measure(bb_recorder *local) {
    double l[REPS], g[REPS], dif[REPS];
    for (int r = 0; r < REPS; r++) {
        /* alternate which one goes first, so neither always runs on a warmer cache */
        uint64_t t0 = now_ns();
        if (r & 1) run_global();
        else run_local(local);
        uint64_t t1 = now_ns();
        if (r & 1) run_local(local);
        else run_global();
        uint64_t t2 = now_ns();
        l[r] = (double)((r & 1) ? t2 - t1 : t1 - t0) / N;
        g[r] = (double)((r & 1) ? t1 - t0 : t2 - t1) / N;
        dif[r] = g[r] - l[r]; /* paired: both ran back to back under the same load */
    }
    qsort(l, REPS, sizeof l[0], cmp);
    qsort(g, REPS, sizeof g[0], cmp);
    qsort(dif, REPS, sizeof dif[0], cmp);
    return (result){l[REPS / 2], g[REPS / 2], dif[REPS / 2]};
}

int main(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    int cpu = sched_getcpu();
    CPU_SET(cpu < 0 ? 0 : cpu, &set);
    bool pinned = sched_setaffinity(0, sizeof set, &set) == 0;

    /* the global recorder: 1 shard of 16 MiB, no dumps during the run */
    setenv("BACKBEAT_SHARDS", "1", 1);
    setenv("BACKBEAT_BYTES", "16M", 1);
    setenv("BACKBEAT_MAX_DUMPS", "0", 0);
    bb_recorder *g = bb_global();
    if (!g) {
        fprintf(stderr, "global recorder unavailable\n");
        return 1;
    }
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 1;
    o.bytes_per_shard = 16u << 20;
    bb_recorder *local = NULL;
    if (bb_recorder_create(&o, &local) != BB_OK) return 1;

    printf("== global recorder hot path (%s clock, %s CPU %d, medians of %d x %d events)\n",
           bb_recorder_clock_name(local), pinned ? "pinned to" : "NOT pinned, on", cpu, REPS, N);
    if (strcmp(bb_recorder_clock_name(local), bb_recorder_clock_name(g)) != 0)
        printf("   warning: clocks differ (local %s, global %s)\n", bb_recorder_clock_name(local),
               bb_recorder_clock_name(g));

    bb_recorder_enable(local, true);
    bb_global_enable();
    run_local(local); /* warm the rings */
    run_global();
    result on = measure(local);
    bb_recorder_enable(local, false);
    bb_global_disable();
    result off = measure(local);

    printf("   %-9s %10s %10s %10s\n", "", "local", "global", "extra");
    printf("   %-9s %7.2f ns %7.2f ns %+7.2f ns (x%.3f)\n", "enabled", on.local, on.global,
           on.extra, (on.local + on.extra) / on.local);
    printf("   %-9s %7.2f ns %7.2f ns %+7.2f ns\n", "disabled", off.local, off.global, off.extra);
    printf("   (extra = median of paired per-repetition differences; BB_GRECORD adds one load of\n"
           "    the thread-local recorder pointer and one predictable branch per event)\n");
    bb_recorder_free(local);
    return 0;
}
