/* capture/dump_blanks.h — the dump writer's internal entry point that writes chosen ranges of a
 * shard's region as zeros (the crash path's records still in flight) and adds the Process
 * section (the recorder's OS process), for recorder_dump.c. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_DUMP_BLANKS_H
#define BACKBEAT_DUMP_BLANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/dump_writer.h"
#include "format/sections.h"
#include "format/sink.h"

/* Byte ranges of a shard's region the writer writes as zeros instead of the region's bytes:
 * get(ctx, shard, k, &off, &len) gives range k (region offsets, not wrapping) for k = 0, 1, ...
 * until it returns false. The crash path hands the writer the live ring, which it must not
 * change, and blanks the records still in flight in the window this way. */
typedef struct bb__dump_blanks {
    bool (*get)(void *ctx, uint32_t shard, size_t k, uint64_t *off, uint64_t *len);
    void *ctx;
} bb__dump_blanks;

/* An Intern section that holds exactly the strings the dump's records name (a live recorder's,
 * recorder_dump.c): the writer puts it after the Shards, sized by in->intern_count as an upper
 * bound first. mark(ctx, shard, region, head, cap) sees each shard's region once it is written;
 * select(ctx) then gives the new intern_count (intern_get answers the chosen entries from then
 * on); patch is a sink that writes from the dump's offset 0 on, through which the envelope and
 * the section table are written again with the Intern section's real length. The dump is
 * then shorter than bb__dump_size_process said by the strings left out. */
typedef struct bb__dump_exact {
    void (*mark)(void *ctx, uint32_t shard, const uint8_t *region, uint64_t head, uint64_t cap);
    size_t (*select)(void *ctx);
    bb__sink patch;
    void *ctx;
} bb__dump_exact;

/* bb_dump_write into a format sink, with the shards' regions blanked where `blanks` says (NULL:
 * none), and backbeat's Process section after Meta when `proc` is not NULL (bb_dump_write
 * itself writes none: its output is the reference's, byte for byte); with `exact` (NULL: the
 * reference order, every entry) the Intern section as bb__dump_exact says. */
bb_status bb__dump_write_blanked(const bb_dump_input *in, const bb__wire_process *proc,
                                 bb__sink sink, uint8_t *scratch, bb_error *err,
                                 const bb__dump_blanks *blanks, const bb__dump_exact *exact);
/* bb_dump_size of the same dump (0 when invalid). */
uint64_t bb__dump_size_process(const bb_dump_input *in, const bb__wire_process *proc);

#endif
