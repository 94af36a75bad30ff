/* model.c — the ordered, de-duplicated record stream over one or more dumps (model.h).
 *
 * Per ring, the walk's accepted records are kept as 4-byte locators: the payload start relative
 * to the ring's valid window [low, head). They are stored oldest-first and sorted by
 * (ts, physical offset); rings are usually already in that order, which is detected and then no
 * sort runs. Iteration is a k-way heap merge over every ring of every input by
 * (ts, instance_id, shard_id, offset, ring order), so for equal keys the first input's copy
 * comes first and a duplicate (equal key to the previous record) is dropped. Records are rebuilt
 * from the mapping on demand: memory is 4 bytes per record plus per-ring state.
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/model.h"
#include "common/error_set.h"
#include "read/reader_priv.h"

#define WRAP_OFFSET 0xFFFFFFFFu

typedef struct mshard {
    const bb_dump *dump;
    const bb_rshard *shard;
    const bb_rinstance *inst; /* the instance in its own dump: resolves its interned fields */
    size_t input;
    uint64_t low;
    uint32_t *locs; /* oldest-first, sorted by (ts, offset) */
    size_t n;
    bool has_wrap;
    uint32_t wrap_loc;
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
    uint64_t record_count;
};

typedef struct mkey {
    uint64_t ts;
    uint64_t instance_id;
    uint32_t shard_id;
    uint32_t offset;
    size_t ring; /* index into model->shards: input order, then file order */
} mkey;

/* Fill `err` (may be NULL). */
static void set_err(bb_error *err, bb_status st, const char *msg) {
    bb__err_set(err, st, UINT64_MAX, NULL, "%s", msg);
}

/* ---- keys ---------------------------------------------------------------------------------- */

/* Physical payload offset of a locator (0xFFFFFFFF for the ring's wrapping record). */
static inline uint32_t loc_offset(const mshard *s, uint32_t loc) {
    if (s->has_wrap && loc == s->wrap_loc) return WRAP_OFFSET;
    return (uint32_t)((s->low + loc) & (s->shard->capacity - 1));
}

/* Timestamp of a locator's record, read from the mapping. */
static inline uint64_t loc_ts(const mshard *s, uint32_t loc) {
    return bb_ring_ts(s->shard, s->low + loc);
}

/* (ts, offset) order within one ring. */
static inline bool loc_less(const mshard *s, uint32_t a, uint32_t b) {
    uint64_t ta = loc_ts(s, a), tb = loc_ts(s, b);
    if (ta != tb) return ta < tb;
    return loc_offset(s, a) < loc_offset(s, b);
}

/* Global order; ties between copies of one record go to the earlier ring (first input). */
static inline bool key_less(const mkey *a, const mkey *b) {
    if (a->ts != b->ts) return a->ts < b->ts;
    if (a->instance_id != b->instance_id) return a->instance_id < b->instance_id;
    if (a->shard_id != b->shard_id) return a->shard_id < b->shard_id;
    if (a->offset != b->offset) return a->offset < b->offset;
    return a->ring < b->ring;
}

/* Equal FORMAT.md keys: the same record seen in two inputs. */
static inline bool key_same_record(const mkey *a, const mkey *b) {
    return a->ts == b->ts && a->instance_id == b->instance_id && a->shard_id == b->shard_id &&
           a->offset == b->offset;
}

/* ---- per-ring sort (in place, introsort: no extra memory) ---------------------------------- */

/* Max-heap sift for heapsort_locs. */
static void sift_down_locs(const mshard *s, uint32_t *v, size_t i, size_t n) {
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
static void heapsort_locs(const mshard *s, uint32_t *v, size_t n) {
    for (size_t i = n / 2; i-- > 0;) sift_down_locs(s, v, i, n);
    for (size_t end = n; end-- > 1;) {
        uint32_t t = v[0];
        v[0] = v[end];
        v[end] = t;
        sift_down_locs(s, v, 0, end);
    }
}

/* Insertion sort, for short ranges. */
static void insertion_locs(const mshard *s, uint32_t *v, size_t n) {
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
static void introsort_locs(const mshard *s, uint32_t *v, size_t n, int depth) {
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
static void introsort_all(const mshard *s, uint32_t *v, size_t n) {
    int depth = 0;
    for (size_t k = n; k; k >>= 1) depth += 2;
    introsort_locs(s, v, n, depth);
}

/* Sort a ring's locators by (ts, offset). Rings are usually sorted already (checked in one
 * pass), or nearly: then the records below the running maximum are set aside (at most n/8 of
 * them, in a small side buffer), sorted, and merged back from the end in place. Anything more
 * disordered gets a full in-place introsort. */
static void sort_locs(const mshard *s) {
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

/* ---- collecting locators ------------------------------------------------------------------- */

typedef struct collect_ctx {
    mshard *s;
    size_t cap;
    bool nomem;
} collect_ctx;

/* Walk callback: append the record's locator (growing the array); stops the walk on OOM. */
static int collect(const bb_record *rec, void *p) {
    collect_ctx *c = p;
    mshard *s = c->s;
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
    if (rec->offset == WRAP_OFFSET) {
        s->has_wrap = true;
        s->wrap_loc = loc;
    }
    s->locs[s->n++] = loc;
    return 0;
}

/* Walk ring `s` and leave its locators oldest-first, sorted. False on allocation failure. */
static bool load_shard(mshard *s) {
    collect_ctx c = {s, 0, false};
    s->low = bb_shard_low(s->shard);
    bb_shard_walk(s->dump, s->shard, collect, &c, NULL);
    if (c.nomem) return false;
    if (s->n && s->n < c.cap) {
        uint32_t *shrunk = realloc(s->locs, s->n * sizeof *s->locs);
        if (shrunk) s->locs = shrunk;
    }
    for (size_t i = 0, j = s->n; i + 1 < j; i++, j--) { /* newest-first -> oldest-first */
        uint32_t t = s->locs[i];
        s->locs[i] = s->locs[j - 1];
        s->locs[j - 1] = t;
    }
    sort_locs(s);
    return true;
}

/* ---- merge --------------------------------------------------------------------------------- */

struct bb_model_iter {
    const bb_model *m;
    size_t *heap; /* ring indices, min-heap on their current key */
    size_t nheap;
    size_t *cur;  /* per ring: index of its next locator */
    mkey *keys;   /* per ring: key of its next locator */
    const bb_rschema **hint; /* per ring: schema of its last record (lookup cache) */
    bool have_prev;
    mkey prev;
    uint8_t buf[65536]; /* the one wrapping payload, reassembled */
};

/* The global key of locator `idx` of ring `ring`. */
static void load_key(const bb_model *m, size_t ring, size_t idx, mkey *k) {
    const mshard *s = &m->shards[ring];
    uint32_t loc = s->locs[idx];
    k->ts = loc_ts(s, loc);
    k->instance_id = s->shard->instance_id;
    k->shard_id = s->shard->shard_id;
    k->offset = loc_offset(s, loc);
    k->ring = ring;
}

/* Restore the merge heap below slot i. */
static void heap_down(bb_model_iter *it, size_t i) {
    size_t n = it->nheap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && key_less(&it->keys[it->heap[c + 1]], &it->keys[it->heap[c]])) c++;
        if (!key_less(&it->keys[it->heap[c]], &it->keys[it->heap[i]])) return;
        size_t t = it->heap[i];
        it->heap[i] = it->heap[c];
        it->heap[c] = t;
        i = c;
    }
}

/* An iterator over the rings listed in `rings` (all when NULL). */
static bb_status iter_new(const bb_model *m, const size_t *rings, size_t nrings,
                          bb_model_iter **out) {
    bb_model_iter *it = calloc(1, sizeof *it);
    size_t n = m->nshards ? m->nshards : 1;
    if (it) {
        it->heap = malloc(n * sizeof *it->heap);
        it->cur = calloc(n, sizeof *it->cur);
        it->keys = calloc(n, sizeof *it->keys);
        it->hint = calloc(n, sizeof *it->hint);
    }
    if (!it || !it->heap || !it->cur || !it->keys || !it->hint) {
        bb_model_iter_free(it);
        return BB_ERR_NOMEM;
    }
    it->m = m;
    size_t count = rings ? nrings : m->nshards;
    for (size_t i = 0; i < count; i++) {
        size_t r = rings ? rings[i] : i;
        if (m->shards[r].n == 0) continue;
        load_key(m, r, 0, &it->keys[r]);
        it->heap[it->nheap++] = r;
    }
    for (size_t i = it->nheap / 2; i-- > 0;) heap_down(it, i);
    *out = it;
    return BB_OK;
}

/* Pop the next locator in global order, skipping duplicates; false at the end. */
static bool iter_step(bb_model_iter *it, size_t *ring, uint32_t *loc) {
    const bb_model *m = it->m;
    while (it->nheap) {
        size_t r = it->heap[0];
        mkey k = it->keys[r];
        size_t idx = it->cur[r]++;
        if (it->cur[r] < m->shards[r].n) {
            load_key(m, r, it->cur[r], &it->keys[r]);
        } else {
            it->heap[0] = it->heap[--it->nheap];
        }
        heap_down(it, 0);
        if (m->dedup && it->have_prev && key_same_record(&k, &it->prev)) continue;
        it->prev = k;
        it->have_prev = true;
        *ring = r;
        *loc = m->shards[r].locs[idx];
        return true;
    }
    return false;
}

bb_status bb_model_iter_new(const bb_model *m, bb_model_iter **out) {
    if (!m || !out) return BB_ERR_INVALID;
    return iter_new(m, NULL, 0, out);
}

bool bb_model_next(bb_model_iter *it, bb_mrecord *out) {
    size_t r;
    uint32_t loc;
    while (iter_step(it, &r, &loc)) {
        const mshard *s = &it->m->shards[r];
        if (!bb_ring_record_at(s->dump, s->shard, s->low + loc, it->buf, &it->hint[r], &out->rec))
            continue;
        out->instance = s->inst;
        out->input = s->input;
        return true;
    }
    return false;
}

void bb_model_iter_free(bb_model_iter *it) {
    if (!it) return;
    free(it->heap);
    free(it->cur);
    free(it->keys);
    free(it->hint);
    free(it);
}

/* ---- registry, instances, views ------------------------------------------------------------ */

/* Home slot of an event id in the model's id table. */
static size_t hash_slot(uint64_t id, size_t mask) {
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdull;
    id ^= id >> 33;
    return (size_t)id & mask;
}

/* Byte order of qualified names (shorter prefix first). */
static int cmp_name(const bb_rschema *x, const bb_rschema *y) {
    size_t n = x->name.len < y->name.len ? x->name.len : y->name.len;
    int c = n ? memcmp(x->name.ptr, y->name.ptr, n) : 0;
    if (c) return c;
    return x->name.len < y->name.len ? -1 : x->name.len > y->name.len;
}

/* qsort order of schema pointers: name, then id. */
static int cmp_schema(const void *a, const void *b) {
    const bb_rschema *x = *(const bb_rschema *const *)a, *y = *(const bb_rschema *const *)b;
    int c = cmp_name(x, y);
    if (c) return c;
    return x->id < y->id ? -1 : x->id > y->id;
}


/* An instance and the input it comes from, ordered by (id, input). */
typedef struct inst_ref {
    const bb_rinstance *in;
    size_t input;
} inst_ref;

static int cmp_inst_ref(const void *a, const void *b) {
    const inst_ref *x = a, *y = b;
    if (x->in->instance_id != y->in->instance_id)
        return x->in->instance_id < y->in->instance_id ? -1 : 1;
    return x->input < y->input ? -1 : x->input > y->input;
}

const bb_rschema *bb_model_find_schema(const bb_model *m, uint64_t id) {
    for (size_t s = hash_slot(id, m->hmask);; s = (s + 1) & m->hmask) {
        uint32_t v = m->htab[s];
        if (v == 0) return NULL;
        if (m->schemas[v - 1]->id == id) return m->schemas[v - 1];
    }
}

/* Index in the sorted union of the schema with this id, or SIZE_MAX. */
static size_t find_index(const bb_model *m, uint64_t id) {
    for (size_t s = hash_slot(id, m->hmask);; s = (s + 1) & m->hmask) {
        uint32_t v = m->htab[s];
        if (v == 0) return SIZE_MAX;
        if (m->schemas[v - 1]->id == id) return v - 1;
    }
}

/* Insert schemas[i] into the id table unless its id is present; true if inserted. */
static bool htab_insert(bb_model *m, size_t i) {
    for (size_t s = hash_slot(m->schemas[i]->id, m->hmask);; s = (s + 1) & m->hmask) {
        uint32_t v = m->htab[s];
        if (v == 0) {
            m->htab[s] = (uint32_t)(i + 1);
            return true;
        }
        if (m->schemas[v - 1]->id == m->schemas[i]->id) return false;
    }
}

/* Union the inputs' registries by id (first input wins), sort by (name, id), index by id, and
 * make display names. False on allocation failure. */
static bool build_registry(bb_model *m) {
    size_t total = 0;
    for (size_t d = 0; d < m->ndumps; d++) total += bb_dump_schema_count(m->dumps[d]);
    size_t cap = 8;
    while (cap < total * 2) cap <<= 1;
    m->schemas = malloc((total ? total : 1) * sizeof *m->schemas);
    m->htab = calloc(cap, sizeof *m->htab);
    if (!m->schemas || !m->htab) return false;
    m->hmask = cap - 1;
    /* Union by id, first input wins. */
    for (size_t d = 0; d < m->ndumps; d++)
        for (size_t i = 0; i < bb_dump_schema_count(m->dumps[d]); i++) {
            m->schemas[m->nschemas] = bb_dump_schema(m->dumps[d], i);
            if (htab_insert(m, m->nschemas)) m->nschemas++;
        }
    qsort(m->schemas, m->nschemas, sizeof *m->schemas, cmp_schema);
    memset(m->htab, 0, cap * sizeof *m->htab);
    for (size_t i = 0; i < m->nschemas; i++) htab_insert(m, i);
    /* Display names: suffixed only when the union holds several ids under one name. */
    m->display = calloc(m->nschemas ? m->nschemas : 1, sizeof *m->display);
    if (!m->display) return false;
    for (size_t i = 0; i < m->nschemas; i++) {
        const bb_rschema *ev = m->schemas[i];
        bool shared = (i > 0 && cmp_name(m->schemas[i - 1], ev) == 0) ||
                      (i + 1 < m->nschemas && cmp_name(m->schemas[i + 1], ev) == 0);
        size_t n = ev->name.len + (shared ? 17 : 0) + 1;
        char *s = malloc(n);
        if (!s) return false;
        memcpy(s, ev->name.ptr, ev->name.len);
        if (shared) snprintf(s + ev->name.len, 18, "#%016llx", (unsigned long long)ev->id);
        s[n - 1] = 0;
        m->display[i] = s;
    }
    return true;
}

/* Union the instances (first input holding an id supplies it; sorted by id) and list every
 * input's views in input order. False on allocation failure. */
static bool build_instances_views(bb_model *m) {
    size_t total = 0, nviews = 0;
    for (size_t d = 0; d < m->ndumps; d++) {
        total += bb_dump_instance_count(m->dumps[d]);
        nviews += bb_dump_view_count(m->dumps[d]);
    }
    m->inst = malloc((total ? total : 1) * sizeof *m->inst);
    m->views = malloc((nviews ? nviews : 1) * sizeof *m->views);
    if (!m->inst || !m->views) return false;
    for (size_t d = 0; d < m->ndumps; d++) {
        for (size_t i = 0; i < bb_dump_instance_count(m->dumps[d]); i++)
            m->inst[m->ninst++] = bb_dump_instance(m->dumps[d], i);
        for (size_t i = 0; i < bb_dump_view_count(m->dumps[d]); i++)
            m->views[m->nviews++] = bb_dump_view(m->dumps[d], i);
    }
    /* Sort by id, ties in input order (each dump's instances are distinct and its own array
     * is in memory order, so the input order is restored by the input index), then keep the
     * first of each id: the first input holding an instance supplies it. */
    size_t *inp = malloc((m->ninst ? m->ninst : 1) * sizeof *inp);
    if (!inp) return false;
    for (size_t d = 0, k = 0; d < m->ndumps; d++)
        for (size_t i = 0; i < bb_dump_instance_count(m->dumps[d]); i++) inp[k++] = d;
    inst_ref *refs = malloc((m->ninst ? m->ninst : 1) * sizeof *refs);
    if (!refs) {
        free(inp);
        return false;
    }
    for (size_t k = 0; k < m->ninst; k++) refs[k] = (inst_ref){m->inst[k], inp[k]};
    free(inp);
    qsort(refs, m->ninst, sizeof *refs, cmp_inst_ref);
    size_t u = 0;
    for (size_t k = 0; k < m->ninst; k++)
        if (u == 0 || m->inst[u - 1]->instance_id != refs[k].in->instance_id)
            m->inst[u++] = refs[k].in;
    m->ninst = u;
    free(refs);
    return true;
}

/* ---- rings and the record count ------------------------------------------------------------ */

/* qsort_r order of ring indices by (instance_id, shard_id), then ring order. */
static int cmp_ring_group(const void *a, const void *b, void *ctx) {
    const bb_model *m = ctx;
    const bb_rshard *x = m->shards[*(const size_t *)a].shard;
    const bb_rshard *y = m->shards[*(const size_t *)b].shard;
    if (x->instance_id != y->instance_id) return x->instance_id < y->instance_id ? -1 : 1;
    if (x->shard_id != y->shard_id) return x->shard_id < y->shard_id ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Load every ring of every input and compute the record count after de-duplication. False on
 * allocation failure. */
static bool build_rings(bb_model *m) {
    size_t total = 0;
    for (size_t d = 0; d < m->ndumps; d++)
        for (size_t i = 0; i < bb_dump_instance_count(m->dumps[d]); i++)
            total += bb_dump_instance(m->dumps[d], i)->shard_count;
    m->shards = calloc(total ? total : 1, sizeof *m->shards);
    if (!m->shards) return false;
    for (size_t d = 0; d < m->ndumps; d++)
        for (size_t i = 0; i < bb_dump_instance_count(m->dumps[d]); i++) {
            const bb_rinstance *in = bb_dump_instance(m->dumps[d], i);
            for (size_t k = 0; k < in->shard_count; k++) {
                mshard *s = &m->shards[m->nshards++];
                s->dump = m->dumps[d];
                s->shard = &in->shards[k];
                s->inst = in;
                s->input = d;
                if (!load_shard(s)) return false;
                m->record_count += s->n;
            }
        }
    if (!m->dedup || m->nshards < 2) return true;
    /* Duplicates can only occur between rings of one (instance, shard): count them by merging
     * each such group alone. */
    size_t *order = malloc(m->nshards * sizeof *order);
    if (!order) return false;
    for (size_t i = 0; i < m->nshards; i++) order[i] = i;
    qsort_r(order, m->nshards, sizeof *order, cmp_ring_group, m);
    bool ok = true;
    for (size_t g = 0; g < m->nshards && ok;) {
        size_t e = g + 1;
        while (e < m->nshards &&
               m->shards[order[g]].shard->instance_id == m->shards[order[e]].shard->instance_id &&
               m->shards[order[g]].shard->shard_id == m->shards[order[e]].shard->shard_id)
            e++;
        if (e - g > 1) {
            bb_model_iter *it = NULL;
            if (iter_new(m, order + g, e - g, &it) != BB_OK) {
                ok = false;
                break;
            }
            uint64_t kept = 0, all = 0;
            size_t r;
            uint32_t loc;
            while (iter_step(it, &r, &loc)) kept++;
            for (size_t k = g; k < e; k++) all += m->shards[order[k]].n;
            m->record_count -= all - kept;
            bb_model_iter_free(it);
        }
        g = e;
    }
    free(order);
    return ok;
}

/* ---- open / close / accessors -------------------------------------------------------------- */

bb_status bb_model_open(bb_dump *const *dumps, size_t n, bool dedup, bb_model **out,
                        bb_error *err) {
    if (!out || (!dumps && n)) {
        set_err(err, BB_ERR_INVALID, "bb_model_open: invalid argument");
        return BB_ERR_INVALID;
    }
    *out = NULL;
    for (size_t i = 0; i < n; i++)
        if (!dumps[i]) {
            set_err(err, BB_ERR_INVALID, "bb_model_open: NULL dump");
            return BB_ERR_INVALID;
        }
    bb_model *m = calloc(1, sizeof *m);
    if (!m) {
        set_err(err, BB_ERR_NOMEM, "out of memory (model)");
        return BB_ERR_NOMEM;
    }
    m->dumps = dumps;
    m->ndumps = n;
    m->dedup = dedup;
    if (!build_registry(m) || !build_instances_views(m) || !build_rings(m)) {
        bb_model_close(m);
        set_err(err, BB_ERR_NOMEM, "out of memory (model)");
        return BB_ERR_NOMEM;
    }
    bb__err_clear(err);
    *out = m;
    return BB_OK;
}

void bb_model_close(bb_model *m) {
    if (!m) return;
    if (m->display)
        for (size_t i = 0; i < m->nschemas; i++) free(m->display[i]);
    free(m->display);
    free(m->schemas);
    free(m->htab);
    free(m->inst);
    free(m->views);
    if (m->shards)
        for (size_t i = 0; i < m->nshards; i++) free(m->shards[i].locs);
    free(m->shards);
    free(m);
}

size_t bb_model_schema_count(const bb_model *m) { return m->nschemas; }
const bb_rschema *bb_model_schema(const bb_model *m, size_t i) {
    return i < m->nschemas ? m->schemas[i] : NULL;
}

const char *bb_model_display_name(const bb_model *m, uint64_t event_id) {
    size_t i = find_index(m, event_id);
    return i == SIZE_MAX ? "" : m->display[i];
}

size_t bb_model_instance_count(const bb_model *m) { return m->ninst; }
const bb_rinstance *bb_model_instance(const bb_model *m, size_t i) {
    return i < m->ninst ? m->inst[i] : NULL;
}

const bb_rinstance *bb_model_find_instance(const bb_model *m, uint64_t id) {
    size_t lo = 0, hi = m->ninst;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->inst[mid]->instance_id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < m->ninst && m->inst[lo]->instance_id == id ? m->inst[lo] : NULL;
}

size_t bb_model_view_count(const bb_model *m) { return m->nviews; }
bb_strview bb_model_view(const bb_model *m, size_t i) {
    bb_strview v = {"", 0};
    return i < m->nviews ? m->views[i] : v;
}

uint64_t bb_model_record_count(const bb_model *m) { return m->record_count; }
