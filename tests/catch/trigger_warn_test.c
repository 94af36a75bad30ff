/* trigger_warn_test.c — BACKBEAT_TRIGGER with the global recorder built at load (BACKBEAT_ENABLE
 * in the environment it starts with, libbackbeat a shared library: the library's constructor runs
 * before the program's, which register its events): a rule naming one of the program's events is
 * not warned for, a rule naming no event is warned for once, and every line the library writes
 * on stderr carries the "backbeat[PID]: YYYYMMDDThhmmssmmmZ " prefix (issue 38). The test runs
 * itself again with the variables set and its stderr in a file, then reads the file. */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backbeat/backbeat.h"
#include "backbeat/trigger.h"
#include "check.h"

BB_EVENT(tw_known, "tw", "Known", NULL, BB_FIELD(uint64_t, n, NULL));

/* The program under test: records (its first record comes after the rules were armed at load),
 * waits for the trigger thread's check (every 50 ms), then stops the thread, which checks once
 * more if it had not (a loaded host): one warning either way, never two. */
static int child(void) {
    for (uint64_t i = 0; i < 3; i++) BB_GRECORD(tw_known, .n = i);
    struct timespec d = {0, 200000000};
    nanosleep(&d, NULL);
    bb_recorder_trigger_clear(bb_global());
    return 0;
}

/* Whether `line` starts with "backbeat[pid]: YYYYMMDDThhmmssmmmZ "; *rest: what follows. */
static int prefixed(const char *line, long pid, const char **rest) {
    char head[64];
    int n = snprintf(head, sizeof head, "backbeat[%ld]: ", pid);
    if (strncmp(line, head, (size_t)n) != 0 || strlen(line) < (size_t)n + 20) return 0;
    const char *s = line + n;
    for (int i = 0; i < 19; i++) {
        int digit = s[i] >= '0' && s[i] <= '9';
        if (i == 8 ? s[i] != 'T' : i == 18 ? s[i] != 'Z' : !digit) return 0;
    }
    if (s[19] != ' ') return 0;
    *rest = s + 20;
    return 1;
}

int main(int argc, char **argv) {
    if (argc == 2 && !strcmp(argv[1], "child")) return child();
    char dir[] = "/tmp/bb_twarn_XXXXXX";
    if (!mkdtemp(dir)) return 77;
    char path[256], errpath[256];
    snprintf(path, sizeof path, "BACKBEAT_PATH=%s/w.bb", dir);
    snprintf(errpath, sizeof errpath, "%s/stderr", dir);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || dup2(fd, 2) < 0) _exit(99);
        char *env[] = {"BACKBEAT_ENABLE=1", path, "BACKBEAT_TRIGGER=tw::Known n > 100; tw::Missin",
                       "BACKBEAT_BYTES=64K", NULL};
        char *args[] = {argv[0], "child", NULL};
        execve("/proc/self/exe", args, env);
        _exit(98);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the child exited 0 (status %d)", st);

    char msgs[8192] = "";
    FILE *f = fopen(errpath, "r");
    size_t got = f ? fread(msgs, 1, sizeof msgs - 1, f) : 0;
    msgs[got] = '\0';
    if (f) fclose(f);
    printf("child stderr:\n%s", msgs);
    int lines = 0, missing = 0, known = 0;
    for (char *save = NULL, *line = strtok_r(msgs, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        lines++;
        const char *rest = "";
        CHECK(prefixed(line, (long)pid, &rest), "the library's prefix: %s", line);
        if (strstr(rest, "'tw::Known")) known++;
        if (!strcmp(rest, "warning: trigger rule 'tw::Missin' names no registered event; it stays "
                          "armed for one that registers later"))
            missing++;
    }
    CHECK(known == 0, "no warning for the rule naming the program's event (%d)", known);
    CHECK(missing == 1, "one warning for the rule naming no event (%d)", missing);
    CHECK(lines == 1, "nothing else on stderr (%d lines)", lines);
    unlink(errpath);
    rmdir(dir);
    return failures ? 1 : 0;
}
