/* cli/ring_scan.h — what `recover --scan`, `tail` and `top` share about a directory of ring files
 * and a run that watches them until it is stopped. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CLI_RING_SCAN_H
#define BB_CLI_RING_SCAN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

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

/* Whether `path` is a symbolic link (lstat); a scanned link is named and skipped, never
 * followed: it would show its target's records twice, or a file outside the directory
 * (issue 43). Fills *err ("PATH: a symbolic link, not followed") when it is one. */
bool cli_ring_is_link(const char *path, bb_error *err);

/* bb_ring_open, retried every 10 ms up to `tries` more times while the file is still empty (its
 * writer has not written the header yet). */
bb_status cli_ring_open_wait(const char *path, int tries, bb_ring **ring, bb_error *err);

/* What a follow call says about one ring's losses, told from the position it read from
 * (`from`, a position or BB_RING_OLDEST / BB_RING_NOW) and the cursor it returned: nothing
 * lost, a lap lost (*bytes), or a head that cannot be a writer's (it went back below `from`, or
 * jumped forward more than CLI_RING_JUMP bytes in one call: the file was rewritten or
 * damaged; *bytes is then the head read). Issue 43: such a head is never summed as a loss. */
typedef enum cli_ring_loss {
    CLI_LOSS_NONE,
    CLI_LOSS_LAPPED,
    CLI_LOSS_BACK,
    CLI_LOSS_JUMP
} cli_ring_loss;
#define CLI_RING_JUMP ((uint64_t)1 << 40) /* 1 TiB between two reads: not a writer */
cli_ring_loss cli_ring_loss_of(uint64_t from, const bb_ring_cursor *cur, uint64_t *bytes);

/* The stderr line for a loss cli_ring_loss_of found ("backbeat: CMD: PATH: ring I ..."); none
 * for CLI_LOSS_NONE. */
void cli_ring_report_loss(const char *cmd, const char *path, uint32_t ring, uint64_t from,
                          cli_ring_loss what, uint64_t bytes);

/* a + b, saturating at UINT64_MAX. */
static inline uint64_t cli_sat_add(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

#endif
