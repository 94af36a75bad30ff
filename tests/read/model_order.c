/* model_order.c — the model's global order and de-duplication on large hand-built rings.
 *
 * Builds dumps byte by byte (independently of the library's writer): several rings per dump,
 * thousands of records each, with timestamps sorted, reversed, random with many ties, and nearly
 * sorted (few records out of place, one late record every 200: a ring of many runs, or one early
 * outlier), rings that wrap many times, and two successive snapshots of one process sharing most
 * records, plus a second process. The model's output must equal a brute-force reference: every
 * record each ring's walk accepts, sorted by (ts, instance_id, shard_id, offset, input) with
 * equal keys collapsed to the first input's copy (or all kept without dedup); and each input's
 * newest timestamp (bb_model_input_newest) the maximum over the records its walk accepts. Each
 * model is opened with 1, 3 and 8 ring walkers (bb_model_open_threads): the stream must not
 * change.
 * The same on hundreds and thousands of small rings (the merge's staging buffers and its tree of
 * losers over many sources), with records longer than a staging buffer; and each stream again
 * through a transient iterator (fields from the staging buffers, read/model_transient.h).
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/model.h"
#include "backbeat/reader.h"

#include "check.h"
#include "read/model_transient.h"

static uint64_t rng = 0x1234567887654321ull;
static uint64_t rnd(void) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1Dull;
}

/* ---- byte building ------------------------------------------------------------------------- */

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *s, size_t n) {
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void p8(buf *b, uint8_t v) { put(b, &v, 1); }
static void p16(buf *b, uint16_t v) {
    uint8_t t[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put(b, t, 2);
}
static void p32(buf *b, uint32_t v) {
    for (int i = 0; i < 4; i++) p8(b, (uint8_t)(v >> (8 * i)));
}
static void p64(buf *b, uint64_t v) {
    for (int i = 0; i < 8; i++) p8(b, (uint8_t)(v >> (8 * i)));
}
static void pstr(buf *b, const char *s) {
    p16(b, (uint16_t)strlen(s));
    put(b, s, strlen(s));
}

#define ID_A 0xA000000000000001ull /* 8 field bytes: payload 24 */
#define ID_B 0xB000000000000002ull /* 1 field byte: payload 17 (odd) */
#define ID_C \
    0xC000000000000003ull /* 2000 field bytes (v in the first 8): longer than a staging
                                      buffer of the merge over hundreds of rings */

static void schema(buf *b) {
    p32(b, 3);
    const struct {
        uint64_t id;
        const char *name;
        uint16_t rs;
        uint8_t type;
        uint16_t width;
    } ev[3] = {{ID_A, "t::A", 8, 3, 8}, {ID_B, "t::B", 1, 0, 1}, {ID_C, "t::C", 2000, 3, 8}};
    for (int i = 0; i < 3; i++) {
        p64(b, ev[i].id);
        pstr(b, ev[i].name);
        p8(b, 0);
        p16(b, ev[i].rs);
        p8(b, 0);
        p16(b, 1);
        pstr(b, "v");
        p8(b, 0);
        p8(b, ev[i].type);
        p16(b, 0);
        p16(b, ev[i].width);
        p8(b, 0);
        p8(b, 0);
        p8(b, 0);
        p16(b, 0);
    }
}

/* A ring being written like a recorder's: records appended at head, wrapping. */
typedef struct ring {
    uint8_t *mem;
    uint64_t cap, head;
} ring;

static void ring_put(ring *r, const void *src, size_t n) {
    const uint8_t *s = src;
    for (size_t i = 0; i < n; i++) r->mem[(r->head + i) & (r->cap - 1)] = s[i];
    r->head += n;
}

/* A record of kind 0 (t::B), 1 (t::A) or 2 (t::C). */
static void ring_record(ring *r, uint64_t ts, uint8_t kind, uint64_t value) {
    uint8_t rec[2018] = {0};
    uint64_t id = kind == 2 ? ID_C : kind ? ID_A : ID_B;
    size_t fl = kind == 2 ? 2000 : kind ? 8 : 1;
    for (int i = 0; i < 8; i++) rec[i] = (uint8_t)(ts >> (8 * i));
    for (int i = 0; i < 8; i++) rec[8 + i] = (uint8_t)(id >> (8 * i));
    for (size_t i = 0; i < fl && i < 8; i++) rec[16 + i] = (uint8_t)(value >> (8 * i));
    uint16_t len = (uint16_t)(16 + fl);
    rec[16 + fl] = (uint8_t)len;
    rec[17 + fl] = (uint8_t)(len >> 8);
    ring_put(r, rec, 18 + fl);
}

/* Timestamp of write i of a ring following `pattern`. */
static uint64_t pattern_ts(int pattern, uint64_t i, uint64_t n) {
    switch (pattern) {
    case 0: return 1000 + i * 10;                                       /* sorted */
    case 1: return 1000 + (n - i) * 10;                                 /* reversed */
    case 2: return 1000 + rnd() % 50;                                   /* random, many ties */
    case 3: return 1000 + i * 10 - (rnd() % 16 == 0 ? rnd() % 400 : 0); /* nearly sorted */
    case 4: return 1000 + rnd() % (n * 10);                             /* random */
    case 6: return 1000 + i * 10 - (i % 200 == 199 ? 500 : 0);    /* runs: one late every 200 */
    default: return 1000 + i * 10 + (i == n - 300 ? n * 100 : 0); /* sorted but for one outlier */
    }
}

typedef struct shard_plan {
    uint64_t cap;
    int pattern;
    uint64_t *ts; /* per write */
    uint8_t *kind;
    uint64_t nwrites;
} shard_plan;

/* A dump of instance `inst` holding the first writes[i] writes of each planned ring. */
static buf make_dump(uint64_t inst, const shard_plan *plans, size_t nplans,
                     const uint64_t *writes) {
    buf *bodies = calloc(nplans + 3, sizeof *bodies);
    uint16_t *kinds = calloc(nplans + 3, sizeof *kinds);
    if (!bodies || !kinds) abort();
    size_t n = 0;
    schema(&bodies[n]);
    kinds[n++] = 0;
    p64(&bodies[n], inst); /* empty intern table */
    p32(&bodies[n], 0);
    kinds[n++] = 1;
    for (size_t s = 0; s < nplans; s++) {
        ring r = {calloc(1, plans[s].cap), plans[s].cap, 0};
        for (uint64_t i = 0; i < writes[s]; i++)
            ring_record(&r, plans[s].ts[i], plans[s].kind[i], i);
        p64(&bodies[n], inst);
        p32(&bodies[n], (uint32_t)s);
        p64(&bodies[n], r.head);
        p64(&bodies[n], r.cap);
        put(&bodies[n], r.mem, r.cap);
        kinds[n++] = 2;
        free(r.mem);
    }
    p64(&bodies[n], inst);
    pstr(&bodies[n], "host");
    kinds[n++] = 3;
    buf out = {0};
    put(&out, "BACKBEAT", 8);
    p16(&out, 1);
    p16(&out, 1);
    p16(&out, (uint16_t)n);
    p16(&out, 0);
    uint64_t at = 16 + 20 * n;
    for (size_t i = 0; i < n; i++) {
        p16(&out, kinds[i]);
        p16(&out, 0);
        p64(&out, at);
        p64(&out, bodies[i].n);
        at += bodies[i].n;
    }
    for (size_t i = 0; i < n; i++) {
        put(&out, bodies[i].p, bodies[i].n);
        free(bodies[i].p);
    }
    free(bodies);
    free(kinds);
    return out;
}

/* ---- reference --------------------------------------------------------------------------- */

typedef struct key {
    uint64_t ts, inst;
    uint32_t shard, offset;
    size_t input;
    uint64_t value; /* first field byte(s), to check the right copy is yielded */
} key;

typedef struct collect_ctx {
    key *keys;
    size_t n, cap, input;
} collect_ctx;

static uint64_t first_value(const bb_record *r) {
    bb_value v = bb_decode_field(r->schema, 0, r->fields, NULL);
    return v.u;
}

static int collect(const bb_record *r, void *p) {
    collect_ctx *c = p;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 1024;
        c->keys = realloc(c->keys, c->cap * sizeof *c->keys);
        if (!c->keys) abort();
    }
    key k = {r->ts, r->instance_id, r->shard_id, r->offset, c->input, first_value(r)};
    c->keys[c->n++] = k;
    return 0;
}

static int cmp_key(const void *a, const void *b) {
    const key *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->inst != y->inst) return x->inst < y->inst ? -1 : 1;
    if (x->shard != y->shard) return x->shard < y->shard ? -1 : 1;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return x->input < y->input ? -1 : x->input > y->input;
}

static bool same(const key *x, const key *y) {
    return x->ts == y->ts && x->inst == y->inst && x->shard == y->shard && x->offset == y->offset;
}

static void check_stream(bb_dump **dumps, size_t n, bool dedup, unsigned threads, const char *what,
                         const key *keys, size_t u);

/* Each input's newest timestamp (convert ranks view sets by it, without a walk of its own): the
 * maximum over the records the walk accepts in its rings, duplicates included; 0 past the end. */
static void check_newest(bb_dump **dumps, size_t n, bool dedup, const char *what, const key *keys,
                         size_t nkeys) {
    bb_model *m = NULL;
    CHECK(bb_model_open(dumps, n, dedup, &m, NULL) == BB_OK, "%s: open", what);
    if (!m) return;
    for (size_t d = 0; d <= n; d++) {
        uint64_t want = 0;
        for (size_t i = 0; i < nkeys; i++)
            if (keys[i].input == d && keys[i].ts > want) want = keys[i].ts;
        CHECK(bb_model_input_newest(m, d) == want, "%s: input %zu newest %llu, want %llu", what, d,
              (unsigned long long)bb_model_input_newest(m, d), (unsigned long long)want);
    }
    bb_model_close(m);
}

static void check_model(bb_dump **dumps, size_t n, bool dedup, const char *what) {
    collect_ctx c = {0};
    for (size_t d = 0; d < n; d++) {
        c.input = d;
        for (size_t i = 0; i < bb_dump_instance_count(dumps[d]); i++) {
            const bb_rinstance *in = bb_dump_instance(dumps[d], i);
            for (size_t s = 0; s < in->shard_count; s++)
                bb_shard_walk(dumps[d], &in->shards[s], collect, &c, NULL);
        }
    }
    check_newest(dumps, n, dedup, what, c.keys, c.n);
    qsort(c.keys, c.n, sizeof *c.keys, cmp_key);
    size_t u = 0;
    for (size_t i = 0; i < c.n; i++)
        if (!dedup || u == 0 || !same(&c.keys[u - 1], &c.keys[i])) c.keys[u++] = c.keys[i];
    static const unsigned walkers[] = {1, 3, 8}; /* bb_model_open_threads: the same model */
    for (size_t w = 0; w < sizeof walkers / sizeof walkers[0]; w++)
        check_stream(dumps, n, dedup, walkers[w], what, c.keys, u);
    printf("ok %s: %zu records (%zu before dedup)\n", what, u, c.n);
    free(c.keys);
}

/* A transient iterator (read/model_transient.h, the trace's) yields the same stream, each
 * record's fields (read before the next call) equal to the mapping's `kept` copy where there is
 * one: they come from its staging buffers, which a source refills only at the next call. */
static void check_transient(bb_model *m, unsigned threads, const char *what, const key *keys,
                            size_t u, const uint8_t **kept) {
    bb_model_iter *it = NULL;
    CHECK(bb_model_iter_new(m, &it) == BB_OK, "iter");
    bb__model_iter_transient(it);
    bb_mrecord r;
    size_t i = 0, bad = 0;
    while (it && bb_model_next(it, &r)) {
        key k = {r.rec.ts,     r.rec.instance_id, r.rec.shard_id,
                 r.rec.offset, r.input,           first_value(&r.rec)};
        bool ok = i < u && cmp_key(&k, &keys[i]) == 0 && k.value == keys[i].value;
        if (ok && kept[i]) ok = memcmp(kept[i], r.rec.fields, r.rec.schema->record_size) == 0;
        if (!ok && bad++ < 5)
            fprintf(stderr, "%s (%u walkers, transient): record %zu: ts %llu shard %u off %u\n",
                    what, threads, i, (unsigned long long)k.ts, k.shard, k.offset);
        i++;
    }
    CHECK(bad == 0 && i == u, "%s (%u walkers, transient): %zu mismatches, %zu of %zu records",
          what, threads, bad, i, u);
    bb_model_iter_free(it);
}

/* The model of `dumps` opened with `threads` ring walkers yields exactly keys[0, u). */
static void check_stream(bb_dump **dumps, size_t n, bool dedup, unsigned threads, const char *what,
                         const key *keys, size_t u) {
    bb_model *m = NULL;
    bb_error err;
    CHECK(bb_model_open_threads(dumps, n, dedup, threads, &m, &err) == BB_OK, "%s: %s", what,
          err.message);
    if (!m) return;
    CHECK(bb_model_record_count(m) == u, "%s: record_count %llu, want %zu", what,
          (unsigned long long)bb_model_record_count(m), u);
    bb_model_iter *it = NULL;
    CHECK(bb_model_iter_new(m, &it) == BB_OK, "iter");
    bb_mrecord r;
    size_t i = 0, bad = 0;
    /* Fields of records that do not wrap lie in the mapping and stay put after the next call
     * (the Parquet writer's batches keep them): checked again once the stream has ended. */
    const uint8_t **kept = calloc(u + 1, sizeof *kept);
    const bb_rschema **kept_s = calloc(u + 1, sizeof *kept_s);
    if (!kept || !kept_s) abort();
    while (it && bb_model_next(it, &r)) {
        if (i < u && r.rec.offset != 0xFFFFFFFFu) {
            kept[i] = r.rec.fields;
            kept_s[i] = r.rec.schema;
        }
        key k = {r.rec.ts,     r.rec.instance_id, r.rec.shard_id,
                 r.rec.offset, r.input,           first_value(&r.rec)};
        if (i >= u || cmp_key(&k, &keys[i]) != 0 || k.value != keys[i].value) {
            if (bad++ < 5)
                fprintf(stderr, "%s (%u walkers): record %zu: ts %llu shard %u off %u input %zu\n",
                        what, threads, i, (unsigned long long)k.ts, k.shard, k.offset, k.input);
        }
        i++;
    }
    CHECK(bad == 0 && i == u, "%s (%u walkers): %zu mismatches, %zu of %zu records", what, threads,
          bad, i, u);
    size_t moved = 0;
    for (size_t j = 0; j < u; j++)
        if (kept[j] && bb_decode_field(kept_s[j], 0, kept[j], NULL).u != keys[j].value) moved++;
    CHECK(moved == 0, "%s (%u walkers): %zu records' fields changed after later calls", what,
          threads, moved);
    check_transient(m, threads, what, keys, u, kept);
    free(kept);
    free(kept_s);
    bb_model_iter_free(it);
    bb_model_close(m);
}

/* Many rings of one process (issue 37): the merge reads them through staging buffers (700
 * rings: 1.4 KiB each, so t::C records are read from the mapping) or, past a few thousand
 * sources, from the mapping directly. Rings of the sorted pattern all hold the same
 * timestamps (ties across rings, ordered by shard), rings wrap, and two snapshots share most
 * records. */
static void many_rings(size_t nrings, const char *what) {
    shard_plan *plans = calloc(nrings, sizeof *plans);
    uint64_t *w_first = calloc(nrings, sizeof *w_first), *w_all = calloc(nrings, sizeof *w_all);
    if (!plans || !w_first || !w_all) abort();
    for (size_t s = 0; s < nrings; s++) {
        uint64_t n = 20 + s % 37;
        plans[s] =
            (shard_plan){.cap = (uint64_t)4096 << (s % 3), .pattern = (int)(s % 7), .nwrites = n};
        plans[s].ts = malloc(n * sizeof *plans[s].ts);
        plans[s].kind = malloc(n * sizeof *plans[s].kind);
        if (!plans[s].ts || !plans[s].kind) abort();
        for (uint64_t i = 0; i < n; i++) {
            plans[s].ts[i] = pattern_ts(plans[s].pattern, i, n);
            plans[s].kind[i] = rnd() % 40 == 0 ? 2 : rnd() % 3 != 0;
        }
        w_all[s] = n;
        w_first[s] = n * 3 / 4;
    }
    buf a = make_dump(0x7777, plans, nrings, w_first);
    buf b = make_dump(0x7777, plans, nrings, w_all);
    bb_dump *d[2] = {0};
    bb_error err;
    CHECK(bb_dump_open_memory(a.p, a.n, "ma.bb", &d[0], &err) == BB_OK, "%s", err.message);
    CHECK(bb_dump_open_memory(b.p, b.n, "mb.bb", &d[1], &err) == BB_OK, "%s", err.message);
    if (d[0] && d[1]) {
        char name[96];
        snprintf(name, sizeof name, "%s, one dump", what);
        check_model(d + 1, 1, true, name);
        snprintf(name, sizeof name, "%s, two snapshots, dedup", what);
        check_model(d, 2, true, name);
        snprintf(name, sizeof name, "%s, two snapshots, no dedup", what);
        check_model(d, 2, false, name);
    }
    for (int i = 0; i < 2; i++) bb_dump_close(d[i]);
    free(a.p);
    free(b.p);
    for (size_t s = 0; s < nrings; s++) {
        free(plans[s].ts);
        free(plans[s].kind);
    }
    free(plans);
    free(w_first);
    free(w_all);
}

int main(void) {
    enum { NPLANS = 7 };
    shard_plan plans[NPLANS];
    const uint64_t caps[NPLANS] = {1 << 16, 1 << 15, 1 << 16, 1 << 14, 1 << 16, 4096, 1 << 17};
    const uint64_t counts[NPLANS] = {3000, 9000, 2500, 7000, 2600, 900, 6000};
    for (int s = 0; s < NPLANS; s++) {
        plans[s].cap = caps[s];
        plans[s].pattern = s % 7;
        plans[s].nwrites = counts[s];
        plans[s].ts = malloc(counts[s] * sizeof *plans[s].ts);
        plans[s].kind = malloc(counts[s] * sizeof *plans[s].kind);
        for (uint64_t i = 0; i < counts[s]; i++) {
            plans[s].ts[i] = pattern_ts(plans[s].pattern, i, counts[s]);
            plans[s].kind[i] = rnd() % 3 != 0;
        }
    }
    uint64_t w_first[NPLANS], w_all[NPLANS];
    for (int s = 0; s < NPLANS; s++) {
        w_all[s] = counts[s];
        w_first[s] = counts[s] * 3 / 4;
    }
    buf a = make_dump(0x5555, plans, NPLANS, w_first);
    buf b = make_dump(0x5555, plans, NPLANS, w_all);
    buf o = make_dump(0x1111, plans + 2, 3, w_all + 2);
    bb_dump *d[3] = {0};
    bb_error err;
    CHECK(bb_dump_open_memory(a.p, a.n, "a.bb", &d[0], &err) == BB_OK, "%s", err.message);
    CHECK(bb_dump_open_memory(b.p, b.n, "b.bb", &d[1], &err) == BB_OK, "%s", err.message);
    CHECK(bb_dump_open_memory(o.p, o.n, "o.bb", &d[2], &err) == BB_OK, "%s", err.message);
    if (d[0] && d[1] && d[2]) {
        check_model(d, 1, true, "one dump");
        check_model(d + 1, 1, true, "later dump");
        check_model(d, 2, true, "two snapshots, dedup");
        check_model(d, 2, false, "two snapshots, no dedup");
        check_model(d, 3, true, "two snapshots + other process");
        bb_dump *rev[3] = {d[2], d[1], d[0]};
        check_model(rev, 3, true, "reversed inputs");
        bb_dump *twice[2] = {d[1], d[1]};
        check_model(twice, 2, true, "one dump given twice");
    }
    for (int i = 0; i < 3; i++) bb_dump_close(d[i]);
    free(a.p);
    free(b.p);
    free(o.p);
    for (int s = 0; s < NPLANS; s++) {
        free(plans[s].ts);
        free(plans[s].kind);
    }
    many_rings(700, "700 rings");
    many_rings(4500, "4500 rings");
    return failures ? 1 : 0;
}
