/* threads_test.c — 8 threads each record 100 000 log lines into one recorder; every line is read
 * back exactly once, with its thread's arguments, in each thread's order. Each thread starts
 * with a line of a BB_E site that none has recorded yet, all at once (its labels are bound and
 * the site registered by whichever comes first): each reads back with its label. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/event.h"
#include "backbeat/log.h"
#include "check.h"
#include "lines.h"

#define THREADS 8
#define LINES 100000

BB_ENUM(th_phase, uint16_t, (TH_WAIT, 0, "waiting"), (TH_GO, 1, "going"));

static bb_recorder *rec;
static pthread_barrier_t start;

static void *run(void *arg) {
    int t = (int)(intptr_t)arg;
    pthread_barrier_wait(&start);
    BB_LOG(rec, BB_INFO, "thread %d is %d", t, BB_E(th_phase, TH_GO));
    for (int i = 0; i < LINES; i++) BB_LOG(rec, BB_INFO, "thread %d line %d", t, i);
    return NULL;
}

int main(void) {
    /* 8 bytes of arguments: 32-byte records, 3.2 MB per thread; rings of 32 MiB lose none
     * however the threads share CPUs. */
    rec = bb_recorder_new(THREADS, 32u << 20);
    if (!rec) return 1;
    bb_recorder_enable(rec, true);
    pthread_barrier_init(&start, NULL, THREADS);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, run, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    size_t n = 0;
    test_line *lines = test_log_lines(rec, &n, NULL);
    CHECK(n == (size_t)THREADS * (LINES + 1), "%zu lines, want %d", n, THREADS * (LINES + 1));
    int next[THREADS] = {0}, going[THREADS] = {0};
    size_t bad = 0;
    for (size_t k = 0; lines && k < n; k++) {
        int t = -1, i = -1;
        char want[64];
        if (sscanf(lines[k].msg, "thread %d is", &t) == 1 && t >= 0 && t < THREADS) {
            snprintf(want, sizeof want, "thread %d is going", t);
            if (!strcmp(lines[k].msg, want) && next[t] == 0 && !going[t]++) continue;
        }
        if (sscanf(lines[k].msg, "thread %d line %d", &t, &i) != 2 || t < 0 || t >= THREADS ||
            i != next[t]) {
            if (bad++ < 5) fprintf(stderr, "unexpected line %zu: %s\n", k, lines[k].msg);
            continue;
        }
        next[t]++;
    }
    CHECK(bad == 0, "%zu unexpected lines", bad);
    for (int t = 0; t < THREADS; t++)
        CHECK(next[t] == LINES && going[t] == 1, "thread %d: %d lines, %d going", t, next[t],
              going[t]);
    pthread_barrier_destroy(&start);
    free(lines);
    bb_recorder_free(rec);
    return failures ? 1 : 0;
}
