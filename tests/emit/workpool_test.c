/* workpool_test.c — emit/workpool.h: every task of every job runs once, on a worker or on
 * the helping caller; idle work (em_pool_set_idle) is taken by workers with no task, each piece
 * once, and never by the caller of em_pool_help; the pool stops with idle work left. TSan runs it
 * (label concurrent).
 */
/* SPDX-License-Identifier: MIT */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "emit/workpool.h"

#define WORKERS 2u
#define JOBS 200u
#define TASKS 64u
#define PIECES 5000u

static atomic_uint ran[JOBS][TASKS];
static atomic_uint piece_done[PIECES];
static atomic_uint next_piece;
static atomic_uint idle_by_caller;
static atomic_uint idle_calls;
static _Thread_local volatile unsigned spin_sink; /* a task's busy work */

/* A task: counts itself, and spins a little so that tasks overlap. */
static void task(void *ctx, size_t t, unsigned worker) {
    unsigned job = *(const unsigned *)ctx;
    atomic_fetch_add(&ran[job][t], 1);
    if (worker == WORKERS) return; /* the caller's own share */
    for (unsigned i = 0; i < 200; i++) spin_sink = spin_sink + i;
}

/* Idle work: the next piece, once; false when all are done. */
static bool idle(void *ctx, unsigned worker) {
    (void)ctx;
    atomic_fetch_add(&idle_calls, 1);
    if (worker >= WORKERS) atomic_fetch_add(&idle_by_caller, 1);
    unsigned k = atomic_fetch_add(&next_piece, 1);
    if (k >= PIECES) return false;
    atomic_fetch_add(&piece_done[k], 1);
    return true;
}

int main(void) {
    em_pool *p = em_pool_create(WORKERS);
    if (!p) return 1;
    unsigned jobs[JOBS];
    em_pool_set_idle(p, idle, NULL);
    for (unsigned j = 0; j < JOBS; j++) {
        jobs[j] = j;
        em_pool_start(p, task, &jobs[j], TASKS);
        if (j % 2) em_pool_help(p, WORKERS);
        else em_pool_wait(p);
    }
    em_pool_free(p); /* with idle work perhaps left: the workers stop all the same */

    unsigned bad = 0;
    for (unsigned j = 0; j < JOBS; j++)
        for (unsigned t = 0; t < TASKS; t++) bad += atomic_load(&ran[j][t]) != 1;
    CHECK(bad == 0, "%u tasks did not run exactly once", bad);
    unsigned taken = atomic_load(&next_piece) < PIECES ? atomic_load(&next_piece) : PIECES;
    unsigned twice = 0, missing = 0;
    for (unsigned k = 0; k < PIECES; k++) {
        unsigned d = atomic_load(&piece_done[k]);
        twice += d > 1;
        missing += k < taken && d != 1;
    }
    CHECK(taken > 0, "no idle work was done in %u jobs", JOBS);
    CHECK(twice == 0 && missing == 0, "idle pieces done twice: %u, taken and not done: %u", twice,
          missing);
    CHECK(atomic_load(&idle_by_caller) == 0, "the caller of em_pool_help did idle work %u times",
          atomic_load(&idle_by_caller));
    if (failures) return 1;
    printf("ok: %u jobs of %u tasks, %u idle pieces in %u idle calls\n", JOBS, TASKS, taken,
           atomic_load(&idle_calls));
    return 0;
}
