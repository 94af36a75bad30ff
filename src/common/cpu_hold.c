/* cpu_hold.c — a thread's hold on one CPU while it copies a ring (cpu_hold.h): its affinity,
 * and its EEVDF time slice through sched_getattr/sched_setattr (raw system calls: older C
 * libraries have no wrappers), or SCHED_FIFO where the thread may take it and
 * BACKBEAT_LIVE_RT does not refuse it. */
/* SPDX-License-Identifier: MIT */
#include "common/cpu_hold.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/bool_word.h"

/* struct sched_attr, version 0 (48 bytes): all these calls need. */
typedef struct sched_attr0 {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
} sched_attr0;

#define POLICY_OTHER 0u
#define POLICY_BATCH 3u

#define FLAG_RESET_ON_FORK 1u

#define POLICY_FIFO 1u

static int set_attr(uint32_t policy, uint32_t prio, uint64_t flags, int32_t nice, uint64_t ns) {
#ifdef SYS_sched_setattr
    sched_attr0 a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.policy = policy;
    a.priority = prio;
    a.flags = flags;
    a.nice = nice;
    a.runtime = ns;
    return (int)syscall(SYS_sched_setattr, 0, &a, 0u);
#else
    (void)policy, (void)prio, (void)flags, (void)nice, (void)ns;
    return -1;
#endif
}

static void take_slice(bb__cpu_hold *h, uint64_t ns, bool rt) {
#ifdef SYS_sched_getattr
    sched_attr0 a;
    memset(&a, 0, sizeof a);
    if (syscall(SYS_sched_getattr, 0, &a, (unsigned)sizeof a, 0u) != 0) return;
    if (a.policy != POLICY_OTHER && a.policy != POLICY_BATCH) return;
    h->old_slice = a.runtime;
    h->policy = a.policy;
    h->nice = a.nice;
    h->flags = a.flags & FLAG_RESET_ON_FORK; /* the one flag to keep: clearing it needs rights */
    if (rt && set_attr(POLICY_FIFO, 1, h->flags, 0, 0) == 0) {
        h->sliced = h->fifo = true;
        return;
    }
    if (a.runtime < ns) h->sliced = set_attr(a.policy, 0, h->flags, a.nice, ns) == 0;
#else
    (void)h, (void)ns, (void)rt;
#endif
}

/* Whether BACKBEAT_LIVE_RT refuses SCHED_FIFO (bb__cpu_hold_env; atomic). */
static int rt_refused;

/* Contract: see cpu_hold.h. */
void bb__cpu_hold_env(void) {
    bool on = true;
    int refused = bb__bool_word(getenv("BACKBEAT_LIVE_RT"), &on) && !on;
    __atomic_store_n(&rt_refused, refused, __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void env_at_load(void) { bb__cpu_hold_env(); }

/* Contract: see cpu_hold.h. */
void bb__cpu_hold_take(bb__cpu_hold *h, uint32_t cpu, bool pin, uint64_t slice_ns) {
    h->pinned = h->sliced = h->fifo = false;
    if (pin && cpu < CPU_SETSIZE && sched_getaffinity(0, sizeof h->old, &h->old) == 0 &&
        CPU_ISSET(cpu, &h->old) && CPU_COUNT(&h->old) > 1) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        h->pinned = sched_setaffinity(0, sizeof one, &one) == 0;
    }
    take_slice(h, slice_ns,
               h->pinned && slice_ns <= BB__CPU_HOLD_FIFO_MAX &&
                   !__atomic_load_n(&rt_refused, __ATOMIC_RELAXED));
}

/* Contract: see cpu_hold.h. */
void bb__cpu_hold_drop(const bb__cpu_hold *h) {
    /* the slice as read: a thread that had the system's default keeps its length (it no longer
     * follows a change of that default, made through debugfs) */
    if (h->sliced) (void)set_attr(h->policy, 0, h->flags, h->nice, h->old_slice);
    if (h->pinned) (void)sched_setaffinity(0, sizeof h->old, &h->old);
}

/* Contract: see cpu_hold.h. */
uint64_t bb__cpu_hold_slice_for(uint64_t bytes) {
    const uint64_t floor = 3000000u;
    return bytes > floor ? bytes : floor;
}
