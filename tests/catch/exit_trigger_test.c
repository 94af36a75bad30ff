/* exit_trigger_test.c — a BACKBEAT_TRIGGER rule that fires just before the program exits still
 * writes its dump: a child logs an error and calls exit(3) inside the rule's 300 ms
 * after-window, with the global recorder built at load (BACKBEAT_ENABLE=1) and on first use;
 * each run must leave exactly one dump holding the error line and the backbeat::Trigger record. */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backbeat/backbeat.h"
#include "backbeat/reader.h"
#include "check.h"

typedef struct seen {
    int trig, error;
} seen;

static int on_record(const bb_record *r, void *ctx) {
    seen *s = ctx;
    const char *name = r->schema->name.ptr;
    size_t len = r->schema->name.len;
    if (len == 17 && !strncmp(name, "backbeat::Trigger", len)) s->trig++;
    if (len > 14 && !strncmp(name, "backbeat.log::", 14)) s->error++;
    return 0;
}

/* The dumps in `dir` (removed as read): how many, and what the last one held. */
static int read_dumps(const char *dir, seen *s) {
    DIR *dh = opendir(dir);
    int n = 0;
    for (struct dirent *e; dh && (e = readdir(dh));) {
        if (e->d_name[0] == '.') continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        bb_dump *d = NULL;
        bb_error err;
        if (strstr(e->d_name, ".bb") && bb_dump_open(p, &d, &err) == BB_OK) {
            n++;
            const bb_rinstance *in = bb_dump_instance(d, 0);
            for (size_t i = 0; in && i < in->shard_count; i++)
                bb_shard_walk(d, &in->shards[i], on_record, s, NULL);
            bb_dump_close(d);
        }
        unlink(p);
    }
    if (dh) closedir(dh);
    return n;
}

static void run(const char *self, const char *dir, bool enable) {
    char path[300], *env[8];
    int k = 0;
    snprintf(path, sizeof path, "BACKBEAT_PATH=%s/app.bb", dir);
    env[k++] = path;
    env[k++] = "BACKBEAT_TRIGGER=log >= error";
    env[k++] = "BACKBEAT_TRIGGER_AFTER=300ms";
    env[k++] = "BACKBEAT_BYTES=1M";
    if (enable) env[k++] = "BACKBEAT_ENABLE=1";
    env[k] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        execle(self, self, "child", (char *)NULL, env);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3, "child status %d", status);
    seen s = {0, 0};
    int n = read_dumps(dir, &s);
    CHECK(n == 1 && s.trig == 1 && s.error == 1,
          "enable=%d: %d dumps, %d trigger records, %d error lines (want 1, 1, 1)", enable, n,
          s.trig, s.error);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "child")) {
        if (!getenv("BACKBEAT_ENABLE")) bb_global_enable(); /* built on first use */
        BB_GLOG(BB_ERROR, "cannot go on: %d", 7);
        exit(3); /* inside the after-window */
    }
    char dir[] = "/tmp/bb_exittrig_XXXXXX";
    if (!mkdtemp(dir)) return 77;
    run("/proc/self/exe", dir, true);
    run("/proc/self/exe", dir, false);
    rmdir(dir);
    return failures ? 1 : 0;
}
