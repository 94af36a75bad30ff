/* model_iter.c — the model's iterator: a merge (a tree of losers) of every ring's ordered
 * sources (model_priv.h) by (ts, instance_id, shard_id, offset, ring order), so for equal keys
 * the first input's copy comes first and a duplicate (equal key to the previous record) is
 * dropped.
 *
 * Each source keeps its next record's position and schema; a run advances by the record's frame
 * length, a sorted-locator ring by one locator. The tree keeps each match's loser with its
 * timestamp, so the winner's next record is compared once per level, mostly on the timestamp in
 * the node. A run is read through a small staging buffer of its own: its next bytes are copied
 * in at once and its keys are read from there (see STAGE_BYTES); records are handed out from the
 * mapping (fields that stay put for the model's life), a wrapping one from a copy; their lines are
 * asked for when the record enters the tree, and each staged run's next 2 MiB are mapped ahead
 * (read_ahead: a dump larger than the memory), and what it left behind is marked cold
 * (cool_behind). A transient iterator (model_transient.h) hands the fields out from the staging
 * buffer instead, and moves the source on at the next call. Memory is per source (a key, a
 * position, a leaf and a node of the tree, a staging buffer within a fixed total), not per
 * record; iterators share nothing.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backbeat/detail/frame.h"
#include "read/madv.h"
#include "read/model_cache.h"
#include "read/model_priv.h"
#include "read/model_transient.h"
#include "read/reader_priv.h"

typedef struct mkey {
    uint64_t ts;
    uint64_t instance_id;
    uint32_t shard_id;
    uint32_t offset;
    size_t ring; /* index into model->shards: input order, then file order */
} mkey;

/* A source's position: its current record (payload position, schema, and its payload in the
 * staging buffer or NULL), where the next one is, and what the staging buffer holds. */
typedef struct isrc {
    uint64_t at;  /* next record: run: absolute payload position; locators: index into locs */
    uint64_t pos; /* absolute payload position of the current record */
    const bb_rschema *ev;
    const uint8_t *p; /* the current record's payload in the staging buffer, or NULL */
    uint64_t sbase;   /* ring position of the staging buffer's first byte */
    uint32_t slen;    /* bytes it holds */
    uint64_t ra;      /* ring position up to which read-ahead was asked for */
    uint64_t cool;    /* ring position below which it was marked cold (model_cache.h) */
    bool done;        /* exhausted: its key sorts after every record */
} isrc;

/* A node of the tree of losers: the loser's key timestamp (the winner's in node 0) and its
 * leaf. Most comparisons end on the timestamp, read from the node itself. */
typedef struct tnode {
    uint64_t ts;
    size_t leaf;
} tnode;

/* Staging buffers, in total, and each one's bounds. The merge visits a source once every so
 * many records; with many rings the hardware prefetcher no longer follows every stream, and
 * rings written at the same rate sit at the same offsets of regions a power of two apart, so
 * their next records share the cache's sets and evict each other before they are read. A record
 * read from the ring at each visit then cost a miss to memory (issue 37). Copying a run's next
 * bytes at once costs one miss for several records, and the buffers, side by side in one
 * allocation, stay in the cache. Below STAGE_MIN bytes a source (so many sources) reads the
 * mapping directly, as a ring of sorted locators always does. */
#define STAGE_BYTES ((size_t)1 << 20)
#define STAGE_MAX 4096
#define STAGE_MIN 256

/* Read-ahead of a staged run (read_ahead): the next RA_BYTES (one 2 MiB page of the mapping,
 * advise_huge in reader.c) are mapped at a time, once its staging comes within half of that of
 * where the last request ended. */
#define RA_BYTES ((uint64_t)2 << 20)

#define SCHEMA_CACHE 64 /* slots of the iterator's id -> schema cache (ids are hashes) */

struct bb_model_iter {
    const bb_model *m;
    struct {
        uint64_t id;
        const bb_dump *dump;
        const bb_rschema *ev;
    } sc[SCHEMA_CACHE]; /* in front of bb_dump_find_schema: records of a few events interleave */
    size_t *leaf;       /* leaf -> source index (the sources that had records) */
    size_t nleaf;
    tnode *node;    /* node[0]: the winner; node[1, nleaf): losers; [nleaf, 3 nleaf): scratch */
    mkey *keys;     /* per source: key of its next record */
    isrc *st;       /* per source */
    uint8_t *stage; /* per source: `chunk` bytes, or NULL */
    size_t chunk;
    size_t page;      /* the page size, for madvise */
    bool no_populate; /* MADV_POPULATE_READ refused (EINVAL): MADV_WILLNEED instead */
    bool transient;   /* bb__model_iter_transient: fields from the staging buffers */
    bool popped;      /* the winner was handed out: move it on at the next step */
    bool have_prev;
    mkey prev;
    uint8_t buf[65536]; /* the one wrapping payload, reassembled */
};

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

/* The schema of event `id` in dump d, through the iterator's cache; NULL if d has none. */
static inline const bb_rschema *find_schema(bb_model_iter *it, const bb_dump *d, uint64_t id) {
    size_t slot = (size_t)(id ^ (id >> 32)) & (SCHEMA_CACHE - 1);
    if (it->sc[slot].ev && it->sc[slot].id == id && it->sc[slot].dump == d) return it->sc[slot].ev;
    const bb_rschema *ev = bb_dump_find_schema(d, id);
    if (ev) {
        it->sc[slot].id = id;
        it->sc[slot].dump = d;
        it->sc[slot].ev = ev;
    }
    return ev;
}

/* Map the next RA_BYTES of a run (up to its end, or the region's physical end) with one
 * madvise(MADV_POPULATE_READ) once its staging is within half of that of where the last request
 * ended. A dump larger than the memory is read from the disk again by the merge (issue 37: 1 B
 * records, 668 rings, 45 GB). Populated, its pages come in through the fault path, in the 2 MiB
 * folios the mapping asks for (advise_huge), mapped whole, and the kernel reads the next ones
 * ahead; MADV_WILLNEED (before) read them in 4 KiB folios, 16 mapped at a fault (a cold 448 MiB
 * dump: 7 246 faults, no 2 MiB mapping and twice the CPU time against 303 faults, every page
 * mapped whole; docs/PERFORMANCE.md, issue 37 third pass). A kernel without MADV_POPULATE_READ
 * (before 5.14: EINVAL) gets MADV_WILLNEED as before. The pages of a dump in the page cache are
 * mapped at once. */
static void read_ahead(bb_model_iter *it, isrc *st, const bb_rshard *sh, uint64_t pos,
                       uint64_t end) {
    if (st->ra >= end || st->ra > pos + RA_BYTES / 2) return;
    uint64_t from = st->ra > pos ? st->ra : pos;
    size_t at = (size_t)from & (size_t)(sh->capacity - 1);
    uint64_t len = RA_BYTES;
    if (len > sh->capacity - at) len = sh->capacity - at;
    if (len > end - from) len = end - from;
    const uint8_t *p = sh->region + at;
    st->ra = from + len;
    if (!it->no_populate) {
        if (bb__madv_pages(p, (size_t)len, it->page, MADV_POPULATE_READ) == 0 || errno != EINVAL)
            return;
        it->no_populate = true;
    }
    (void)bb__madv_pages(p, (size_t)len, it->page, MADV_WILLNEED);
}

/* A run of a dump larger than the memory (keep != 0) marks cold what lies a read-ahead's length
 * behind it, in whole 2 MiB pages: the kernel drops those first (model_cache.c). */
static void cool_behind(isrc *st, const mshard *s, uint64_t pos) {
    if (!s->keep || pos < st->cool + 2 * RA_BYTES) return;
    uint64_t to = bb__model_cache_floor(s->shard, pos - RA_BYTES);
    bb__model_cache_cool(s->shard, st->cool, to);
    st->cool = to;
}

/* Copy source `si`'s bytes from ring position `pos` on (up to its end) into its staging
 * buffer. */
static void stage_fill(bb_model_iter *it, size_t si, const bb_rshard *sh, uint64_t pos) {
    isrc *st = &it->st[si];
    read_ahead(it, st, sh, pos, it->m->srcs[si].end);
    cool_behind(st, &it->m->shards[it->m->srcs[si].ring], pos);
    uint64_t left = it->m->srcs[si].end - pos;
    size_t n = left < it->chunk ? (size_t)left : it->chunk;
    bb__shard_copy(sh, pos, it->stage + si * it->chunk, n);
    st->sbase = pos;
    st->slen = (uint32_t)n;
}

/* Payload of a run's record at `pos` in the staging buffer, filling it first if the record's
 * head is not there; NULL when there is no staging or the record is longer than the buffer. */
static const uint8_t *staged(bb_model_iter *it, size_t si, const bb_rshard *sh, uint64_t pos,
                             size_t len) {
    isrc *st = &it->st[si];
    if (pos < st->sbase || pos + len > st->sbase + st->slen) {
        if (len > it->chunk) return NULL;
        stage_fill(it, si, sh, pos);
    }
    return it->stage + si * it->chunk + (pos - st->sbase);
}

/* Key and schema of source `si`'s record at st->at, which becomes its current one. False if
 * the source is exhausted (or its id is not registered: impossible for what the walk
 * accepted). */
static bool load_key(bb_model_iter *it, size_t si) {
    const msrc *src = &it->m->srcs[si];
    const mshard *s = &it->m->shards[src->ring];
    isrc *st = &it->st[si];
    if (st->at >= src->end) return false;
    const bb_rshard *sh = s->shard;
    uint64_t pos = s->locs ? s->low + s->locs[st->at] : st->at;
    const uint8_t *p = it->stage && !s->locs ? staged(it, si, sh, pos, BB__FRAME_HEAD) : NULL;
    uint64_t id = p ? bb__le_get_u64(p + BB__FRAME_ID) : bb__ring_u64(sh, pos + BB__FRAME_ID);
    const bb_rschema *ev = st->ev && st->ev->id == id ? st->ev : find_schema(it, s->dump, id);
    if (!ev) return false;
    size_t len = BB__FRAME_HEAD + (size_t)ev->record_size;
    if (p) p = staged(it, si, sh, pos, len);
    st->ev = ev;
    st->pos = pos;
    st->p = p;
    st->at = s->locs ? st->at + 1 : pos + len + BB__FRAME_TRAILER;
    mkey *k = &it->keys[si];
    size_t at = (size_t)pos & (size_t)(sh->capacity - 1);
    k->ts = p ? bb__le_get_u64(p + BB__FRAME_TS) : bb__ring_u64(sh, pos + BB__FRAME_TS);
    k->instance_id = sh->instance_id;
    k->shard_id = sh->shard_id;
    k->offset = at + len > sh->capacity ? BB__MODEL_WRAP_OFFSET : (uint32_t)at;
    k->ring = src->ring;
    if (p && !it->transient) {
        /* Its fields will be handed out from the mapping, where with many rings they are no
         * longer in the cache (the same sets hold every ring's next record): asked for now,
         * while other sources' records go out, rather than when this one wins (one record
         * ahead, as before: 200 M records, 134 rings, 38.3 s of CPU against 41.4 s). */
        size_t mask = (size_t)(sh->capacity - 1);
        __builtin_prefetch(sh->region + ((pos + BB__FRAME_HEAD) & mask));
        __builtin_prefetch(sh->region + ((pos + len - 1) & mask));
    }
    return true;
}

/* The order of two nodes' sources: by timestamp, then by the whole key; exhausted ones last. */
static inline bool node_less(const bb_model_iter *it, tnode a, tnode b) {
    if (a.ts != b.ts) return a.ts < b.ts;
    size_t sa = it->leaf[a.leaf], sb = it->leaf[b.leaf];
    bool da = it->st[sa].done, db = it->st[sb].done;
    if (da || db) return da && db ? a.leaf < b.leaf : db;
    return key_less(&it->keys[sa], &it->keys[sb]);
}

/* The node of leaf l's source with its current key. */
static inline tnode leaf_node(const bb_model_iter *it, size_t l) {
    size_t si = it->leaf[l];
    return (tnode){it->st[si].done ? UINT64_MAX : it->keys[si].ts, l};
}

/* Play every match: the loser of each stays in its node, the winner goes on up. */
static void tree_build(bb_model_iter *it) {
    size_t k = it->nleaf;
    tnode *w = it->node + k; /* scratch: w[j] the winner of subtree j, the leaves at w[k + l] */
    for (size_t l = 0; l < k; l++) w[k + l] = leaf_node(it, l);
    for (size_t j = k - 1; j >= 1; j--) {
        tnode a = w[2 * j], b = w[2 * j + 1];
        bool al = node_less(it, a, b);
        it->node[j] = al ? b : a;
        w[j] = al ? a : b;
    }
    it->node[0] = w[1];
}

/* The winner's source has a new key (or none): replay its matches from its leaf to the root. */
static void tree_replay(bb_model_iter *it) {
    tnode cur = leaf_node(it, it->node[0].leaf);
    for (size_t j = (it->nleaf + cur.leaf) >> 1; j >= 1; j >>= 1) {
        if (node_less(it, it->node[j], cur)) {
            tnode t = it->node[j];
            it->node[j] = cur;
            cur = t;
        }
    }
    it->node[0] = cur;
}

/* Put source `si` at its start and into the tree if it has a record. */
static void add_source(bb_model_iter *it, size_t si) {
    uint64_t start = it->m->srcs[si].start;
    it->st[si] = (isrc){start, 0, NULL, NULL, 0, 0, 0, start, false};
    if (load_key(it, si)) it->leaf[it->nleaf++] = si;
}

bb_status bb__model_iter_open(const bb_model *m, const size_t *rings, size_t nrings,
                              bb_model_iter **out) {
    bb_model_iter *it = calloc(1, sizeof *it);
    size_t n = m->nsrcs ? m->nsrcs : 1;
    if (it) {
        it->leaf = malloc(n * sizeof *it->leaf);
        it->node = malloc(3 * n * sizeof *it->node);
        it->keys = malloc(n * sizeof *it->keys);
        it->st = malloc(n * sizeof *it->st);
        size_t chunk = STAGE_BYTES / n / 64 * 64;
        it->chunk = chunk > STAGE_MAX ? STAGE_MAX : chunk;
        if (it->chunk >= STAGE_MIN && m->nsrcs) it->stage = malloc(n * it->chunk);
    }
    if (!it || !it->leaf || !it->node || !it->keys || !it->st ||
        (it->chunk >= STAGE_MIN && m->nsrcs && !it->stage)) {
        bb_model_iter_free(it);
        return BB_ERR_NOMEM;
    }
    it->m = m;
    long page = sysconf(_SC_PAGESIZE);
    it->page = page > 0 ? (size_t)page : 4096;
    if (!rings) {
        for (size_t si = 0; si < m->nsrcs; si++) add_source(it, si);
    } else {
        for (size_t i = 0; i < nrings; i++) {
            const mshard *s = &m->shards[rings[i]];
            for (size_t si = s->src0; si < s->src0 + s->nsrc; si++) add_source(it, si);
        }
    }
    if (it->nleaf) tree_build(it);
    *out = it;
    return BB_OK;
}

/* Move the winner's source past its current record. */
static void pop_winner(bb_model_iter *it) {
    size_t si = it->leaf[it->node[0].leaf];
    if (!load_key(it, si)) it->st[si].done = true;
    tree_replay(it);
}

bool bb__model_iter_step(bb_model_iter *it, size_t *ring, uint64_t *pos, const bb_rschema **schema,
                         const uint8_t **payload) {
    const bb_model *m = it->m;
    /* bb_model_next reads the record handed out last from its source's staging buffer: the
     * source moves on (and may refill it) only now. */
    if (it->popped) pop_winner(it);
    it->popped = false;
    while (it->nleaf) {
        size_t si = it->leaf[it->node[0].leaf];
        if (it->st[si].done) return false;
        const mkey *k = &it->keys[si];
        if (m->dedup && it->have_prev && key_same_record(k, &it->prev)) {
            pop_winner(it);
            continue;
        }
        it->prev = *k;
        it->have_prev = true;
        it->popped = true;
        *ring = k->ring;
        *pos = it->st[si].pos;
        *schema = it->st[si].ev;
        *payload = it->st[si].p;
        return true;
    }
    return false;
}

bb_status bb_model_iter_new(const bb_model *m, bb_model_iter **out) {
    if (!m || !out) return BB_ERR_INVALID;
    return bb__model_iter_open(m, NULL, 0, out);
}

/* The record is built: move its source on now. */
static void move_on(bb_model_iter *it) {
    if (!it->popped) return;
    pop_winner(it);
    it->popped = false;
}

bool bb_model_next(bb_model_iter *it, bb_mrecord *out) {
    size_t r;
    uint64_t pos;
    const bb_rschema *ev;
    const uint8_t *p;
    while (bb__model_iter_step(it, &r, &pos, &ev, &p)) {
        const mshard *s = &it->m->shards[r];
        if (p) {
            /* The key from the staging buffer; the fields from the mapping, where they stay put
             * for the model's life (the Parquet writer's batches rely on that: table_par.c), but
             * for the one record that wraps, copied as bb__ring_record_at does; from the staging
             * buffer for a transient iterator. */
            const bb_rshard *sh = s->shard;
            size_t at = (size_t)pos & (size_t)(sh->capacity - 1);
            size_t len = BB__FRAME_HEAD + (size_t)ev->record_size;
            bool wraps = at + len > sh->capacity;
            if (wraps) memcpy(it->buf, p, len);
            const uint8_t *fields = wraps           ? it->buf + BB__FRAME_HEAD
                                    : it->transient ? p + BB__FRAME_HEAD
                                                    : sh->region + at + BB__FRAME_HEAD;
            out->rec = (bb_record){.ts = bb__le_get_u64(p + BB__FRAME_TS),
                                   .event_id = ev->id,
                                   .schema = ev,
                                   .fields = fields,
                                   .instance_id = sh->instance_id,
                                   .shard_id = sh->shard_id,
                                   .offset = wraps ? BB__MODEL_WRAP_OFFSET : (uint32_t)at,
                                   .position = pos};
        } else if (!bb__ring_record_at(s->dump, s->shard, pos, it->buf, &ev, &out->rec)) {
            continue;
        }
        out->instance = s->inst;
        out->input = s->input;
        if (!it->transient) move_on(it); /* else at the next call: its fields are staged */
        return true;
    }
    return false;
}

void bb__model_iter_transient(bb_model_iter *it) {
    if (it) it->transient = true;
}

void bb_model_iter_free(bb_model_iter *it) {
    if (!it) return;
    free(it->leaf);
    free(it->node);
    free(it->keys);
    free(it->st);
    free(it->stage);
    free(it);
}
