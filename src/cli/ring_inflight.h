/* ring_inflight.h — the records a killed process left in flight in a ring file's rings, found
 * from the file's announcement table (docs/RING_FILE.md "Records in flight") and blanked in the
 * copy a recovery writes, and the frame checks the recovery's ring cuts share. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_RING_INFLIGHT_H
#define BACKBEAT_CLI_RING_INFLIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "read/u64map.h"

/* One shard's ring as a recovery sees it: `ring` holds `cap` bytes (a power of two), the
 * cursor says `head`; `sizes` maps each recovered event id to its record size + 1. */
typedef struct cli_ring_view {
    uint8_t *ring;
    uint64_t cap, head, low; /* low = head - cap, or 0 */
    const u64map *sizes;
} cli_ring_view;

/* `n` (<= 8) bytes at absolute position `pos`, little-endian, wrapping at the ring's end. */
uint64_t cli_ring_le(const cli_ring_view *v, uint64_t pos, unsigned n);

/* The start of the record the reader's walk would accept ending at `pos` (its trailer just
 * below `pos`: a length that fits above `low`, a recovered event of that record size), or
 * UINT64_MAX. */
uint64_t cli_ring_frame_end(const cli_ring_view *v, uint64_t pos);

/* The announcements of the file for this shard: table `slots` of `count` entries (the last is
 * the overflow entry, ignored), tag `tag` (the file's tag base + the shard). Blanks in v->ring
 * every record in flight in the window (a known position), then every hole a thread stopped
 * between its reservation and publishing the position left (located where the walk down from
 * the head breaks, by the announced length: see the .c file). Returns the end of the highest
 * last-lap bytes a writer in flight below the window may have written into it (0 if none): the
 * caller cuts the window below it, as for a lapped writer's mark. */
uint64_t cli_ring_inflight(cli_ring_view *v, const uint8_t *slots, uint32_t count, uint32_t tag);

#endif /* BACKBEAT_CLI_RING_INFLIGHT_H */
