/* cpu_hold_test.c — BACKBEAT_LIVE_RT=0 keeps a live copy's hold on a CPU (common/cpu_hold.h)
 * from taking SCHED_FIFO: the policy the kernel reports inside the hold is never SCHED_FIFO with
 * any false value (read again by bb__cpu_hold_env, and as the library loads: this program runs
 * itself again with the variable set), while a process that may take it (root, CAP_SYS_NICE or
 * RLIMIT_RTPRIO; the soft limit is raised to the hard one first) gets SCHED_FIFO without the
 * variable or with a true value; the hold is undone on drop (the policy before it again). Where
 * the process may not take SCHED_FIFO the refusals are still checked, but cannot fail.
 * Usage: common_cpu_hold (skips with 77 on a single-CPU affinity: the hold does not pin there,
 * and takes SCHED_FIFO only pinned). */
/* SPDX-License-Identifier: MIT */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../support/check.h"
#include "common/cpu_hold.h"

/* The policy inside a hold of CPU 0 for a small copy, and whether the hold says it took FIFO;
 * the policy after the drop must be the one before. */
static int policy_in_hold(bool *fifo) {
    int before = sched_getscheduler(0);
    bb__cpu_hold h;
    bb__cpu_hold_take(&h, 0, true, (uint64_t)1 << 20);
    int in = sched_getscheduler(0);
    *fifo = h.fifo;
    CHECK(h.pinned, "the hold did not pin the thread to CPU 0");
    bb__cpu_hold_drop(&h);
    CHECK(sched_getscheduler(0) == before, "policy %d after the drop, %d before",
          sched_getscheduler(0), before);
    return in;
}

/* With BACKBEAT_LIVE_RT set to `value` (NULL: unset), read again. */
static int policy_with(const char *value, bool *fifo) {
    if (value) setenv("BACKBEAT_LIVE_RT", value, 1);
    else unsetenv("BACKBEAT_LIVE_RT");
    bb__cpu_hold_env();
    return policy_in_hold(fifo);
}

int main(int argc, char **argv) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2 || !CPU_ISSET(0, &set))
        return 77;
    bool fifo;
    if (argc > 1 && strcmp(argv[1], "loaded") == 0) { /* the run again: the value at load */
        int p = policy_in_hold(&fifo);
        return p == SCHED_FIFO || fifo ? 3 : failures ? 1 : 0;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_RTPRIO, &rl) == 0 && rl.rlim_cur < 1 && rl.rlim_max >= 1) {
        rl.rlim_cur = 1;
        (void)setrlimit(RLIMIT_RTPRIO, &rl);
    }
    bool allowed = policy_with(NULL, &fifo) == SCHED_FIFO;
    CHECK(allowed == fifo, "the hold says fifo %d, the kernel %d", fifo, allowed);
    fprintf(stderr, "cpu_hold: SCHED_FIFO %s to this process\n", allowed ? "allowed" : "refused");
    static const char *const off[] = {"0", "false", "no", "off", "OFF", "False"};
    for (size_t k = 0; k < sizeof off / sizeof off[0]; k++) {
        int p = policy_with(off[k], &fifo);
        CHECK(p != SCHED_FIFO && !fifo, "BACKBEAT_LIVE_RT=%s: SCHED_FIFO taken", off[k]);
    }
    static const char *const on[] = {"1", "yes", "on", ""};
    for (size_t k = 0; k < sizeof on / sizeof on[0]; k++) {
        int p = policy_with(on[k], &fifo);
        CHECK((p == SCHED_FIFO) == allowed, "BACKBEAT_LIVE_RT=\"%s\": policy %d", on[k], p);
    }
    /* the variable as the library loads it */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("BACKBEAT_LIVE_RT", "off", 1);
        char *args[] = {argv[0], "loaded", NULL};
        execv("/proc/self/exe", args);
        _exit(2);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid, "fork");
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
          "BACKBEAT_LIVE_RT=off at load: status %d (3: SCHED_FIFO taken)", st);
    return failures ? 1 : 0;
}
