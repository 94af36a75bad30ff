/* model_priv.h — the model's internals shared by model.c (registry, instances, open/close),
 * model_ring.c (a ring's records as ordered runs) and model_iter.c (the merge). Not API.
 *
 * Each ring's records are described by sources already in the ring's (ts, offset) order: runs
 * of records lying back to back in the ring (so the next one is found from the previous one's
 * length), or, for a ring too disordered for few runs, every record's 4-byte locator sorted.
 * The iterator merges every source of every ring with a tree of losers (model_iter.c).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_READ_MODEL_PRIV_H
#define BB_READ_MODEL_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/model.h"

#define BB__MODEL_WRAP_OFFSET 0xFFFFFFFFu

/* One source of a ring. A run: the records whose payloads start at `start` and follow each
 * other (payload, trailer, next payload) up to `end` (absolute ring positions, end exclusive).
 * A ring's sorted locators: indexes [start, end) into its `locs`. */
typedef struct msrc {
    size_t ring;
    uint64_t start, end;
} msrc;

typedef struct mshard {
    const bb_dump *dump;
    const bb_rshard *shard;
    const bb_rinstance *inst; /* the instance in its own dump: resolves its interned fields */
    size_t input;
    uint64_t low;    /* start of the valid window */
    uint64_t n;      /* records the walk accepted */
    uint64_t newest; /* their newest timestamp (0 without records) */
    uint64_t keep;   /* bytes above `low` the walk leaves warm (model_cache.h); 0: never cooled */
    uint32_t *locs;  /* fallback only: payload starts - low, sorted by (ts, offset); else NULL */
    size_t src0;     /* its sources: model->srcs[src0, src0 + nsrc) */
    size_t nsrc;
    msrc *own; /* while loading: its sources, before they join the model's list */
    size_t own_cap;
} mshard;

struct bb_model {
    bb_dump *const *dumps;
    size_t ndumps;
    bool dedup;

    const bb_rschema **schemas; /* union, sorted by (name, id) */
    char **display;             /* parallel to schemas */
    size_t nschemas;
    uint32_t *htab; /* sorted index + 1 by id */
    size_t hmask;

    const bb_rinstance **inst; /* union, sorted by id */
    size_t ninst;

    bb_strview *views;
    size_t nviews;

    mshard *shards;
    size_t nshards;
    msrc *srcs; /* every ring's sources, ring after ring */
    size_t nsrcs, srcs_cap;
    uint64_t record_count;
};

/* Walk ring `ring` of the model (its dump, shard, inst and input set) and keep its sources in
 * the ring's own list (s->own, s->nsrc); sets s->n, s->low. Touches nothing but that ring's
 * entry, so rings load on several threads at once. False on allocation failure. */
bool bb__model_ring_load(const bb_model *m, size_t ring);
/* Move ring `ring`'s loaded sources to the end of the model's list (s->src0); rings join in
 * ring order. False on allocation failure. */
bool bb__model_ring_join(bb_model *m, size_t ring);

/* An iterator over the rings listed in `rings` (all when NULL). */
bb_status bb__model_iter_open(const bb_model *m, const size_t *rings, size_t nrings,
                              bb_model_iter **out);
/* Pop the next record in global order, skipping duplicates: its ring and payload position, and
 * its payload in the iterator's staging (valid until the next step) or NULL: then read it from
 * the ring. False at the end. */
bool bb__model_iter_step(bb_model_iter *it, size_t *ring, uint64_t *pos, const bb_rschema **schema,
                         const uint8_t **payload);

#endif /* BB_READ_MODEL_PRIV_H */
