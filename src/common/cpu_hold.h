/* cpu_hold.h — a thread's hold on one CPU while it copies a ring its writers there fill (issue
 * 37): pinned to that CPU, the copy keeps those writers waiting instead of being lapped by them;
 * and they must not preempt it halfway. Where the thread may (CAP_SYS_NICE, RLIMIT_RTPRIO) it
 * runs the copy as SCHED_FIFO priority 1 (a copy of at most BB__CPU_HOLD_FIFO_MAX ns at 1 GB/s:
 * a few ms at memory speed); else it asks for a time slice long enough for the copy (EEVDF's
 * per-task slice, Linux 6.12 on; any user may set its own), which protects only as long as the
 * shortest slice of the CPU's other threads: under fair scheduling the writers of that CPU get
 * their share of it whatever the copy does. BACKBEAT_LIVE_RT=0 (docs/ENVIRONMENT.md) refuses
 * SCHED_FIFO: the pin and the slice only. Best effort: each part the system refuses is
 * skipped. Internal. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_COMMON_CPU_HOLD_H
#define BB_COMMON_CPU_HOLD_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

/* The longest copy run as SCHED_FIFO (ns at 1 ns a byte: shards up to 256 MiB). */
#define BB__CPU_HOLD_FIFO_MAX ((uint64_t)256 << 20)

typedef struct bb__cpu_hold {
    bool pinned, sliced, fifo;
    cpu_set_t old;      /* the affinity to restore */
    uint64_t old_slice; /* the slice to restore (ns) */
    uint32_t policy;    /* SCHED_OTHER or SCHED_BATCH when sliced */
    uint64_t flags;     /* its reset-on-fork flag */
    int32_t nice;
} bb__cpu_hold;

/* Run the calling thread on `cpu` (when its affinity allows it and has more than that CPU), then
 * as SCHED_FIFO when pinned, allowed and slice_ns <= BB__CPU_HOLD_FIFO_MAX, else with a time
 * slice of `slice_ns` (clamped by the kernel to 0.1..100 ms; nothing on kernels without
 * per-task slices or for real-time threads). pin false: the slice only. */
void bb__cpu_hold_take(bb__cpu_hold *h, uint32_t cpu, bool pin, uint64_t slice_ns);

/* Read BACKBEAT_LIVE_RT again (it is read when the library is loaded, so that a program that
 * clears its environment keeps it): `0`, `false`, `no` or `off` (any case) refuses SCHED_FIFO
 * to the holds taken from then on; anything else, or unset, allows it. */
void bb__cpu_hold_env(void);

/* Undo bb__cpu_hold_take: the old affinity and slice. */
void bb__cpu_hold_drop(const bb__cpu_hold *h);

/* The slice to ask for to copy `bytes` at once: 1 ns a byte (a copy slower than 1 GB/s),
 * at least 3 ms. */
uint64_t bb__cpu_hold_slice_for(uint64_t bytes);

#endif
