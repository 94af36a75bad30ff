/* model_ring.c — one ring's records as sources in its (ts, offset) order, for the model's merge.
 *
 * The walk (bb_shard_walk, newest first) is cut into runs: maximal sequences of records that lie
 * back to back in the ring and are already in (ts, physical offset) order oldest first. A run is
 * kept as its first payload position and its end (16 bytes), and the merge walks it forward by
 * each record's length, so a ring written in time order costs one run whatever its size.
 *
 * A ring whose runs outnumber 64 + (records / 64) — timestamps far out of write order, not what
 * a recorder writes — falls back to one 4-byte locator per record (the payload start relative to
 * the ring's window), sorted in place: the walk stops when the bound is crossed and runs again.
 * Worst case: 4 bytes per record of such rings (+ their sort), and below the bound about
 * 1.4 bytes per record (a run and its merge state are ~88 bytes).
 */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "backbeat/detail/frame.h"
#include "read/model_cache.h"
#include "read/model_priv.h"
#include "read/reader_priv.h"
#include "read/walk.h"

/* A ring being sorted by locators (the fallback). */
typedef struct lring {
    const bb_rshard *shard;
    uint64_t low;
    uint32_t *locs;
    size_t n;
    bool has_wrap;
    uint32_t wrap_loc;
} lring;

/* Physical payload offset of a locator (BB__MODEL_WRAP_OFFSET for the ring's wrapping record). */
static inline uint32_t loc_offset(const lring *s, uint32_t loc) {
    if (s->has_wrap && loc == s->wrap_loc) return BB__MODEL_WRAP_OFFSET;
    return (uint32_t)((s->low + loc) & (s->shard->capacity - 1));
}

/* Timestamp of a locator's record, read from the mapping. */
static inline uint64_t loc_ts(const lring *s, uint32_t loc) {
    return bb__ring_ts(s->shard, s->low + loc);
}

/* (ts, offset) order within one ring. */
static inline bool loc_less(const lring *s, uint32_t a, uint32_t b) {
    uint64_t ta = loc_ts(s, a), tb = loc_ts(s, b);
    if (ta != tb) return ta < tb;
    return loc_offset(s, a) < loc_offset(s, b);
}

/* ---- per-ring sort (in place, introsort: no extra memory) ---------------------------------- */

/* Max-heap sift for heapsort_locs. */
static void sift_down_locs(const lring *s, uint32_t *v, size_t i, size_t n) {
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && loc_less(s, v[c], v[c + 1])) c++;
        if (!loc_less(s, v[i], v[c])) return;
        uint32_t t = v[i];
        v[i] = v[c];
        v[c] = t;
        i = c;
    }
}

/* In-place heapsort: introsort's fallback when quicksort recursion gets too deep. */
static void heapsort_locs(const lring *s, uint32_t *v, size_t n) {
    for (size_t i = n / 2; i-- > 0;) sift_down_locs(s, v, i, n);
    for (size_t end = n; end-- > 1;) {
        uint32_t t = v[0];
        v[0] = v[end];
        v[end] = t;
        sift_down_locs(s, v, 0, end);
    }
}

/* Insertion sort, for short ranges. */
static void insertion_locs(const lring *s, uint32_t *v, size_t n) {
    for (size_t i = 1; i < n; i++) {
        uint32_t x = v[i];
        size_t j = i;
        while (j > 0 && loc_less(s, x, v[j - 1])) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* In-place introsort of n locators by (ts, offset); `depth` bounds the quicksort recursion. */
static void introsort_locs(const lring *s, uint32_t *v, size_t n, int depth) {
    while (n > 16) {
        if (depth-- == 0) {
            heapsort_locs(s, v, n);
            return;
        }
        /* median of three as pivot */
        size_t mid = n / 2;
        uint32_t a = v[0], b = v[mid], c = v[n - 1], p;
        if (loc_less(s, a, b)) p = loc_less(s, b, c) ? b : (loc_less(s, a, c) ? c : a);
        else p = loc_less(s, a, c) ? a : (loc_less(s, b, c) ? c : b);
        size_t i = 0, j = n - 1;
        for (;;) { /* Hoare partition */
            while (loc_less(s, v[i], p)) i++;
            while (loc_less(s, p, v[j])) j--;
            if (i >= j) break;
            uint32_t t = v[i];
            v[i] = v[j];
            v[j] = t;
            i++;
            j--;
        }
        /* [0, j] <= p <= [j+1, n): recurse on the smaller side */
        size_t left = j + 1;
        if (left < n - left) {
            introsort_locs(s, v, left, depth);
            v += left;
            n -= left;
        } else {
            introsort_locs(s, v + left, n - left, depth);
            n = left;
        }
    }
    insertion_locs(s, v, n);
}

/* Introsort with the usual 2*log2(n) depth limit. */
static void introsort_all(const lring *s, uint32_t *v, size_t n) {
    int depth = 0;
    for (size_t k = n; k; k >>= 1) depth += 2;
    introsort_locs(s, v, n, depth);
}

/* Sort a ring's locators by (ts, offset). Rings are usually sorted already (checked in one
 * pass), or nearly: then the records below the running maximum are set aside (at most n/8 of
 * them, in a small side buffer), sorted, and merged back from the end in place. Anything more
 * disordered gets a full in-place introsort. */
static void sort_locs(const lring *s) {
    uint32_t *v = s->locs;
    size_t n = s->n, i = 1;
    while (i < n && !loc_less(s, v[i], v[i - 1])) i++;
    if (i >= n) return;
    size_t limit = n / 8, nr = 0, nk = i;
    uint32_t *rest = malloc((limit ? limit : 1) * sizeof *rest);
    bool nearly = rest != NULL;
    for (; i < n && nearly; i++) {
        if (!loc_less(s, v[i], v[nk - 1])) {
            v[nk++] = v[i];
        } else if (nr < limit) {
            rest[nr++] = v[i];
        } else {
            nearly = false;
            /* put the side buffer back behind the kept prefix; the array stays a permutation */
            memmove(v + nk + nr, v + i, (n - i) * sizeof *v);
            memcpy(v + nk, rest, nr * sizeof *v);
        }
    }
    if (!nearly) {
        free(rest);
        introsort_all(s, v, n);
        return;
    }
    introsort_all(s, rest, nr);
    /* Merge kept v[0, nk) with rest[0, nr) into v[0, n) from the back; on ties the kept
     * element (earlier in the ring order) stays first. */
    size_t a = nk, b = nr, k = n;
    while (b > 0) {
        if (a > 0 && loc_less(s, rest[b - 1], v[a - 1])) v[--k] = v[--a];
        else v[--k] = rest[--b];
    }
    free(rest);
}

/* ---- the fallback: every record's locator -------------------------------------------------- */

typedef struct collect_ctx {
    lring *s;
    size_t cap;
    bool nomem;
} collect_ctx;

/* Walk callback: append the record's locator (growing the array); stops the walk on OOM. */
static int collect(const bb_record *rec, void *p) {
    collect_ctx *c = p;
    lring *s = c->s;
    if (s->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 1024;
        uint32_t *locs = realloc(s->locs, cap * sizeof *locs);
        if (!locs) {
            c->nomem = true;
            return 1;
        }
        s->locs = locs;
        c->cap = cap;
    }
    uint32_t loc = (uint32_t)(rec->position - s->low);
    if (rec->offset == BB__MODEL_WRAP_OFFSET) {
        s->has_wrap = true;
        s->wrap_loc = loc;
    }
    s->locs[s->n++] = loc;
    return 0;
}

/* Walk the ring again keeping every locator, oldest first, sorted. False on OOM. */
static bool load_locs(mshard *ms) {
    lring s = {ms->shard, ms->low, NULL, 0, false, 0};
    collect_ctx c = {&s, 0, false};
    bb_shard_walk(ms->dump, ms->shard, collect, &c, NULL);
    if (c.nomem) {
        free(s.locs);
        return false;
    }
    if (s.n && s.n < c.cap) {
        uint32_t *shrunk = realloc(s.locs, s.n * sizeof *s.locs);
        if (shrunk) s.locs = shrunk;
    }
    for (size_t i = 0, j = s.n; i + 1 < j; i++, j--) { /* newest-first -> oldest-first */
        uint32_t t = s.locs[i];
        s.locs[i] = s.locs[j - 1];
        s.locs[j - 1] = t;
    }
    sort_locs(&s);
    ms->locs = s.locs;
    ms->n = s.n;
    ms->newest = s.n ? loc_ts(&s, s.locs[s.n - 1]) : 0; /* sorted by (ts, offset) */
    return true;
}

/* ---- runs ---------------------------------------------------------------------------------- */

typedef struct run_ctx {
    mshard *s;
    size_t ring;
    uint64_t n;     /* records seen */
    uint64_t newer; /* payload position of the previous (newer) record */
    uint64_t newer_ts;
    uint64_t newest; /* the newest timestamp seen */
    uint32_t newer_off;
    bool nomem, too_many;
} run_ctx;

/* Append a source to the ring's own list. False on OOM. */
static bool push_src(mshard *s, msrc src) {
    if (s->nsrc == s->own_cap) {
        size_t cap = s->own_cap ? s->own_cap * 2 : 4;
        msrc *v = realloc(s->own, cap * sizeof *v);
        if (!v) return false;
        s->own = v;
        s->own_cap = cap;
    }
    s->own[s->nsrc++] = src;
    return true;
}

/* Walk callback (newest first): extend the current run backwards when the record ends where
 * the newer one starts and is not after it in (ts, offset) order; else start a run. Stops the
 * walk on OOM or when the ring has too many runs for its records. */
static int collect_run(const bb_record *rec, void *p) {
    run_ctx *c = p;
    uint64_t end = rec->position + BB__FRAME_HEAD + rec->schema->record_size + BB__FRAME_TRAILER;
    bool extend = c->n > 0 && end == c->newer &&
                  (rec->ts < c->newer_ts || (rec->ts == c->newer_ts && rec->offset < c->newer_off));
    c->n++;
    if (rec->ts > c->newest) c->newest = rec->ts;
    c->newer = rec->position;
    c->newer_ts = rec->ts;
    c->newer_off = rec->offset;
    if (extend) {
        c->s->own[c->s->nsrc - 1].start = rec->position;
        return 0;
    }
    if (c->s->nsrc >= 64 + c->n / 64) {
        c->too_many = true;
        return 1;
    }
    if (!push_src(c->s, (msrc){c->ring, rec->position, end})) {
        c->nomem = true;
        return 1;
    }
    return 0;
}

bool bb__model_ring_load(const bb_model *m, size_t ring) {
    mshard *s = &m->shards[ring];
    s->low = bb__shard_low(s->shard);
    s->nsrc = 0;
    run_ctx c = {s, ring, 0, 0, 0, 0, 0, false, false};
    bb__walk(s->dump, s->shard, collect_run, &c, NULL); /* collect_run inlined */
    if (c.nomem) return false;
    /* The merge reads the ring from its oldest record up: the rest goes first (model_cache.c). */
    if (s->keep) bb__model_cache_cool(s->shard, s->low + s->keep, s->shard->head);
    if (!c.too_many) {
        s->n = c.n;
        s->newest = c.newest;
        /* newest first -> oldest first (any order merges the same; this one reads naturally) */
        for (size_t i = 0, j = s->nsrc; i + 1 < j; i++, j--) {
            msrc t = s->own[i];
            s->own[i] = s->own[j - 1];
            s->own[j - 1] = t;
        }
        return true;
    }
    s->nsrc = 0;
    if (!load_locs(s)) return false;
    return s->n == 0 || push_src(s, (msrc){ring, 0, s->n});
}

bool bb__model_ring_join(bb_model *m, size_t ring) {
    mshard *s = &m->shards[ring];
    if (m->nsrcs + s->nsrc > m->srcs_cap) {
        size_t cap = m->srcs_cap ? m->srcs_cap : 64;
        while (cap < m->nsrcs + s->nsrc) cap *= 2;
        msrc *v = realloc(m->srcs, cap * sizeof *v);
        if (!v) return false;
        m->srcs = v;
        m->srcs_cap = cap;
    }
    if (s->nsrc) memcpy(m->srcs + m->nsrcs, s->own, s->nsrc * sizeof *s->own);
    s->src0 = m->nsrcs;
    m->nsrcs += s->nsrc;
    free(s->own);
    s->own = NULL;
    s->own_cap = 0;
    return true;
}
