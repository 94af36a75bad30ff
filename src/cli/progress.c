/* cli/progress.c — progress on stderr when (and only when) stderr is a terminal, and the
 * monotonic clock it is timed by (see cli_util.h). */
/* SPDX-License-Identifier: MIT */
#include "cli/cli_util.h"

#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

uint64_t cli_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void cli_progress_init(cli_progress *p, const char *label) {
    p->enabled = isatty(STDERR_FILENO) == 1;
    p->label = label;
    p->start_ns = p->last_ns = cli_now_ns();
}

void cli_progress_update(uint64_t done, uint64_t total, void *ctx) {
    cli_progress *p = ctx;
    if (!p || !p->enabled) return;
    uint64_t now = cli_now_ns();
    if (now - p->last_ns < 200000000ull) return;
    p->last_ns = now;
    double secs = (double)(now - p->start_ns) / 1e9;
    double rate = secs > 0 ? (double)done / secs : 0;
    if (total)
        fprintf(stderr, "\r%s: %" PRIu64 "/%" PRIu64 " records (%.0f%%, %.0f records/s)   ",
                p->label, done, total, 100.0 * (double)done / (double)total, rate);
    else fprintf(stderr, "\r%s: %" PRIu64 " records (%.0f records/s)   ", p->label, done, rate);
}

void cli_progress_done(cli_progress *p) {
    if (p->enabled && cli_now_ns() - p->start_ns >= 200000000ull) fprintf(stderr, "\r\033[K");
}
