/* daemon_prog.c — a small daemon shaped like nginx, run by daemon_check.sh (issue 38):
 *   start N OUT  the daemonizing parent: forks the master and exits without recording; the
 *                master records, then starts workers one at a time: each clears its
 *                environment, drops privileges to nobody when run as root, records ticks and
 *                spans (printing its span ids to OUT/spans.<pid>), then dereferences NULL; the
 *                master replaces it, N crashes in all; halfway through it runs the control
 *                command (`control`, a fresh exec) as a reload does; then it exits 0
 *   control      a control command (`nginx -s reload`): records nothing, exits 0
 */
/* SPDX-License-Identifier: MIT */
#include <grp.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <backbeat/event.h>
#include <backbeat/global.h>
#include <backbeat/recorder.h>

BB_EVENT(dp_tick, "bbtest", "DaemonTick", "A tick of a daemon process.",
         BB_KEY(uint64_t, seq, "Sequence number."), BB_FIELD(uint64_t, span, "A span id."));
BB_SPAN_ENTER_EVENT(dp_begin, "bbtest", "DaemonRequest", "A request of a worker.",
                    BB_SPAN_ID(uint64_t, span, NULL));
BB_SPAN_EXIT_EVENT(dp_end, "bbtest", "DaemonRequest", NULL, BB_SPAN_ID(uint64_t, span, NULL));
BB_VIEWS(dp_views, "CREATE VIEW dp_ticks AS SELECT seq FROM events WHERE seq IS NOT NULL;");

static bool g_nodrop; /* `nodrop`: nobody cannot reach the test's directory (a 0700 parent) */

static void worker(const char *out) {
    clearenv(); /* as nginx does: only what its `env` directive names survives */
    if (!g_nodrop && geteuid() == 0 &&
        (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
        _exit(3);
    char path[4096];
    snprintf(path, sizeof path, "%s/spans.%ld", out, (long)getpid());
    FILE *f = fopen(path, "w");
    for (uint64_t i = 0; i < 50; i++) {
        uint64_t id = bb_span_id_new();
        BB_GRECORD(dp_begin, .span = id);
        BB_GRECORD(dp_tick, .seq = i, .span = id);
        BB_GRECORD(dp_end, .span = id);
        if (f) fprintf(f, "%llu\n", (unsigned long long)id);
    }
    if (f) fclose(f);
    *(volatile int *)(uintptr_t)(path[0] - path[0]) = 1;
}

static int master(int n, const char *self, const char *out) {
    BB_GRECORD(dp_tick, .seq = 0, .span = 0);
    for (int i = 0; i < n; i++) {
        if (i == n / 2) { /* a reload: the operator's control command */
            pid_t c = fork();
            if (c == 0) {
                execl(self, self, "control", (char *)NULL);
                _exit(127);
            }
            waitpid(c, NULL, 0);
        }
        pid_t w = fork();
        if (w < 0) return 1;
        if (w == 0) worker(out);
        int status = 0;
        waitpid(w, &status, 0);
        if (!WIFSIGNALED(status)) {
            fprintf(stderr, "worker %d did not crash (status %d)\n", i, status);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "control")) return 0;
    if (argc < 4 || strcmp(argv[1], "start") != 0) return 2;
    g_nodrop = argc > 4 && !strcmp(argv[4], "nodrop");
    pid_t m = fork(); /* daemonize: the parent exits at once */
    if (m < 0) return 1;
    if (m > 0) {
        int status = 0; /* (waits only so that the test knows when the master is done) */
        waitpid(m, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    exit(master(atoi(argv[2]), argv[0], argv[3]));
}
