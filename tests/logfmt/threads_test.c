/* threads_test.c — 8 threads each record 100 000 log lines into one recorder; every line is read
 * back exactly once, with its thread's arguments, in each thread's order. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/log.h"
#include "check.h"
#include "lines.h"

#define THREADS 8
#define LINES 100000

static bb_recorder *rec;

static void *run(void *arg) {
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < LINES; i++) BB_LOG(rec, BB_INFO, "thread %d line %d", t, i);
    return NULL;
}

int main(void) {
    /* 8 bytes of arguments: 32-byte records, 3.2 MB per thread; rings of 32 MiB lose none
     * however the threads share CPUs. */
    rec = bb_recorder_new(THREADS, 32u << 20);
    if (!rec) return 1;
    bb_recorder_enable(rec, true);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, run, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    size_t n = 0;
    test_line *lines = test_log_lines(rec, &n, NULL);
    CHECK(n == (size_t)THREADS * LINES, "%zu lines, want %d", n, THREADS * LINES);
    int next[THREADS] = {0};
    size_t bad = 0;
    for (size_t k = 0; lines && k < n; k++) {
        int t = -1, i = -1;
        if (sscanf(lines[k].msg, "thread %d line %d", &t, &i) != 2 || t < 0 || t >= THREADS ||
            i != next[t]) {
            if (bad++ < 5) fprintf(stderr, "unexpected line %zu: %s\n", k, lines[k].msg);
            continue;
        }
        next[t]++;
    }
    CHECK(bad == 0, "%zu unexpected lines", bad);
    for (int t = 0; t < THREADS; t++) CHECK(next[t] == LINES, "thread %d: %d lines", t, next[t]);
    free(lines);
    bb_recorder_free(rec);
    return failures ? 1 : 0;
}
