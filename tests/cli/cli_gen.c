/* cli_gen.c — writes the generated dumps the CLI tests and benchmarks use (through
 * dump_writer.h), plus, for the test scenarios, OUT.records.json: every record written
 * (instance, shard, ts, event, decoded fields), the ground truth the Node checks compare with.
 *
 *   cli_gen spans1 OUT.bb     instance fe..01: nested, overlapping (non-nesting), migrating,
 *                             same-begin and orphan (enter-only, exit-only) spans, children
 *                             that outlive their parent, on 4 shards, timestamps at Unix-epoch
 *                             scale with odd nanoseconds
 *   cli_gen spans2 OUT.bb     instance fe..02: reuses spans1's span ids (pairing is per instance)
 *   cli_gen async OUT.bb      instance fe..03: an event loop on one shard, 60 requests
 *                             interleaved (up to 6 in flight), request i with 1 + i % 3 child
 *                             spans (parent_span_id): a lookup; then an I/O span inside the
 *                             lookup; then a reply after the lookup; request 0 open for the
 *                             whole trace
 *   cli_gen random OUT.bb SEED  instance fe..04: 600 spans on 3 shards opened and closed in
 *                             random order (children outlive parents, spans migrate, many
 *                             share a nanosecond; parents open, closed or never seen)
 *   cli_gen bench OUT.bb N    N records on 4 shards (notes and span pairs), for benchmarks
 */
/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/dump_writer.h"
#include "backbeat/registry.h"

static const bb_field_desc start_fields[] = {
    {.name = "span", .offset = 0, .width = 8, .type = BB_TYPE_U64, .role = BB_ROLE_SPAN_ID},
    {.name = "parent",
     .offset = 8,
     .width = 8,
     .type = BB_TYPE_U64,
     .role = BB_ROLE_PARENT_SPAN_ID},
};
static const bb_field_desc end_fields[] = {
    {.name = "span", .offset = 0, .width = 8, .type = BB_TYPE_U64, .role = BB_ROLE_SPAN_ID},
    {.name = "status", .offset = 8, .width = 4, .type = BB_TYPE_U32, .unit = "code"},
};
static const bb_field_desc note_fields[] = {
    {.name = "key", .offset = 0, .width = 8, .type = BB_TYPE_U64, .role = BB_ROLE_KEY},
    {.name = "value",
     .offset = 8,
     .width = 4,
     .type = BB_TYPE_I32,
     .has_sentinel = 1,
     .sentinel = 0xFFFFFFFFu},
    {.name = "tag", .offset = 12, .width = 4, .type = BB_TYPE_INTERNED, .type_arg = 1},
};
static bb_event_desc ev_start = {.name = "gen::TaskStart",
                                 .description = "A task began.",
                                 .fields = start_fields,
                                 .field_count = 2,
                                 .record_size = 16,
                                 .phase = BB_PHASE_ENTER};
static bb_event_desc ev_end = {.name = "gen::TaskEnd",
                               .fields = end_fields,
                               .field_count = 2,
                               .record_size = 12,
                               .phase = BB_PHASE_EXIT};
static bb_event_desc ev_note = {
    .name = "gen::Note", .fields = note_fields, .field_count = 3, .record_size = 16};

#define NSHARDS_MAX 4
typedef struct ring {
    uint8_t *region;
    uint64_t cap, head;
} ring;

typedef struct gen {
    uint64_t instance;
    const char *host;
    uint32_t nshards;
    ring rings[NSHARDS_MAX];
    FILE *json;
    int nrec;
    /* bench */
    uint64_t bench_n;
    uint64_t bench_cap;
} gen;

static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void ring_append(ring *r, const uint8_t *rec, size_t n) {
    for (size_t i = 0; i < n; i++) r->region[(r->head + i) & (r->cap - 1)] = rec[i];
    r->head += n;
}

static void emit(gen *g, uint32_t shard, uint64_t ts, const bb_event_desc *ev,
                 const uint8_t *fields) {
    uint8_t rec[18 + 64];
    put64(rec, ts);
    put64(rec + 8, ev->id);
    memcpy(rec + 16, fields, ev->record_size);
    uint16_t len = (uint16_t)(16 + ev->record_size);
    rec[16 + ev->record_size] = (uint8_t)len;
    rec[17 + ev->record_size] = (uint8_t)(len >> 8);
    ring_append(&g->rings[shard], rec, 18u + ev->record_size);
}

static const char *tags[] = {"", "red", "green"};

static void rec_json_head(gen *g, uint32_t shard, uint64_t ts, const char *event) {
    fprintf(g->json,
            "%s\n{\"instance_id\":\"%016" PRIx64 "\",\"shard\":%u,\"ts\":\"%" PRIu64
            "\",\"event\":\"%s\",\"fields\":",
            g->nrec++ ? "," : "", g->instance, shard, ts, event);
}

static void start(gen *g, uint32_t shard, uint64_t ts, uint64_t span, uint64_t parent) {
    uint8_t f[16];
    put64(f, span);
    put64(f + 8, parent);
    emit(g, shard, ts, &ev_start, f);
    rec_json_head(g, shard, ts, ev_start.name);
    fprintf(g->json, "{\"span\":%" PRIu64 ",\"parent\":%" PRIu64 "}}", span, parent);
}

static void end(gen *g, uint32_t shard, uint64_t ts, uint64_t span, uint32_t status) {
    uint8_t f[12];
    put64(f, span);
    put32(f + 8, status);
    emit(g, shard, ts, &ev_end, f);
    rec_json_head(g, shard, ts, ev_end.name);
    fprintf(g->json, "{\"span\":%" PRIu64 ",\"status\":%u}}", span, status);
}

static void note(gen *g, uint32_t shard, uint64_t ts, uint64_t key, int32_t value, uint32_t tag) {
    uint8_t f[16];
    put64(f, key);
    put32(f + 8, (uint32_t)value);
    put32(f + 12, tag);
    emit(g, shard, ts, &ev_note, f);
    rec_json_head(g, shard, ts, ev_note.name);
    if (value == -1) fprintf(g->json, "{\"key\":%" PRIu64 ",\"value\":null,", key);
    else fprintf(g->json, "{\"key\":%" PRIu64 ",\"value\":%d,", key, value);
    if (tag >= 1 && tag <= 2) fprintf(g->json, "\"tag\":\"%s\"}}", tags[tag]);
    else fprintf(g->json, "\"tag\":\"#%u\"}}", tag);
}

/* Scenario spans1 / spans2: see the file comment. T(x) = base + x, base at epoch scale with odd
 * nanoseconds so that a double of absolute microseconds could not represent them. */
#define BASE 1764680000123456789ull
#define T(x) (BASE + (uint64_t)(x))

static void scenario_spans1(gen *g) {
    note(g, 0, T(0), 1, 10, 1);
    /* A contains B on shard 0 (nested) */
    start(g, 0, T(1000), 0xA, 0);
    start(g, 0, T(2001), 0xB, 0xA);
    note(g, 0, T(2500), 2, -1, 2); /* inside B; value = sentinel -> null */
    end(g, 0, T(3003), 0xB, 0);
    end(g, 0, T(5007), 0xA, 0);
    /* C and D overlap without nesting on shard 1 */
    start(g, 1, T(6000), 0xC, 0);
    start(g, 1, T(7011), 0xD, 0);
    end(g, 1, T(8013), 0xC, 1);
    note(g, 1, T(8500), 3, -7, 99); /* missing intern id */
    end(g, 1, T(9017), 0xD, 2);
    /* E migrates: enters on shard 0, exits on shard 2 */
    start(g, 0, T(10000), 0xE, 0);
    note(g, 2, T(11000), 4, 4, 1);
    end(g, 2, T(12019), 0xE, 0);
    /* orphan exit */
    end(g, 2, T(13023), 0xF, 3);
    /* H and I begin at the same nanosecond on shard 2; I is inner */
    start(g, 2, T(15000), 0x11, 0);
    start(g, 2, T(15000), 0x12, 0x11);
    end(g, 2, T(16029), 0x12, 0);
    end(g, 2, T(17031), 0x11, 0);
    /* a span id re-entered while open (nested same id) on shard 1 */
    start(g, 1, T(17500), 0x20, 0);
    start(g, 1, T(17600), 0x20, 0x20);
    end(g, 1, T(17700), 0x20, 0);
    end(g, 1, T(17800), 0x20, 0);
    /* on shard 3, P's child C and C's child G outlive P; K (in C) closes before P; R begins
     * after P ends */
    start(g, 3, T(3000), 0x30, 0);
    start(g, 3, T(3100), 0x31, 0x30);
    start(g, 3, T(3150), 0x34, 0x31);
    end(g, 3, T(3180), 0x34, 0);
    start(g, 3, T(3200), 0x32, 0x31);
    end(g, 3, T(3500), 0x30, 0);
    start(g, 3, T(3600), 0x33, 0);
    end(g, 3, T(3700), 0x32, 0);
    end(g, 3, T(3900), 0x31, 0);
    end(g, 3, T(4100), 0x33, 0);
    /* orphan enter G (never exits) on shard 1, then more records */
    start(g, 1, T(14000 + 4037), 0x10, 0);
    note(g, 1, T(19000), 5, 5, 2);
    note(g, 0, T(20041), 6, 6, 1);
}

static void scenario_spans2(gen *g) {
    /* same span ids as spans1's A and B, a different instance */
    start(g, 0, T(1500), 0xA, 0);
    start(g, 0, T(1600), 0xB, 0xA);
    end(g, 0, T(2600), 0xB, 0);
    end(g, 0, T(4000), 0xA, 0);
    note(g, 0, T(4500), 7, 7, 2);
}

/* Scenario async: see the file comment. Enters and exits are written in time order. */
typedef struct async_ev {
    uint64_t ts, span, parent;
    int enter;
} async_ev;

static int async_cmp(const void *a, const void *b) {
    const async_ev *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->enter - y->enter; /* an exit before an enter at the same ns */
}

static void scenario_async(gen *g) {
    enum { N = 60 };
    async_ev ev[8 * N];
    int n = 0;
    for (uint64_t i = 0; i < N; i++) {
        uint64_t b = 1000 + i * 100 + (i * 7) % 13, req = 0x1000 + i, look = 0x5000 + i;
        uint64_t e = i == 0 ? 1000 + N * 100 + 5000 : b + 250 + (i * 37) % 230;
        uint64_t lb = b + 10 + i % 7, le = b + 100 + i % 5; /* lookup; request ends after 250 */
        ev[n++] = (async_ev){b, req, 0, 1};
        ev[n++] = (async_ev){lb, look, req, 1};
        ev[n++] = (async_ev){le, look, 0, 0};
        if (i % 3 >= 1) { /* I/O inside the lookup (a grandchild of the request) */
            ev[n++] = (async_ev){lb + 5 + i % 4, 0x9000 + i, look, 1};
            ev[n++] = (async_ev){le - 5 - i % 3, 0x9000 + i, 0, 0};
        }
        if (i % 3 == 2) { /* the reply, after the lookup */
            ev[n++] = (async_ev){le + 10, 0xD000 + i, req, 1};
            ev[n++] = (async_ev){le + 50 + i % 9, 0xD000 + i, 0, 0};
        }
        ev[n++] = (async_ev){e, req, 0, 0};
    }
    qsort(ev, (size_t)n, sizeof ev[0], async_cmp);
    for (int k = 0; k < n; k++) {
        if (ev[k].enter) start(g, 0, T(ev[k].ts), ev[k].span, ev[k].parent);
        else end(g, 0, T(ev[k].ts), ev[k].span, 0);
    }
}

/* Scenario random: see the file comment. A span's id is 0x100 + its number; its parent is an
 * open span (most often the newest), a closed one, one never entered, or none. */
static uint64_t rnd(uint64_t *x) {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void scenario_random(gen *g, uint64_t seed) {
    enum { N = 600 };
    uint64_t x = seed * 2654435761u + 1, ts = 1000, open[N];
    uint32_t shard_of[N];
    int nopen = 0, made = 0;
    while (made < N || nopen) {
        ts += rnd(&x) % 4; /* 0: the same nanosecond as the record before */
        uint64_t r = rnd(&x) % 100;
        if (made < N && (nopen == 0 || r < 55)) {
            uint64_t id = 0x100 + (uint64_t)made, parent = 0, k = rnd(&x) % 10;
            if (nopen && k < 5) parent = open[nopen - 1];
            else if (nopen && k < 7) parent = open[rnd(&x) % (uint64_t)nopen];
            else if (made && k < 8) parent = 0x100 + rnd(&x) % (uint64_t)made;
            else if (k < 9) parent = 0xFFFF00 + k;
            uint32_t sh = rnd(&x) % 4 ? (nopen ? shard_of[nopen - 1] : 0) : (uint32_t)(rnd(&x) % 3);
            start(g, sh, ts, id, parent);
            shard_of[nopen] = sh;
            open[nopen++] = id;
            made++;
            continue;
        }
        /* close the newest mostly (nesting), any open span otherwise */
        int i = r < 80 ? nopen - 1 : (int)(rnd(&x) % (uint64_t)nopen);
        end(g, rnd(&x) % 5 ? shard_of[i] : (uint32_t)(rnd(&x) % 3), ts, open[i], 0);
        for (int k = i; k + 1 < nopen; k++) {
            open[k] = open[k + 1];
            shard_of[k] = shard_of[k + 1];
        }
        nopen--;
    }
}

/* ---- dump_writer callbacks ---- */

static bb_intern_item intern_get(void *ctx, size_t i) {
    (void)ctx;
    return (bb_intern_item){(uint32_t)i + 1, (uint32_t)strlen(tags[i + 1]), tags[i + 1]};
}
static uint64_t shard_capacity(void *ctx, uint32_t i) {
    gen *g = ctx;
    return g->bench_n ? g->bench_cap : g->rings[i].cap;
}

/* Bench records of shard s: record k (global) goes to shard k % 4 at ts base + 10k. */
static const uint8_t *bench_region(gen *g, uint32_t s, uint8_t *scratch, uint64_t *head) {
    ring r = {scratch, g->bench_cap, 0};
    memset(scratch, 0, g->bench_cap);
    for (uint64_t k = s; k < g->bench_n; k += g->nshards) {
        uint64_t ts = 1764680000000000000ull + k * 10;
        uint8_t rec[18 + 16];
        const bb_event_desc *ev;
        uint8_t *f = rec + 16;
        uint64_t m = k % 10;
        if (m == 0) {
            ev = &ev_start;
            put64(f, k);
            put64(f + 8, 0);
        } else if (m == 5) {
            ev = &ev_end;
            put64(f, k - 5);
            put32(f + 8, 0);
        } else {
            ev = &ev_note;
            put64(f, k);
            put32(f + 8, (uint32_t)(k * 7));
            put32(f + 12, (uint32_t)(k % 2 + 1));
        }
        put64(rec, ts);
        put64(rec + 8, ev->id);
        uint16_t len = (uint16_t)(16 + ev->record_size);
        rec[16 + ev->record_size] = (uint8_t)len;
        rec[17 + ev->record_size] = (uint8_t)(len >> 8);
        ring_append(&r, rec, 18u + ev->record_size);
    }
    *head = r.head;
    return scratch;
}

static const uint8_t *shard_region(void *ctx, uint32_t i, uint8_t *scratch, uint64_t *head) {
    gen *g = ctx;
    if (g->bench_n) return bench_region(g, i, scratch, head);
    *head = g->rings[i].head;
    return g->rings[i].region;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: cli_gen spans1|spans2|async|random|bench OUT.bb [N|SEED]\n");
        return 2;
    }
    ev_start.id = bb_event_id_compute(&ev_start);
    ev_end.id = bb_event_id_compute(&ev_end);
    ev_note.id = bb_event_id_compute(&ev_note);
    gen g;
    memset(&g, 0, sizeof g);
    const char *scen = argv[1], *out = argv[2];
    uint8_t *scratch = NULL;
    if (!strcmp(scen, "bench")) {
        if (argc < 4) return 2;
        g.bench_n = strtoull(argv[3], NULL, 10);
        g.nshards = 4;
        g.instance = 0xbe0c000000000001ull;
        g.host = "bench-host";
        uint64_t per = g.bench_n / g.nshards + 1, need = per * 34, cap = 4096;
        while (cap < need) cap <<= 1;
        g.bench_cap = cap;
        scratch = malloc(cap);
        if (!scratch) return 1;
    } else {
        bool one = !strcmp(scen, "spans1"), async = !strcmp(scen, "async");
        bool random = !strcmp(scen, "random");
        if (!one && !async && !random && strcmp(scen, "spans2")) return 2;
        g.instance = one      ? 0xfe00000000000001ull
                     : async  ? 0xfe00000000000003ull
                     : random ? 0xfe00000000000004ull
                              : 0xfe00000000000002ull;
        g.host = one ? "gen-host-1" : async ? "gen-host-3" : random ? "gen-host-4" : "gen-host-2";
        g.nshards = one ? 4 : random ? 3 : 1;
        for (uint32_t i = 0; i < g.nshards; i++) {
            g.rings[i].cap = async || random ? 65536 : 4096;
            g.rings[i].region = calloc(1, g.rings[i].cap);
        }
        char jp[4096];
        snprintf(jp, sizeof jp, "%s.records.json", out);
        g.json = fopen(jp, "w");
        if (!g.json) return 1;
        fprintf(g.json, "{\"instance_id\":\"%016" PRIx64 "\",\"host\":\"%s\",\"records\":[",
                g.instance, g.host);
        if (one) scenario_spans1(&g);
        else if (async) scenario_async(&g);
        else if (random) scenario_random(&g, argc > 3 ? strtoull(argv[3], NULL, 10) : 1);
        else scenario_spans2(&g);
        fprintf(g.json, "\n]}\n");
        fclose(g.json);
    }
    const bb_event_desc *events[] = {&ev_start, &ev_end, &ev_note};
    bb_dump_input in = {
        .instance_id = g.instance,
        .host = g.host,
        .events = events,
        .event_count = 3,
        .intern_count = 2,
        .intern_get = intern_get,
        .views = NULL,
        .view_count = 0,
        .shard_count = g.nshards,
        .shard_capacity = shard_capacity,
        .shard_region = shard_region,
        .ctx = &g,
    };
    FILE *f = fopen(out, "wb");
    if (!f) {
        perror(out);
        return 1;
    }
    int fd = fileno(f);
    bb_error err;
    bb_status st = bb_dump_write(&in, bb_sink_fd(&fd), scratch, &err);
    fclose(f);
    if (st != BB_OK) {
        fprintf(stderr, "cli_gen: %s\n", err.message);
        return 1;
    }
    for (uint32_t i = 0; i < g.nshards; i++) free(g.rings[i].region);
    free(scratch);
    return 0;
}
