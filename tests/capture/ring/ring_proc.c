/* ring_proc.c — process helpers of the ring file end-to-end tests (see ring_proc.h). */
/* SPDX-License-Identifier: MIT */
#include "ring_proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

const char *ring_child_stderr;
unsigned long ring_child_fsize;

/* In the child: the stderr redirection and file size limit asked for. */
static void child_limits(void) {
    if (ring_child_stderr) {
        int fd = open(ring_child_stderr, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || dup2(fd, 2) < 0) _exit(125);
    }
    if (ring_child_fsize) {
        /* SIGXFSZ keeps its default (fatal) disposition: the recorder must not raise it */
        struct rlimit rl = {ring_child_fsize, ring_child_fsize};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0) _exit(126);
    }
}

/* In the child: join the cgroup, set up fd 3 and the environment, exec. */
static void child_exec(int wfd, const char *exe, char *const *args, char *const *env,
                       const char *cgroup_procs) {
    child_limits();
    if (cgroup_procs) {
        FILE *f = fopen(cgroup_procs, "w");
        if (!f || fprintf(f, "%ld\n", (long)getpid()) < 0 || fclose(f) != 0) _exit(120);
    }
    if (dup2(wfd, 3) < 0) _exit(121);
    for (size_t i = 0; env && env[i]; i++) putenv(env[i]);
    char *argv[16];
    size_t n = 0;
    argv[n++] = (char *)exe;
    for (size_t i = 0; args && args[i] && n < 15; i++) argv[n++] = args[i];
    argv[n] = NULL;
    execv(exe, argv);
    _exit(122);
}

bool ring_spawn(ring_child *c, const char *exe, char *const *args, char *const *env,
                const char *cgroup_procs) {
    int p[2];
    if (pipe(p) != 0) return false;
    fflush(NULL);
    c->pid = fork();
    if (c->pid < 0) return false;
    if (c->pid == 0) {
        close(p[0]);
        child_exec(p[1], exe, args, env, cgroup_procs);
    }
    close(p[1]);
    c->reports = p[0];
    return true;
}

bool ring_report(ring_child *c, uint64_t msg[2]) {
    size_t got = 0;
    while (got < 16) {
        ssize_t r = read(c->reports, (char *)msg + got, 16 - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        got += (size_t)r;
    }
    return true;
}

bool ring_kill(ring_child *c) {
    kill(c->pid, SIGKILL);
    int st = ring_wait(c);
    return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

int ring_wait(ring_child *c) {
    int st = 0;
    while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR) {}
    return st;
}

int ring_cli(const char *cli, char *const *args, const char *out_path) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        child_limits();
        if (out_path) {
            int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || dup2(fd, 1) < 0) _exit(123);
        }
        char *argv[16];
        size_t n = 0;
        argv[n++] = (char *)cli;
        for (size_t i = 0; args[i] && n < 15; i++) argv[n++] = args[i];
        argv[n] = NULL;
        execv(cli, argv);
        _exit(124);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int ring_find(const char *dir, char *out, size_t cap) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 5 && !strcmp(e->d_name + l - 5, ".ring")) {
            if (!n) snprintf(out, cap, "%s/%s", dir, e->d_name);
            n++;
        }
    }
    closedir(d);
    return n;
}
