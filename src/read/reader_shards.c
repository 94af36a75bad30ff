/* reader_shards.c — the dump reader's rings: record reconstruction at a position and the newest-first
 * walk with the torn-record resync of FORMAT.md "Records and rings" (its loop is read/walk.h's,
 * which the model inlines with its own callback). */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "backbeat/detail/frame.h"

#include "read/reader_internal.h"
#include "read/reader_priv.h"
#include "read/walk.h"

/* ---- rings --------------------------------------------------------------------------------- */

bool bb__ring_record_at(const bb_dump *d, const bb_rshard *s, uint64_t pos, uint8_t *buf,
                        const bb_rschema **hint, bb_record *out) {
    uint64_t id = bb__ring_u64(s, pos + BB__FRAME_ID);
    const bb_rschema *ev = hint && *hint && (*hint)->id == id ? *hint : bb_dump_find_schema(d, id);
    if (!ev) return false;
    if (hint) *hint = ev;
    bb__make_record(s, ev, pos, BB__FRAME_HEAD + (size_t)ev->record_size, buf, out);
    return true;
}

/* read/walk.h. Scans backwards a word at a time, wrapping at the physical start of the region. */
uint64_t bb__zero_run_start(const bb_rshard *s, uint64_t pos, uint64_t low) {
    const size_t mask = (size_t)(s->capacity - 1);
    while (pos > low) {
        size_t at = (size_t)((pos - 1) & mask) + 1; /* physical end (exclusive) of this piece */
        uint64_t piece = pos - low < at ? pos - low : at;
        const uint8_t *p = s->region + at; /* scan down from p - 1 to p - piece */
        uint64_t k = 0;
        while (k < piece && ((uintptr_t)(p - k) & 7) != 0) {
            if (p[-1 - (ptrdiff_t)k]) return pos - k;
            k++;
        }
        while (k + 8 <= piece) {
            uint64_t word;
            memcpy(&word, p - k - 8, 8);
            if (word) break;
            k += 8;
        }
        for (; k < piece; k++)
            if (p[-1 - (ptrdiff_t)k]) return pos - k;
        pos -= piece;
    }
    return low;
}

void bb_shard_walk(const bb_dump *d, const bb_rshard *s, bb_record_fn fn, void *ctx,
                   bb_walk_stats *stats) {
    bb__walk(d, s, fn, ctx, stats);
}
