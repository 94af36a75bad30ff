/* cli/ring_scan.h — what `recover --scan`, `tail` and `top` share about a directory of ring files
 * and a run that watches them until it is stopped. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CLI_RING_SCAN_H
#define BB_CLI_RING_SCAN_H

#include <signal.h>
#include <stdbool.h>

#include "backbeat/ring_reader.h"

/* Set (to 1) by SIGINT / SIGTERM once cli_catch_stop() ran; a subcommand may set other values. */
extern volatile sig_atomic_t cli_stop;
/* SIGINT and SIGTERM set cli_stop; SIGPIPE is ignored (a closed pipe is a write error). */
void cli_catch_stop(void);

/* Whether `name` is a ring file's name: backbeat.<pid>.<instance>.ring (docs/RING_FILE.md). */
bool cli_ring_name(const char *name);

/* Call add(ctx, "DIR/NAME") for each ring file name in DIR (directory order) until add returns
 * false; false after a message when DIR cannot be listed, or when add returned false. */
bool cli_ring_scan(const char *dir, bool (*add)(void *ctx, const char *path), void *ctx);

/* bb_ring_open, retried every 10 ms up to `tries` more times while the file is still empty (its
 * writer has not written the header yet). */
bb_status cli_ring_open_wait(const char *path, int tries, bb_ring **ring, bb_error *err);

#endif
