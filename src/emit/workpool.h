/* emit/workpool.h — a fixed set of worker threads (pthreads) that run the numbered tasks of
 * one job at a time, for the writers that encode in parallel (convert --threads).
 *
 * The caller starts a job of `ntasks` tasks and may go on with other work (its own thread is
 * not one of the workers) until it waits for the job, or helps with it (em_pool_help). Each task runs exactly once, on one
 * worker, which is passed as `worker` (0 .. nthreads-1) so a task can use that worker's own
 * scratch. Which worker runs which task, and in what order, is not fixed: a job whose result
 * must not depend on it gives each task state no other task touches. Everything the caller
 * wrote before em_pool_start is visible to the tasks, everything they wrote is visible to the
 * caller after em_pool_wait. One job at a time; em_pool_start while a job runs is a caller error.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_WORKPOOL_H
#define BB_CONVERT_WORKPOOL_H

#include <stdbool.h>
#include <stddef.h>

typedef struct em_pool em_pool;
typedef void (*em_pool_task_fn)(void *ctx, size_t task, unsigned worker);

/* Start `nthreads` (>= 1) workers; NULL if memory or a thread could not be had (the threads
 * already started are stopped). */
em_pool *em_pool_create(unsigned nthreads);
/* Hand the workers a job: fn(ctx, t, worker) for t = 0 .. ntasks-1. Returns at once. */
void em_pool_start(em_pool *p, em_pool_task_fn fn, void *ctx, size_t ntasks);
/* Block until every task of the job started last has returned (at once if none). */
void em_pool_wait(em_pool *p);
/* em_pool_wait, but the caller first runs the job's tasks no worker has taken yet, as worker
 * `worker` (nthreads, one past the pool's own: the tasks' scratch must have that entry). */
void em_pool_help(em_pool *p, unsigned worker);
/* Work for idle moments, outside the jobs: fn(ctx, worker) does one piece and returns true,
 * or false when there is none. A worker with no task calls it before sleeping, again while it
 * returns true (the caller of em_pool_help / em_pool_wait does not: it starts the next job). Set between
 * jobs; fn runs on any worker at once with the tasks and must be safe there. */
typedef bool (*em_pool_idle_fn)(void *ctx, unsigned worker);
void em_pool_set_idle(em_pool *p, em_pool_idle_fn fn, void *ctx);
/* Stop and join the workers (after em_pool_wait). NULL is ignored. */
void em_pool_free(em_pool *p);

/* The number of online CPUs (at least 1): convert's default --threads. */
unsigned em_cpu_count(void);

#endif /* BB_CONVERT_WORKPOOL_H */
