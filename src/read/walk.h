/* walk.h — the newest-first walk of one ring (FORMAT.md "Records and rings": each record's
 * trailer gives its length, a torn or unknown one is stepped over a byte at a time) as an inline
 * loop: bb_shard_walk is this loop with the caller's callback; the model (model_ring.c) inlines
 * it with its own, so that the record it does not read is never built. Reader internals, not API.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_READ_WALK_H
#define BB_READ_WALK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "backbeat/detail/frame.h"
#include "backbeat/reader.h"
#include "read/reader_priv.h"

/* Fill `rec` for an accepted payload of `len` bytes at absolute `start`; copies a payload that
 * straddles the physical end into `buf` (>= len bytes). */
static inline void bb__make_record(const bb_rshard *s, const bb_rschema *ev, uint64_t start,
                                   size_t len, uint8_t *buf, bb_record *rec) {
    size_t at = (size_t)start & (size_t)(s->capacity - 1);
    rec->ts = bb__ring_u64(s, start + BB__FRAME_TS);
    rec->event_id = ev->id;
    rec->schema = ev;
    rec->instance_id = s->instance_id;
    rec->shard_id = s->shard_id;
    rec->position = start;
    if (at + len <= s->capacity) {
        rec->fields = s->region + at + BB__FRAME_HEAD;
        rec->offset = (uint32_t)at;
    } else {
        bb__shard_copy(s, start, buf, len);
        rec->fields = buf + BB__FRAME_HEAD;
        rec->offset = 0xFFFFFFFFu;
    }
}

/* Lowest absolute position `a` >= low such that the ring bytes [a, pos) are all zero (the
 * caller knows pos-1 and pos-2 are). */
uint64_t bb__zero_run_start(const bb_rshard *s, uint64_t pos, uint64_t low);

/* Bytes below the walk's position whose line it asks for: `inspect` of a 10 M-record dump took
 * 0.51 s without, 0.42 / 0.35 / 0.36 / 0.37 s at 256 / 1 Ki / 2 Ki / 4 Ki (medians of 5). */
#define BB__WALK_PREFETCH 1024u

/* Schemas the walk remembers by id (direct-mapped): the records of a ring interleave a few
 * events, which a one-entry cache kept missing (a quarter of a walk's time went to lookups in a
 * dump whose rings take four events in turn). */
#define BB__WALK_SCHEMAS 16u

static inline const bb_rschema *
bb__walk_schema(const bb_dump *d, const bb_rschema *cache[BB__WALK_SCHEMAS], uint64_t id) {
    size_t slot = (size_t)(id ^ (id >> 29) ^ (id >> 47)) & (BB__WALK_SCHEMAS - 1);
    const bb_rschema *ev = cache[slot];
    if (ev && ev->id == id) return ev;
    ev = bb_dump_find_schema(d, id);
    if (ev) cache[slot] = ev;
    return ev;
}

/* bb_shard_walk (reader.h). Always inlined: a caller passing a callback of its own translation
 * unit gets it inlined too. */
static inline __attribute__((always_inline)) void
bb__walk(const bb_dump *d, const bb_rshard *s, bb_record_fn fn, void *ctx, bb_walk_stats *stats) {
    bb_walk_stats st = {0, 0};
    if (!d || !s || !s->region || s->capacity == 0 || (s->capacity & (s->capacity - 1))) {
        if (stats) *stats = st;
        return;
    }
    const uint64_t low = bb__shard_low(s);
    uint64_t pos = s->head, accepted = 0;
    uint8_t *buf = NULL; /* holds the one wrapping payload */
    const bb_rschema *cache[BB__WALK_SCHEMAS] = {0};
    bool stopped = false;
    /* pos only decreases and never drops below low, so this runs at most capacity times. */
    while (pos - low >= 2) {
        /* The walk is a chain of dependent loads (each record's start comes from the trailer
         * read before it), downwards: ask for the lines a few records below now. */
        __builtin_prefetch(s->region +
                           ((size_t)(pos - BB__WALK_PREFETCH) & (size_t)(s->capacity - 1)));
        uint64_t len = bb__ring_u16(s, pos - BB__FRAME_TRAILER);
        if (len == 0) {
            /* Both trailer bytes are zero, and so for every pos down to one past the start
             * of this run of zero bytes: each of those positions would be rejected the same
             * way one at a time (len 0 < BB__FRAME_HEAD). Jump to the first one that is not. */
            pos = bb__zero_run_start(s, pos, low) + 1;
            continue;
        }
        if (len + BB__FRAME_TRAILER > pos - low || len < BB__FRAME_HEAD) {
            pos--;
            continue;
        }
        uint64_t start = pos - BB__FRAME_TRAILER - len;
        const bb_rschema *ev = bb__walk_schema(d, cache, bb__ring_u64(s, start + BB__FRAME_ID));
        if (!ev || len != BB__FRAME_HEAD + (uint64_t)ev->record_size) {
            pos--;
            continue;
        }
        size_t at = (size_t)start & (size_t)(s->capacity - 1);
        if (at + len > s->capacity && !buf) {
            buf = malloc(65536);
            if (!buf) { /* cannot reassemble: treat as unreadable */
                pos--;
                continue;
            }
        }
        bb_record rec;
        bb__make_record(s, ev, start, (size_t)len, buf, &rec);
        st.records++;
        accepted += len + BB__FRAME_TRAILER;
        pos = start;
        if (fn && fn(&rec, ctx)) {
            stopped = true;
            break;
        }
    }
    free(buf);
    /* Bytes of the window walked over without being part of an accepted record. */
    st.skipped_bytes = (s->head - pos) - accepted + (stopped ? 0 : pos - low);
    if (stats) *stats = st;
}

#endif /* BB_READ_WALK_H */
