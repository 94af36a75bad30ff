/* early_signal.c — BACKBEAT_SIGNAL must never kill the program it is meant to trace.
 *
 * The trigger signal's handler used to be installed only when the global recorder was built
 * (its first use), so `BACKBEAT_SIGNAL=usr1 ./server & kill -USR1 $!` killed a server that had
 * not recorded yet (SIGUSR1's default action). The recorder is now built, and the handler
 * armed, when the library loads. The test re-executes itself with BACKBEAT_SIGNAL=usr1 set (the
 * variable is read when the library loads) and no throttle, in three modes:
 *   plain    SIGUSR1 before any backbeat call: the child survives and a dump (of empty rings)
 *            is written; after recording, SIGUSR1 writes a second dump: 2 dumps;
 *   own      the program installs its own SIGUSR1 handler (not chaining) before its first
 *            record: that handler replaced backbeat's, so the first SIGUSR1 runs it once and
 *            dumps nothing; the first record puts backbeat's back on top, chaining to the
 *            program's: the second runs the program's once and dumps: 1 dump;
 *   chain    as own, but the program's handler chains to the handler it replaced (backbeat's):
 *            each SIGUSR1 runs it exactly once (no ping-pong between the two) and dumps: 2.
 * The parent checks the child's exit status (0: every check passed; killed by SIGUSR1: the
 * bug). (Before the load-time arming the expectation was one dump in every mode.) */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <backbeat/backbeat.h>

BB_EVENT(qa_early, "qa", "EarlySignal", "A record before the trigger.",
         BB_KEY(uint64_t, n, "Sequence number."));

static volatile sig_atomic_t own_calls;
static struct sigaction replaced;

static void own_handler(int sig, siginfo_t *info, void *uc) {
    own_calls++;
    if (replaced.sa_flags & SA_SIGINFO) {
        if (replaced.sa_sigaction) replaced.sa_sigaction(sig, info, uc);
    } else if (replaced.sa_handler != SIG_DFL && replaced.sa_handler != SIG_IGN) {
        replaced.sa_handler(sig);
    }
}

static int count_dumps(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strlen(e->d_name) > 3 && !strcmp(e->d_name + strlen(e->d_name) - 3, ".bb")) n++;
    closedir(d);
    return n;
}

/* Wait (up to 5 s) for `want` dumps in dir; then the count. */
static int wait_dumps(const char *dir, int want) {
    for (int i = 0; i < 500 && count_dumps(dir) < want; i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return count_dumps(dir);
}

static int child(const char *mode, const char *dir) {
    int bad = 0;
    int want_early = strcmp(mode, "own") != 0; /* a dump before the first record */
    if (strcmp(mode, "plain") != 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = own_handler;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGUSR1, &sa, &replaced);
        if (strcmp(mode, "chain") != 0) memset(&replaced, 0, sizeof replaced);
    }
    raise(SIGUSR1); /* before the recorder exists: must not kill us */
    if (strcmp(mode, "plain") != 0 && own_calls != 1) {
        fprintf(stderr, "%s: own handler ran %d times before the first use\n", mode,
                (int)own_calls);
        bad = 1;
    }
    if (wait_dumps(dir, want_early) != want_early) {
        fprintf(stderr, "%s: %d dumps after the signal before the first record, want %d\n", mode,
                count_dumps(dir), want_early);
        bad = 1;
    }
    own_calls = 0;
    for (uint64_t i = 0; i < 10; i++) BB_GRECORD(qa_early, .n = i);
    raise(SIGUSR1); /* now a trigger: the dumper writes one dump */
    if (strcmp(mode, "plain") != 0 && own_calls != 1) {
        fprintf(stderr, "%s: own handler ran %d times after the first use\n", mode, (int)own_calls);
        bad = 1;
    }
    if (wait_dumps(dir, want_early + 1) != want_early + 1) {
        fprintf(stderr, "%s: %d dumps in %s after the trigger, want %d\n", mode, count_dumps(dir),
                dir, want_early + 1);
        bad = 1;
    }
    return bad;
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "child")) return child(argv[2], argv[3]);
    const char *t = getenv("TMPDIR");
    int fails = 0;
    static const char *const modes[] = {"plain", "own", "chain"};
    for (int m = 0; m < 3; m++) {
        char dir[512], base[600];
        snprintf(dir, sizeof dir, "%s/bb-qa-early-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(dir)) return 1;
        snprintf(base, sizeof base, "%s/early.bb", dir);
        pid_t p = fork();
        if (p == 0) {
            setenv("BACKBEAT_SIGNAL", "usr1", 1);
            setenv("BACKBEAT_ENABLE", "1", 1);
            setenv("BACKBEAT_PATH", base, 1);
            setenv("BACKBEAT_SHARDS", "1", 1);
            setenv("BACKBEAT_BYTES", "64k", 1);
            setenv("BACKBEAT_THROTTLE_MS", "0", 1);
            unsetenv("BACKBEAT_DUMP_ON_EXIT");
            execl("/proc/self/exe", argv[0], "child", modes[m], dir, (char *)NULL);
            _exit(127);
        }
        int st = 0;
        waitpid(p, &st, 0);
        if (WIFSIGNALED(st)) {
            fprintf(stderr, "FAIL %s: the child was killed by signal %d\n", modes[m], WTERMSIG(st));
            fails++;
        } else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "FAIL %s: the child exited %d\n", modes[m], WEXITSTATUS(st));
            fails++;
        }
        char cmd[700];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    }
    if (fails) return 1;
    puts("ok");
    return 0;
}
