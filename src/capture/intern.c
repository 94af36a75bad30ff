/* intern.c — the recorder's intern table: strings -> u32 ids, lock-free, bounded, readable from
 * the crash path without locks, recycled in generations so that a long-running process keeps
 * resolving the strings its rings still name (docs/guide/instrument.md).
 *
 * A generation's layout: `entries` (append-only, reserved by CAS on used_entries), `arena`
 * (string bytes, reserved by CAS on used_bytes) and `slots`, an open-addressing hash set of entry
 * numbers with twice as many slots as entries (so probing always ends). An insert prepares its
 * entry fully (bytes, then off/len/hash, then `ready` with release) before publishing it in a
 * slot with a CAS; a lookup that loses the CAS race to an equal string returns the winner's id
 * and leaves its own entry as a harmless duplicate (same bytes, unused id).
 *
 * Generations: a lookup probes the current generation only (one hash set, as a single table
 * would); a string of an older one is interned again there (a new id), so hot strings never
 * die. When the current generation is full, one thread (a try-lock, `advancing`; the others
 * wait a little, then answer BB_INTERN_FULL_ID) starts the next one in a free storage, else in
 * that of the oldest generation no record still in the rings names: the records that may name
 * a generation's ids are those written from its start until the start of the generation two
 * after it (one generation of grace for an id obtained just before a switch and recorded just
 * after); a shard that has not wrapped past them is read once (off the hot path: the registry's
 * schemas say which fields are interned), and only a record naming one of its ids, or one still
 * in flight there, keeps it. So a quiet shard holds back at most the generations its records
 * name, and the others keep recycling. The new generation notes each ring's head as its start,
 * is published, then the recorder's serial changes so that call-site caches (BB_INTERN) miss.
 * A dump pins the table (no recycling meanwhile: the writer reads the entries twice) and skips
 * a generation being recycled (no record in the rings names it). Ids grow by gen_entries per
 * generation; once the next would reach the last gen_entries ids below 2^32 (a ring file
 * reader's, for strings it adds) the table fills for good. Id 0 is BB_INTERN_FULL_ID. A ring
 * file's table also keeps its generation table in the file (intern_ring.c). */
/* SPDX-License-Identifier: MIT */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/intern_advice.h"
#include "capture/recorder_internal.h"
#include "capture/registry_internal.h"
#include "format/ring_cut.h"

static uint32_t next_serial = 1; /* atomic: recorder serials, the keys of call-site caches */

/* Contract: see recorder_internal.h. */
uint32_t bb__serial_next(void) {
    uint32_t s = __atomic_fetch_add(&next_serial, 1, __ATOMIC_RELAXED);
    return s ? s : __atomic_fetch_add(&next_serial, 1, __ATOMIC_RELAXED);
}

static uint32_t round_pow2(uint32_t v) {
    uint32_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

/* Generations for a table of `entries` strings and `bytes` bytes: 16, 8 or 4 (a power of two: the
 * hot path masks, never divides), each of at least 512 entries and 64 KiB (so that any string
 * fits an empty one); else a single generation that fills for good. */
static uint32_t gens_for(uint32_t entries, uint32_t bytes) {
    uint32_t g = entries / 512, gb = bytes / 65536;
    if (g > gb) g = gb;
    return g >= 16 ? 16 : g >= 8 ? 8 : g >= 4 ? 4 : 1;
}

static bb_status layout(bb__intern_table *t, uint32_t entries, uint32_t bytes, uint32_t ngens) {
    memset(t, 0, sizeof *t);
    if (entries == 0 || entries > (1u << 28) || bytes == 0) return BB_ERR_INVALID;
    t->cap_entries = entries;
    t->cap_bytes = bytes;
    t->ngens = ngens;
    t->gen_entries = entries / ngens;
    t->gen_bytes = bytes / ngens;
    t->slot_mask = round_pow2(t->gen_entries) * 2 - 1;
    for (uint32_t g = 0; g < BB__INTERN_GENS; g++) t->gens[g].gen = BB__INTERN_GEN_FREE;
    t->gens[0].gen = 0;
    return BB_OK;
}

/* Point generation g's arrays into the table-wide blocks (`pos`: 3 per-shard arrays a
 * generation, start, stop and pin, then the table's heads; NULL in one generation). */
static void carve(bb__intern_table *t, uint32_t *slots, bb__intern_entry *entries, uint8_t *arena,
                  uint64_t *pos, uint32_t shards) {
    for (uint32_t g = 0; g < t->ngens; g++) {
        t->gens[g].slots = slots + (size_t)g * (t->slot_mask + 1);
        t->gens[g].entries = entries + (size_t)g * t->gen_entries;
        t->gens[g].arena = arena + (size_t)g * t->gen_bytes;
        t->gens[g].start = pos ? pos + (size_t)g * 3 * shards : NULL;
        t->gens[g].stop = pos ? t->gens[g].start + shards : NULL;
        t->gens[g].pin = pos ? t->gens[g].stop + shards : NULL;
    }
    t->heads = pos ? pos + (size_t)t->ngens * 3 * shards : NULL;
}

/* Allocate the table's hash slots and, with generations, its per-shard positions and the
 * registry snapshot of its scans; point the generations into them and `ents`/`arena`. */
static bb_status attach(bb__intern_table *t, struct bb__recorder_hot *hot, bb__intern_entry *ents,
                        uint8_t *arena) {
    uint32_t ngens = t->ngens, shards = hot ? hot->shard_count : 0;
    uint32_t *slots = calloc((size_t)(t->slot_mask + 1) * ngens, sizeof *slots);
    uint64_t *pos = ngens > 1 ? calloc((size_t)shards * (3 * ngens + 1), sizeof *pos) : NULL;
    const bb_event_desc **events = ngens > 1 ? calloc(BB_SIG_MAX_EVENTS, sizeof *events) : NULL;
    if (!slots || (ngens > 1 && (!pos || !events))) {
        free(slots);
        free(pos);
        free(events);
        return BB_ERR_NOMEM;
    }
    carve(t, slots, ents, arena, pos, shards);
    t->events = events;
    t->hot = ngens > 1 ? hot : NULL;
    return BB_OK;
}

/* Contract: see recorder_internal.h. */
bb_status bb__intern_table_init(bb__intern_table *t, uint32_t entries, uint32_t bytes,
                                struct bb__recorder_hot *hot) {
    bb_status st = layout(t, entries, bytes, hot ? gens_for(entries, bytes) : 1);
    if (st != BB_OK) return st;
    bb__intern_entry *ents = calloc(entries, sizeof *ents);
    uint8_t *arena = malloc(bytes);
    if (!ents || !arena || attach(t, hot, ents, arena) != BB_OK) {
        free(ents);
        free(arena);
        return BB_ERR_NOMEM;
    }
    return BB_OK;
}

/* Contract: see recorder_internal.h. */
bb_status bb__intern_table_init_at(bb__intern_table *t, uint32_t entries, uint32_t bytes,
                                   void *entry_mem, void *arena_mem, uint32_t *full_mirror,
                                   struct bb__recorder_hot *hot, uint8_t *gen_mirror) {
    uint32_t ngens = hot ? gens_for(entries, bytes) : 1;
    if (ngens > BB__INTERN_FILE_GENS) ngens = BB__INTERN_FILE_GENS; /* the file's table's */
    bb_status st = layout(t, entries, bytes, ngens);
    if (st != BB_OK) return st;
    t->external = true;
    t->full_mirror = full_mirror;
    if (attach(t, hot, entry_mem, arena_mem) != BB_OK) return BB_ERR_NOMEM;
    t->gen_mirror = gen_mirror;
    for (uint32_t g = 0; gen_mirror && g < BB__INTERN_FILE_GENS; g++) bb__intern_mirror(t, g);
    return BB_OK;
}

/* Contract: free the table's memory (idempotent). */
void bb__intern_table_destroy(bb__intern_table *t) {
    bb__intern_gen *g0 = &t->gens[0];
    free(g0->slots);
    free(g0->start);
    free(t->events);
    t->events = NULL;
    t->heads = NULL;
    if (!t->external) {
        free(g0->entries);
        free(g0->arena);
    }
    for (uint32_t g = 0; g < BB__INTERN_GENS; g++) {
        t->gens[g].slots = NULL;
        t->gens[g].entries = NULL;
        t->gens[g].arena = NULL;
        t->gens[g].start = t->gens[g].stop = t->gens[g].pin = NULL;
    }
}

static uint32_t hash32(const uint8_t *p, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

/* Reserve `n` units of the counter `*used` bounded by `cap`; returns the start or UINT32_MAX. */
static uint32_t reserve(uint32_t *used, uint32_t cap, uint32_t n) {
    uint32_t cur = __atomic_load_n(used, __ATOMIC_RELAXED);
    do {
        if (n > cap || cur > cap - n) return UINT32_MAX;
    } while (!__atomic_compare_exchange_n(used, &cur, cur + n, true, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    return cur;
}

static uint32_t full(bb__intern_table *t) {
    __atomic_store_n(&t->full_used, 1, __ATOMIC_RELEASE);
    if (t->full_mirror) __atomic_store_n(t->full_mirror, 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&t->full_count, 1, __ATOMIC_RELAXED);
    return BB_INTERN_FULL_ID;
}

/* The slot hash of a lookup: 8 bytes a step (a multiply-xorshift per word), so that a repeated
 * key costs a few ns, not one dependent multiply per byte. Entries keep FNV-1a (the ring-file
 * format's check of their bytes), computed once when a string is inserted. */
static uint32_t slot_hash(const uint8_t *p, size_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    if (i < n) {
        w = 0;
        memcpy(&w, p + i, n - i);
        h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    return (uint32_t)(h ^ (h >> 33));
}

static bool same(const bb__intern_table *t, const bb__intern_gen *g, const bb__intern_entry *e,
                 const void *bytes, size_t len) {
    return e->len == len && e->off <= t->gen_bytes - len && /* never outside its arena */
           memcmp(g->arena + e->off, bytes, len) == 0;
}

/* Prepare an entry of `g` for the string; its index, or UINT32_MAX when `g` is full. */
static uint32_t prepare(const bb__intern_table *t, bb__intern_gen *g, const void *bytes,
                        size_t len) {
    uint32_t off = reserve(&g->used_bytes, t->gen_bytes, (uint32_t)len);
    if (off == UINT32_MAX) return UINT32_MAX;
    uint32_t i = reserve(&g->used_entries, t->gen_entries, 1);
    if (i == UINT32_MAX) return UINT32_MAX; /* the bytes stay reserved: bounded */
    bb__intern_entry *e = &g->entries[i];
    if (len) memcpy(g->arena + off, bytes, len);
    e->off = off;
    e->len = (uint32_t)len;
    e->hash = hash32(bytes, len);
    __atomic_store_n(&e->ready, 1, __ATOMIC_RELEASE);
    return i;
}

/* Find the string in generation `g` (slot hash `h`), inserting it when `insert`: its id, or 0
 * (not found, or `g` full). */
static inline __attribute__((always_inline)) uint32_t gen_put(const bb__intern_table *t,
                                                              bb__intern_gen *g, uint32_t h,
                                                              const void *bytes, size_t len,
                                                              bool insert) {
    uint32_t mine = UINT32_MAX; /* our prepared entry, once made */
    for (uint32_t probe = 0; probe <= t->slot_mask; probe++) {
        uint32_t *slot = &g->slots[(h + probe) & t->slot_mask];
        uint32_t v = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        if (v == 0) {
            if (!insert) return 0;
            if (mine == UINT32_MAX && (mine = prepare(t, g, bytes, len)) == UINT32_MAX) return 0;
            uint32_t expect = 0;
            if (__atomic_compare_exchange_n(slot, &expect, mine + 1, false, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE))
                return __atomic_load_n(&g->id_base, __ATOMIC_RELAXED) + mine + 1;
            v = expect; /* someone else published here first */
        }
        if (v <= t->gen_entries && same(t, g, &g->entries[v - 1], bytes, len))
            return __atomic_load_n(&g->id_base, __ATOMIC_RELAXED) + v;
    }
    return 0;
}

/* Reading a ring for the records that name a generation's ids (scan): the schemas of the
 * registry's snapshot in `t->events`, the generation's id range. */
typedef struct scan_ctx {
    const bb__intern_table *t;
    size_t nev, hint;
    const uint8_t *ring;
    uint64_t cap;
    uint32_t lo, n; /* ids lo + 1 .. lo + n */
    uint64_t found; /* end of the newest record naming one, 0 when none yet */
} scan_ctx;

static const bb_event_desc *scan_desc(scan_ctx *c, uint64_t id) {
    const bb_event_desc *const *ev = c->t->events;
    if (c->hint < c->nev && ev[c->hint]->id == id) return ev[c->hint];
    for (size_t k = 0; k < c->nev; k++)
        if (ev[k]->id == id) {
            c->hint = k;
            return ev[k];
        }
    return NULL;
}

static int32_t scan_size(void *vctx, uint64_t id) {
    const bb_event_desc *d = scan_desc(vctx, id);
    return d ? (int32_t)d->record_size : -1;
}

/* A record of the walk: stop at the first (newest) one with an interned field in the range. */
static bool scan_visit(void *vctx, uint64_t start, uint64_t end) {
    scan_ctx *c = vctx;
    uint64_t id;
    bb__ring_read(c->ring, c->cap, start + BB__FRAME_ID, &id, 8);
    const bb_event_desc *d = scan_desc(c, id);
    for (uint16_t i = 0; d && i < d->field_count; i++) {
        const bb_field_desc *f = &d->fields[i];
        if (f->type != BB_TYPE_INTERNED || f->width != 4) continue;
        uint32_t v;
        bb__ring_read(c->ring, c->cap, start + BB__FRAME_HEAD + f->offset, &v, 4);
        if (v - c->lo - 1 < c->n) {
            c->found = end;
            return true;
        }
    }
    return false;
}

/* The end of the newest record of shard s in [start, stop) of generation g that names one of
 * its ids (or may), 0 when none. Records below the ring's last lap are gone and name nothing.
 * Off the hot path: once per generation and shard, when that shard has not wrapped past the
 * generation's records. The ring is read while writers may lap it (format/ring_cut.c says how
 * that race is kept safe): every read is masked into the ring and checked, and a value torn by
 * a lapping writer only lies below the lap's bottom, whose records are gone anyway; what the
 * walk cannot vouch for answers `stop` (kept until the ring wraps past the window): a record
 * still in flight in the window (its bytes may be an older lap's, whose suffix could carry the
 * walk past real records below it), too many in flight, no schemas, no rings. */
static uint64_t scan(const bb__intern_table *t, const bb__intern_gen *g, uint32_t s) {
    const struct bb__recorder_hot *h = t->hot;
    uint64_t a = g->start[s], b = g->stop[s], cap = h->capacity;
    if (!h->ring_of || !t->events) return b;
    bb__inflight fl[32];
    int budget = 0; /* never waits: an announcement not yet reserved lands above b */
    size_t nfl = bb__inflight_collect(h, s, b, fl, 32, &budget);
    if (nfl == 32) return b;
    size_t nev = bb__registry_snapshot_dump(t->events, BB_SIG_MAX_EVENTS);
    if (nev > BB_SIG_MAX_EVENTS) return b;
    uint64_t head = __atomic_load_n(&h->cursors[s].head, __ATOMIC_ACQUIRE);
    uint64_t low = head > cap ? head - cap : 0;
    if (low < a) low = a;
    for (size_t k = 0; k < nfl; k++)
        if (fl[k].pos < b && fl[k].pos + fl[k].len > low) return b;
    scan_ctx c = {t, nev, 0, h->ring_of[s], cap, g->id_base, t->gen_entries, 0};
    if (b > low) bb__ring_walk_each(c.ring, cap, low, b, scan_size, &c, scan_visit, &c);
    return c.found;
}

/* True when no record still in the rings can name an id of generation g: in every shard, no
 * record written from its start to the start of generation gen + 2 (one generation of grace for
 * an id obtained just before a switch and recorded just after) names one, or the ring has
 * wrapped past the newest that does. A shard is read once per generation (the answer is kept
 * in g->pin), and only if it has not wrapped past that whole window. */
static bool wrapped(const bb__intern_table *t, bb__intern_gen *g) {
    const struct bb__recorder_hot *h = t->hot;
    for (uint32_t s = 0; s < h->shard_count; s++) {
        if (g->start[s] == g->stop[s]) continue;
        uint64_t head = __atomic_load_n(&h->cursors[s].head, __ATOMIC_ACQUIRE);
        if (head >= g->stop[s] + h->capacity) continue;
        if (g->pin[s] == BB__INTERN_PIN_UNKNOWN) g->pin[s] = scan(t, g, s);
        if (g->pin[s] != 0 && head < g->pin[s] + h->capacity) return false;
    }
    return true;
}

enum { ADV_DONE, ADV_BUSY, ADV_NO };

/* Each ring's head into t->heads. */
static void read_heads(bb__intern_table *t) {
    for (uint32_t s = 0; s < t->hot->shard_count; s++)
        t->heads[s] = __atomic_load_n(&t->hot->cursors[s].head, __ATOMIC_ACQUIRE);
}

/* The slot of live generation n, or ngens. */
static uint32_t slot_of(const bb__intern_table *t, uint32_t n) {
    for (uint32_t i = 0; i < t->ngens; i++)
        if (__atomic_load_n(&t->gens[i].gen, __ATOMIC_ACQUIRE) == n) return i;
    return t->ngens;
}

/* The storage for the generation after k: a free one, else the oldest that is stopped and that
 * no record still in the rings names (recycled: BUSY, emptied), else ngens. */
static uint32_t pick_slot(bb__intern_table *t, uint32_t k) {
    uint32_t tried = 0; /* bit i: slot i looked at */
    for (;;) {
        uint32_t best = t->ngens, best_gen = UINT32_MAX;
        for (uint32_t i = 0; i < t->ngens; i++) {
            uint32_t n = __atomic_load_n(&t->gens[i].gen, __ATOMIC_ACQUIRE);
            if (n == BB__INTERN_GEN_FREE) return i;
            if (!(tried & (1u << i)) && n < k && t->gens[i].stopped && n < best_gen) {
                best = i;
                best_gen = n;
            }
        }
        if (best == t->ngens) return best;
        tried |= 1u << best;
        bb__intern_gen *g = &t->gens[best];
        if (!wrapped(t, g)) continue;
        __atomic_store_n(&g->gen, BB__INTERN_GEN_BUSY, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&t->pins, __ATOMIC_SEQ_CST)) { /* a dump reads it: not now */
            __atomic_store_n(&g->gen, best_gen, __ATOMIC_RELEASE);
            return t->ngens;
        }
        if (t->gen_mirror) bb__intern_mirror(t, best); /* BUSY in the file first */
        memset(g->slots, 0, sizeof *g->slots * ((size_t)t->slot_mask + 1));
        memset(g->entries, 0, sizeof *g->entries * t->gen_entries);
        __atomic_store_n(&g->used_entries, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&g->used_bytes, 0, __ATOMIC_RELAXED);
        __atomic_fetch_add(&t->retired, 1, __ATOMIC_RELAXED);
        return best;
    }
}

/* Start generation k + 1 (the caller holds `advancing`). */
static int advance_locked(bb__intern_table *t, uint32_t k) {
    if (__atomic_load_n(&t->cur, __ATOMIC_ACQUIRE) != k) return ADV_DONE;
    const bb__intern_gen *cur = &t->gens[__atomic_load_n(&t->cur_slot, __ATOMIC_ACQUIRE)];
    /* ids run out (their last share is left to a ring file's reader: ring_extra.c) */
    if (cur->id_base > UINT32_MAX - 3 * t->gen_entries) return ADV_NO;
    read_heads(t);
    uint32_t prev = k ? slot_of(t, k - 1) : t->ngens; /* its window ends where k + 1 begins */
    if (prev < t->ngens && !t->gens[prev].stopped) {
        bb__intern_gen *p = &t->gens[prev];
        memcpy(p->stop, t->heads, sizeof *p->stop * t->hot->shard_count);
        for (uint32_t s = 0; s < t->hot->shard_count; s++) p->pin[s] = BB__INTERN_PIN_UNKNOWN;
        p->stopped = 1;
    }
    uint32_t at = pick_slot(t, k);
    if (at == t->ngens) return ADV_NO;
    bb__intern_gen *g = &t->gens[at];
    __atomic_store_n(&g->id_base, cur->id_base + t->gen_entries, __ATOMIC_RELAXED);
    memcpy(g->start, t->heads, sizeof *g->start * t->hot->shard_count);
    g->stopped = 0;
    __atomic_store_n(&g->gen, k + 1, __ATOMIC_RELEASE);
    if (t->gen_mirror) bb__intern_mirror(t, at); /* before any of its ids is handed out */
    __atomic_store_n(&t->cur_slot, at, __ATOMIC_RELEASE);
    __atomic_store_n(&t->cur, k + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&t->hot->serial, bb__serial_next(), __ATOMIC_RELEASE);
    return ADV_DONE;
}

/* Try to start the generation after k (ADV_DONE: it or another thread did). */
static int advance(bb__intern_table *t, uint32_t k) {
    if (t->ngens == 1) return ADV_NO;
    uint32_t expect = 0;
    if (!__atomic_compare_exchange_n(&t->advancing, &expect, 1, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return ADV_BUSY;
    int r = advance_locked(t, k);
    __atomic_store_n(&t->advancing, 0, __ATOMIC_RELEASE);
    return r;
}

/* The table is full (no generation can be recycled): the string's id in an older live
 * generation if it has one, else 0. Pinned as a dump is, so that none is recycled meanwhile. */
static uint32_t find_old(bb__intern_table *t, uint32_t k, uint32_t h, const void *bytes,
                         size_t len) {
    uint32_t id = 0;
    __atomic_fetch_add(&t->pins, 1, __ATOMIC_SEQ_CST);
    for (uint32_t i = 0; !id && i < t->ngens; i++) {
        bb__intern_gen *g = &t->gens[i];
        if (__atomic_load_n(&g->gen, __ATOMIC_SEQ_CST) < k)
            id = gen_put(t, g, h, bytes, len, false);
    }
    __atomic_fetch_sub(&t->pins, 1, __ATOMIC_RELEASE);
    return id;
}

/* Contract: see bb_intern in recorder.h. */
uint32_t bb__intern_table_put(bb__intern_table *t, const void *bytes, size_t len) {
    if (len > 65535 || (len && !bytes) || len > t->gen_bytes) {
        if (bytes || !len) __atomic_fetch_add(&t->too_long, 1, __ATOMIC_RELAXED);
        return full(t);
    }
    uint32_t h = slot_hash(bytes, len);
    for (int tries = 0; tries < 1000; tries++) {
        uint32_t k = __atomic_load_n(&t->cur, __ATOMIC_ACQUIRE);
        bb__intern_gen *g = &t->gens[__atomic_load_n(&t->cur_slot, __ATOMIC_ACQUIRE)];
        uint32_t id = gen_put(t, g, h, bytes, len, true);
        if (BB__LIKELY(id != 0)) {
            /* recycled under a thread stalled for generations: its id is not to be used */
            if (BB__LIKELY(t->ngens == 1 || __atomic_load_n(&g->gen, __ATOMIC_ACQUIRE) == k))
                return id;
            continue;
        }
        int r = advance(t, k);
        if (r == ADV_BUSY) sched_yield(); /* another thread starts the next generation */
        if (r != ADV_NO) continue;
        id = find_old(t, k, h, bytes, len);
        return id ? id : full(t);
    }
    return full(t);
}

/* Contract: see recorder_internal.h. */
uint32_t bb__intern_table_count(const bb__intern_table *t) {
    uint32_t n = 0;
    for (uint32_t g = 0; g < t->ngens; g++) {
        if (__atomic_load_n(&t->gens[g].gen, __ATOMIC_ACQUIRE) >= BB__INTERN_GEN_BUSY) continue;
        uint32_t u = __atomic_load_n(&t->gens[g].used_entries, __ATOMIC_RELAXED);
        n += u < t->gen_entries ? u : t->gen_entries;
    }
    return n;
}

/* The count of leading entries of `g` whose `ready` is set (acquire). */
static uint32_t ready_prefix(const bb__intern_table *t, const bb__intern_gen *g) {
    uint32_t n = __atomic_load_n(&g->used_entries, __ATOMIC_ACQUIRE);
    if (n > t->gen_entries) n = t->gen_entries;
    for (uint32_t i = 0; i < n; i++)
        if (!__atomic_load_n(&g->entries[i].ready, __ATOMIC_ACQUIRE)) return i;
    return n;
}

/* Contract: see recorder_internal.h. */
void bb__intern_table_pin(bb__intern_table *t, bb__intern_view *v) {
    __atomic_fetch_add(&t->pins, 1, __ATOMIC_SEQ_CST);
    memset(v, 0, sizeof *v);
    uint32_t num[BB__INTERN_GENS];
    for (uint32_t g = 0; g < t->ngens; g++) {
        uint32_t n = __atomic_load_n(&t->gens[g].gen, __ATOMIC_SEQ_CST);
        if (n >= BB__INTERN_GEN_BUSY) continue; /* free, or being recycled: named by no record */
        uint32_t at = v->ngen++;                /* insertion sort: oldest first, ids ascending */
        while (at > 0 && num[at - 1] > n) {
            num[at] = num[at - 1];
            v->slot[at] = v->slot[at - 1];
            at--;
        }
        num[at] = n;
        v->slot[at] = g;
    }
    for (uint32_t i = 0; i < v->ngen; i++) {
        v->count[i] = ready_prefix(t, &t->gens[v->slot[i]]);
        v->n += v->count[i];
    }
}

/* Contract: see recorder_internal.h. */
void bb__intern_table_unpin(bb__intern_table *t) {
    __atomic_fetch_sub(&t->pins, 1, __ATOMIC_RELEASE);
}

/* Contract: see recorder_internal.h. */
bb_intern_item bb__intern_table_item(const bb__intern_table *t, const bb__intern_view *v,
                                     uint32_t i) {
    uint32_t k = 0;
    while (k + 1 < v->ngen && i >= v->count[k]) i -= v->count[k++];
    const bb__intern_gen *g = &t->gens[v->slot[k]];
    const bb__intern_entry *e = &g->entries[i];
    bb_intern_item it = {g->id_base + i + 1, e->len, g->arena + e->off};
    return it;
}

/* Why a table of generations refused strings: which half of BACKBEAT_INTERN_LIMIT ran out,
 * from the live generations' average string (what they hold, read without locks: advice). */
static void gens_advice(const bb__intern_table *t, char *buf, size_t cap) {
    uint64_t ents = 0, bytes = 0;
    for (uint32_t g = 0; g < t->ngens; g++) {
        uint32_t e = __atomic_load_n(&t->gens[g].used_entries, __ATOMIC_RELAXED);
        uint32_t b = __atomic_load_n(&t->gens[g].used_bytes, __ATOMIC_RELAXED);
        ents += e < t->gen_entries ? e : t->gen_entries;
        bytes += b < t->gen_bytes ? b : t->gen_bytes;
    }
    uint64_t avg = ents ? (bytes + ents - 1) / ents : 0, per = t->cap_bytes / t->cap_entries;
    if (avg > per)
        snprintf(buf, cap,
                 "the rings name more distinct strings than the table holds, and its BYTES ran "
                 "out first (strings average %llu bytes, the table has %llu a string): raise "
                 "BACKBEAT_INTERN_LIMIT's BYTES to at least %llu (a dump being written also "
                 "refuses strings, briefly)",
                 (unsigned long long)avg, (unsigned long long)per,
                 (unsigned long long)avg * t->cap_entries);
    else
        snprintf(buf, cap,
                 "the rings name more distinct strings than the table holds (%u strings of "
                 "%llu bytes on average; it needs %u/%u of the strings the rings hold): raise "
                 "BACKBEAT_INTERN_LIMIT's STRINGS (a dump being written also refuses strings, "
                 "briefly)",
                 t->cap_entries, (unsigned long long)avg, t->ngens, t->ngens - 2);
}

/* Contract: see intern_advice.h. */
void bb__intern_advice(const bb_recorder *rec, char *buf, size_t cap) {
    if (!cap) return;
    const bb__intern_table *t = &rec->intern;
    uint64_t n = __atomic_load_n(&t->full_count, __ATOMIC_RELAXED);
    uint64_t lng = __atomic_load_n(&t->too_long, __ATOMIC_RELAXED);
    const char *why;
    if (lng && lng == n)
        why = "each refused string was longer than 65535 bytes or than a generation's share of "
              "the table's bytes: shorten them (a larger BACKBEAT_INTERN_LIMIT helps only "
              "below 65535 bytes)";
    else if (t->ngens == 1)
        why = "a table under 2048 strings or 256 KiB is never recycled: raise "
              "BACKBEAT_INTERN_LIMIT to at least 2048,256k, which recycles strings once the "
              "rings wrap";
    else why = NULL;
    if (!why) gens_advice(t, buf, cap);
    int k = why ? snprintf(buf, cap, "%s", why) : (int)strlen(buf);
    if (lng && lng != n && k >= 0 && (size_t)k < cap)
        snprintf(buf + k, cap - (size_t)k, " (%llu of the refused strings were too long)",
                 (unsigned long long)lng);
}

/* Contract: see recorder_internal.h. */
uint32_t bb__intern_view_bit(const bb__intern_table *t, const bb__intern_view *v, uint32_t id) {
    for (uint32_t k = 0; k < v->ngen; k++) {
        uint32_t j = id - t->gens[v->slot[k]].id_base - 1; /* id 0 and others: far above */
        if (j < v->count[k]) return k * t->gen_entries + j;
    }
    return UINT32_MAX;
}

/* Contract: see recorder_internal.h. */
bb_intern_item bb__intern_view_bit_item(const bb__intern_table *t, const bb__intern_view *v,
                                        uint32_t bit) {
    uint32_t k = bit / t->gen_entries, j = bit % t->gen_entries;
    const bb__intern_gen *g = &t->gens[v->slot[k]];
    const bb__intern_entry *e = &g->entries[j];
    bb_intern_item it = {g->id_base + j + 1, e->len, g->arena + e->off};
    return it;
}
