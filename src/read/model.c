/* model.c — the ordered, de-duplicated record stream over one or more dumps (model.h): the
 * union of the inputs' registries, instances and views, the rings and the record count.
 *
 * Each ring is described by a few sources already in its (ts, offset) order (model_ring.c) and
 * iteration merges them all (model_iter.c), so memory grows with the rings' runs, not with
 * their records. The record count (after de-duplication) is computed at open: duplicates can
 * only occur between rings of one (instance, shard), so each such group is merged alone. The
 * rings are walked at open, on several threads when the caller asks (bb_model_open_threads).
 */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/model.h"
#include "common/error_set.h"
#include "read/model_cache.h"
#include "read/model_priv.h"
#include "read/reader_internal.h"

#define MODEL_MAX_THREADS 64u /* threads that walk rings at open, at most */

/* Fill `err` (may be NULL). */
static void set_err(bb_error *err, bb_status st, const char *msg) {
    bb__err_set(err, st, UINT64_MAX, NULL, "%s", msg);
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

/* The rings' walk, shared by the threads that load them: each takes the next ring. */
typedef struct load_job {
    const bb_model *m;
    size_t next; /* atomic */
    bool failed; /* atomic */
} load_job;

static void *load_some(void *arg) {
    load_job *j = arg;
    for (;;) {
        size_t r = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
        if (r >= j->m->nshards || __atomic_load_n(&j->failed, __ATOMIC_RELAXED)) return NULL;
        if (!bb__model_ring_load(j->m, r)) __atomic_store_n(&j->failed, true, __ATOMIC_RELAXED);
    }
}

/* Walk every ring on up to `threads` threads (the caller's one of them; fewer when threads
 * cannot be had), then join their sources in ring order: the model is the same whatever the
 * count. False on allocation failure. */
static bool load_rings(bb_model *m, unsigned threads) {
    load_job j = {m, 0, false};
    pthread_t tid[MODEL_MAX_THREADS];
    unsigned started = 0;
    if (threads > MODEL_MAX_THREADS) threads = MODEL_MAX_THREADS;
    while (started + 1 < threads && started + 1 < m->nshards &&
           pthread_create(&tid[started], NULL, load_some, &j) == 0)
        started++;
    load_some(&j);
    for (unsigned k = 0; k < started; k++) pthread_join(tid[k], NULL);
    if (j.failed) return false;
    for (size_t r = 0; r < m->nshards; r++) {
        if (!bb__model_ring_join(m, r)) return false;
        m->record_count += m->shards[r].n;
    }
    return true;
}

/* How much of each ring of a mapped dump the walk leaves warm for the merge (model_cache.h):
 * nothing is cooled while the rings fit in half the memory, nor ever in a dump held in memory. */
static void set_keep(bb_model *m) {
    uint64_t bytes = 0;
    size_t n = 0;
    for (size_t r = 0; r < m->nshards; r++)
        if (m->shards[r].dump->map) {
            bytes += m->shards[r].shard->capacity;
            n++;
        }
    uint64_t keep = bb__model_cache_keep(bytes, n);
    for (size_t r = 0; r < m->nshards; r++) m->shards[r].keep = m->shards[r].dump->map ? keep : 0;
}

/* Load every ring of every input and compute the record count after de-duplication. False on
 * allocation failure. */
static bool build_rings(bb_model *m, unsigned threads) {
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
                mshard *s = &m->shards[m->nshards];
                s->dump = m->dumps[d];
                s->shard = &in->shards[k];
                s->inst = in;
                s->input = d;
                m->nshards++;
            }
        }
    set_keep(m);
    if (!load_rings(m, threads)) return false;
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
            if (bb__model_iter_open(m, order + g, e - g, &it) != BB_OK) {
                ok = false;
                break;
            }
            uint64_t kept = 0, all = 0;
            size_t r;
            uint64_t pos;
            const bb_rschema *ev;
            const uint8_t *payload;
            while (bb__model_iter_step(it, &r, &pos, &ev, &payload)) kept++;
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
    return bb_model_open_threads(dumps, n, dedup, 1, out, err);
}

bb_status bb_model_open_threads(bb_dump *const *dumps, size_t n, bool dedup, unsigned threads,
                                bb_model **out, bb_error *err) {
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
    if (!build_registry(m) || !build_instances_views(m) || !build_rings(m, threads)) {
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
        for (size_t i = 0; i < m->nshards; i++) {
            free(m->shards[i].locs);
            free(m->shards[i].own);
        }
    free(m->shards);
    free(m->srcs);
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

uint64_t bb_model_input_newest(const bb_model *m, size_t input) {
    uint64_t ts = 0;
    for (size_t r = 0; r < m->nshards; r++)
        if (m->shards[r].input == input && m->shards[r].newest > ts) ts = m->shards[r].newest;
    return ts;
}
