/* cli/ring_scan.c — a directory of ring files and a run that watches them until stopped: the
 * name rule, the listing, opening a file its writer is still creating, the stop signals (shared
 * by `recover --scan`, `tail` and `top`; see ring_scan.h). */
/* SPDX-License-Identifier: MIT */
#include "cli/ring_scan.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/cli_util.h"
#include "cli/ringfile.h"

volatile sig_atomic_t cli_stop;

static void on_stop(int sig) {
    (void)sig;
    cli_stop = 1;
}

void cli_catch_stop(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

bool cli_ring_name(const char *name) {
    size_t l = strlen(name);
    return strncmp(name, "backbeat.", 9) == 0 && l >= 14 && !strcmp(name + l - 5, ".ring");
}

bool cli_ring_scan(const char *dir, bool (*add)(void *ctx, const char *path), void *ctx) {
    DIR *d = opendir(dir);
    if (!d) {
        cli_error("%s: cannot list: %s", dir, strerror(errno));
        return false;
    }
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d)) != NULL;) {
        if (!cli_ring_name(e->d_name)) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ok = add(ctx, path);
    }
    closedir(d);
    return ok;
}

bb_status cli_ring_open_wait(const char *path, int tries, bb_ring **ring, bb_error *err) {
    bb_status st;
    for (int k = 0;
         (st = bb_ring_open(path, ring, err)) != BB_OK && k < tries && bb_ring_is_empty_error(err);
         k++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    return st;
}

cli_ring_loss cli_ring_loss_of(uint64_t from, const bb_ring_cursor *cur, uint64_t *bytes) {
    bool position = from != BB_RING_OLDEST && from != BB_RING_NOW;
    *bytes = cur->head;
    if (position && cur->head < from) return CLI_LOSS_BACK;
    if (position && cur->head - from > CLI_RING_JUMP) return CLI_LOSS_JUMP;
    *bytes = cur->lost;
    return cur->lost ? CLI_LOSS_LAPPED : CLI_LOSS_NONE;
}

void cli_ring_report_loss(const char *cmd, const char *path, uint32_t ring, uint64_t from,
                          cli_ring_loss what, uint64_t bytes) {
    unsigned long long b = bytes, f = from;
    if (what == CLI_LOSS_LAPPED)
        fprintf(stderr,
                "backbeat: %s: %s: ring %u lost %llu bytes (the writer lapped the reader)\n", cmd,
                path, ring, b);
    else if (what == CLI_LOSS_BACK)
        fprintf(stderr,
                "backbeat: %s: %s: ring %u head went back from %llu to %llu (the file was "
                "rewritten or is damaged; nothing counted as lost)\n",
                cmd, path, ring, f, b);
    else if (what == CLI_LOSS_JUMP)
        fprintf(stderr,
                "backbeat: %s: %s: ring %u head jumped from %llu to %llu, more than 1 TiB in one "
                "read (the file is damaged; nothing counted as lost)\n",
                cmd, path, ring, f, b);
}

bool cli_ring_is_link(const char *path, bb_error *err) {
    struct stat sb;
    if (lstat(path, &sb) != 0 || !S_ISLNK(sb.st_mode)) return false;
    err->status = BB_ERR_IO;
    snprintf(err->message, sizeof err->message, "%s: a symbolic link, not followed", path);
    return true;
}
