/* rusage_run.c — runs a command and reports what it cost, for tests that compare the cost of
 * two runs side by side (never against a fixed figure): after the command's own output, one
 * line on stderr "rusage: WALL_SECONDS MAXRSS_KB STATUS" (STATUS: the exit status, or 128 + the
 * signal). Usage: rusage_run CMD [ARGS...] (exits with the command's status). */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: rusage_run CMD [ARGS...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int st = 0;
    struct rusage ru;
    while (pid > 0 && wait4(pid, &st, 0, &ru) < 0 && errno == EINTR) {}
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (pid < 0) return 127;
    int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    fprintf(stderr, "rusage: %.3f %ld %d\n", secs, ru.ru_maxrss, status);
    return status;
}
