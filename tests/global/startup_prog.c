/* startup_prog.c — the program of startup_check.sh: `replace` installs its own handler for the
 * dump signal after its first record (the dumper must warn), `setup` installs it before its
 * first record and waits 2 s (no "replaced" warning meanwhile), then records (backbeat's goes
 * back on top: the "already handles" warning), `dlopen LIB` installs a SIGUSR1 handler and then
 * loads libbackbeat (whose load must warn that the signal is taken). */
/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef BB_STARTUP_NO_LINK /* the dlopen variant does not link libbackbeat */
#include "backbeat/backbeat.h"

BB_EVENT(st_ev, "test::startup", "Event", NULL, BB_FIELD(uint64_t, x, NULL));
#define RECORD() BB_GRECORD(st_ev, .x = 1)
#else
#define RECORD() (void)0
#endif

static void mine(int s) { (void)s; }

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    if (!strcmp(argv[1], "dlopen")) {
        signal(SIGUSR1, mine);
        return argc > 2 && dlopen(argv[2], RTLD_NOW) ? 0 : 1;
    }
    if (!strcmp(argv[1], "setup")) {
        signal(SIGUSR1, mine); /* over backbeat's, armed at load */
        sleep(2);              /* the dumper checks about once a second: not before a record */
        RECORD();              /* the first record re-arms backbeat's handler over mine */
        return 0;
    }
    RECORD(); /* the first record (the recorder and its SIGUSR1 handler exist since load) */
    signal(SIGUSR1, mine);
    sleep(2); /* the dumper checks about once a second */
    return 0;
}
