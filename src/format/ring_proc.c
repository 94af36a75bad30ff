/* ring_proc.c — the process identity a ring file records (src/format/ring_file.h) and that
 * `backbeat recover` compares with the running processes: a process's start time from
 * /proc/PID/stat and the kernel's boot id. Shared by the writer (capture) and the CLI. */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/ring_file.h"

/* Field 22 (starttime) of /proc/PID/stat: after the ")" that ends the command name (which may
 * hold spaces or parentheses), 20 more fields. */
uint64_t bb__ring_proc_start(long pid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC); /* no stdio: a follower asks every poll */
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return 0;
    for (int field = 2; field < 22 && p; field++) p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

void bb__ring_boot_id(char out[BB_RING_BOOT_ID_MAX]) {
    memset(out, 0, BB_RING_BOOT_ID_MAX);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (!f) return;
    if (!fgets(out, (int)BB_RING_BOOT_ID_MAX, f)) out[0] = 0;
    fclose(f);
    out[strcspn(out, "\n")] = 0;
}
