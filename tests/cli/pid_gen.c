/* pid_gen.c — dumps from two processes for the OS-pid test (pid_check.mjs, issue 38): the parent
 * makes a recorder, records, forks; the child records into the recorder it inherited and into
 * one of its own, dumps both, records through the global recorder (BACKBEAT_PATH set by the
 * caller) and writes bb_global_dump(); the parent waits, then dumps its recorder. Prints
 * "parent PID", "child PID" and "global PATH" (the global dump's name) on stdout.
 *
 * Usage: pid_gen DIR   (writes DIR/parent.bb, DIR/child.bb, DIR/child_inherited.bb)
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backbeat/backbeat.h"

BB_EVENT(pg_tick, "pid_gen", "Tick", "one tick of a process", BB_KEY(uint64_t, n, "a counter"),
         BB_FIELD(uint64_t, who, "the pid that recorded it"));

static bb_recorder *make(void) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 1;
    o.bytes_per_shard = 4096;
    bb_recorder *rec = NULL;
    if (bb_recorder_create(&o, &rec) != BB_OK) return NULL;
    bb_recorder_enable(rec, true);
    return rec;
}

static int dump(bb_recorder *rec, const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    bb_error err;
    if (bb_recorder_dump_path(rec, path, "pid-host", &err) != BB_OK) {
        fprintf(stderr, "pid_gen: %s: %s\n", path, err.message);
        return 1;
    }
    return 0;
}

static int child(bb_recorder *inherited, const char *dir) {
    bb_recorder *own = make();
    if (!own) return 1;
    uint64_t me = (uint64_t)getpid();
    for (uint64_t i = 0; i < 5; i++) {
        BB_RECORD(own, pg_tick, .n = i, .who = me);
        BB_RECORD(inherited, pg_tick, .n = 100 + i, .who = me);
        BB_GRECORD(pg_tick, .n = 200 + i, .who = me);
    }
    char gpath[4096];
    bb_error err;
    if (bb_global_dump(gpath, sizeof gpath, &err) != BB_OK) {
        fprintf(stderr, "pid_gen: global dump: %s\n", err.message);
        return 1;
    }
    printf("global %s\n", gpath);
    fflush(stdout);
    int rc = dump(own, dir, "child.bb") | dump(inherited, dir, "child_inherited.bb");
    bb_recorder_free(own);
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: pid_gen DIR\n");
        return 2;
    }
    bb_recorder *rec = make();
    if (!rec) return 1;
    for (uint64_t i = 0; i < 5; i++) BB_RECORD(rec, pg_tick, .n = i, .who = (uint64_t)getpid());
    printf("parent %ld\n", (long)getpid());
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) _exit(child(rec, argv[1]));
    printf("child %ld\n", (long)pid);
    fflush(stdout);
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "pid_gen: the child failed\n");
        return 1;
    }
    int rc = dump(rec, argv[1], "parent.bb");
    bb_recorder_free(rec);
    return rc;
}
