/* budget_prog.c — the processes budget_check.sh runs (issue 38, outside-in findings 2-5):
 *   hold       records, renames its ring file to carry a pid that exists nowhere (as a
 *              process in another pid namespace names it), prints the new name, then sleeps
 *              until killed (60 s at most)
 *   dump       records one event and writes a dump (bb_global_dump), printing its path
 *   crash      records, then dereferences NULL (a crash dump with BACKBEAT_DUMP_ON_CRASH)
 *   argv       overwrites argv[0]'s bytes (as nginx's setproctitle does), records, dumps
 *   nothing    returns without recording (a control command)
 */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <backbeat/event.h>
#include <backbeat/global.h>

BB_EVENT(bp_tick, "bbtest", "BudgetTick", "A tick.", BB_FIELD(uint64_t, seq, "Sequence."));

/* Rename this process's ring file in BACKBEAT_RING_DIR to carry pid 99999999. */
static int rename_ring(void) {
    const char *dir = getenv("BACKBEAT_RING_DIR");
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d) return 1;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "backbeat.%ld.", (long)getpid());
    struct dirent *e;
    int rc = 1;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, strlen(prefix)) != 0) continue;
        char from[4096], to[4096];
        snprintf(from, sizeof from, "%s/%s", dir, e->d_name);
        snprintf(to, sizeof to, "%s/backbeat.99999999.%s", dir, e->d_name + strlen(prefix));
        if (rename(from, to) == 0) {
            printf("%s\n", to);
            rc = 0;
        }
        break;
    }
    closedir(d);
    return rc;
}

static int dump(void) {
    char path[4096];
    bb_error err;
    if (bb_global_dump(path, sizeof path, &err) != BB_OK) {
        fprintf(stderr, "dump failed: %s\n", err.message);
        return 1;
    }
    printf("%s\n", path);
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "nothing")) return 0;
    if (!strcmp(mode, "argv")) memset(argv[0], 'X', strlen(argv[0]));
    for (uint64_t i = 0; i < 100; i++) BB_GRECORD(bp_tick, .seq = i);
    if (!strcmp(mode, "hold")) {
        if (rename_ring() != 0) return 1;
        fflush(stdout);
        sleep(60);
        return 0;
    }
    if (!strcmp(mode, "crash")) {
        volatile int *p = (volatile int *)(uintptr_t)(argc - argc);
        *p = 1;
    }
    if (!strcmp(mode, "dump") || !strcmp(mode, "argv")) return dump();
    return 2;
}
