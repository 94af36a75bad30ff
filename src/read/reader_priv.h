/* reader_priv.h — reader internals shared with the model (model_ring.c, model_iter.c), not API.
 *
 * The model keeps ring positions (runs of records, or 4-byte locators for a disordered ring)
 * and rebuilds records from the mapping on demand; these helpers do the ring arithmetic.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_READER_PRIV_H
#define BB_READER_PRIV_H

#include <stdint.h>
#include <string.h>

#include "backbeat/reader.h"
#include "common/le_bytes.h"

/* Start of the valid window of a ring: max(0, head - capacity). */
static inline uint64_t bb__shard_low(const bb_rshard *s) {
    return s->head > s->capacity ? s->head - s->capacity : 0;
}

/* Copy `n` bytes of the ring starting at absolute position `pos` into `dst`, wrapping at the
 * physical end of the region. Requires n <= capacity. Inline, like the reads below, so that
 * this header uses no function of the files that include it. */
static inline void bb__shard_copy(const bb_rshard *s, uint64_t pos, void *dst, size_t n) {
    size_t mask = (size_t)(s->capacity - 1);
    size_t at = (size_t)pos & mask;
    size_t first = (size_t)s->capacity - at;
    if (first >= n) {
        memcpy(dst, s->region + at, n);
    } else {
        memcpy(dst, s->region + at, first);
        memcpy((uint8_t *)dst + first, s->region, n - first);
    }
}

/* Little-endian u16 / u64 at absolute ring position `pos`, wrapping. */
static inline uint16_t bb__ring_u16(const bb_rshard *s, uint64_t pos) {
    size_t mask = (size_t)(s->capacity - 1), at = (size_t)pos & mask;
    if (at + 2 <= s->capacity) return bb__le_get_u16(s->region + at);
    return (uint16_t)(s->region[at] | (s->region[(at + 1) & mask] << 8));
}

static inline uint64_t bb__ring_u64(const bb_rshard *s, uint64_t pos) {
    size_t at = (size_t)pos & (size_t)(s->capacity - 1);
    if (at + 8 <= s->capacity) return bb__le_get_u64(s->region + at);
    uint8_t b[8];
    bb__shard_copy(s, pos, b, 8);
    return bb__le_get_u64(b);
}

/* Timestamp (first 8 payload bytes) of the record whose payload starts at `pos`. */
static inline uint64_t bb__ring_ts(const bb_rshard *s, uint64_t pos) {
    return bb__ring_u64(s, pos);
}

/* Rebuild the record whose payload starts at absolute position `pos`, previously accepted by
 * bb_shard_walk. `buf` must hold 65535 bytes; it receives the payload when it wraps. `hint`
 * (may be NULL) caches the last schema found: used when the id matches, updated otherwise.
 * Returns false if the id there is not registered (cannot happen for a walk result). */
bool bb__ring_record_at(const bb_dump *dump, const bb_rshard *s, uint64_t pos, uint8_t *buf,
                        const bb_rschema **hint, bb_record *out);

#endif /* BB_READER_PRIV_H */
