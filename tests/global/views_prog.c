/* views_prog.c — a program with one BB_VIEWS block, run by views_check.sh linked against the
 * shared and the static library, to check that every dump it writes carries its view set:
 *   exit    records ticks, returns from main (BACKBEAT_DUMP_ON_EXIT writes the dump)
 *   enable  calls bb_global_enable() (the recorder built on first use), records, returns
 *   signal  records, sends itself SIGUSR1 (BACKBEAT_SIGNAL=usr1), waits for the dump in
 *           argv[2] (a directory) to appear, returns
 *   crash   records, dereferences NULL (BACKBEAT_DUMP_ON_CRASH)
 * and by env_check.sh:
 *   idle    records nothing, returns (a control command: no exit dump, no ring file left)
 *   cleared clears its environment (as nginx does for its workers), then records, returns
 */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <backbeat/event.h>
#include <backbeat/global.h>

BB_EVENT(vp_tick, "bbtest", "ViewTick", "A tick of the views program.",
         BB_KEY(uint64_t, seq, "Sequence number."));
BB_VIEWS(vp_views, "CREATE VIEW vp_ticks AS SELECT seq FROM events WHERE seq IS NOT NULL;");

/* Whether `dir` holds a finished dump (a name ending in .bb). */
static int has_dump(const char *dir) {
    DIR *d = opendir(dir);
    int found = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n > 3 && strcmp(e->d_name + n - 3, ".bb") == 0) found = 1;
    }
    if (d) closedir(d);
    return found;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "exit";
    if (!strcmp(mode, "idle")) return 0;
    if (!strcmp(mode, "cleared")) clearenv();
    if (!strcmp(mode, "enable") || !strcmp(mode, "cleared")) bb_global_enable();
    for (uint64_t i = 0; i < 100; i++) BB_GRECORD(vp_tick, .seq = i);
    if (!strcmp(mode, "signal") && argc > 2) {
        kill(getpid(), SIGUSR1);
        for (int i = 0; i < 500 && !has_dump(argv[2]); i++) {
            struct timespec ms10 = {0, 10000000};
            nanosleep(&ms10, NULL);
        }
        usleep(100000); /* the file is published whole (link): just let the dumper finish */
    }
    if (!strcmp(mode, "crash")) *(volatile int *)(uintptr_t)(argc - argc) = 1;
    return 0;
}
