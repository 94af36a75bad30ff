/* pq_gendump.c — writes a synthetic `.bb` dump of N records (for the Parquet statistics test
 * and the convert benchmark) through the library's dump writer.
 *
 * Usage: pq_gendump OUT.bb N [SHARDS]  (SHARDS rings instead of one per ~60 MiB: a wide merge)
 *        pq_gendump OUT.bb clash   (the small name/type-clash dump of parquet_clash.mjs)
 *        pq_gendump OUT.bb wide N  (N records over 400 event types: a table of ~1200 leaves)
 *
 * Events: gen::Packet (u64 key conn_id, u64 pkt, u32 len, i32 code with sentinel -1,
 * interned tag, enum dir, bool flag, 2 bytes _pad), gen::SpanBegin / gen::SpanEnd (span
 * enter/exit with span_id / parent_span_id), gen::Tick (no fields); mix 60/15/15/10. Record i
 * has ts 1e12 + 100*i and goes to shard i % S; conn_id = 2^63 - 7*(N/2) + 7*i, so it crosses
 * 2^63 half-way (and grows with time, so row groups have tight statistics); pkt is a hash of
 * i over the whole u64 range; code = i%7 - 3, or -1 on every 13th record, and -1 is the
 * sentinel (NULL). Everything is a pure function of i: tests/js/parquet_stats.mjs recomputes
 * what it needs.
 */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backbeat/dump_writer.h"
#include "backbeat/registry.h"
#include "backbeat/schema.h"

static const bb_enum_label DIR_LABELS[] = {{0, "in"}, {1, "out"}};

static const bb_field_desc PACKET_FIELDS[] = {
    {.name = "conn_id",
     .description = "Connection.",
     .offset = 0,
     .width = 8,
     .type = BB_TYPE_U64,
     .role = BB_ROLE_KEY},
    {.name = "pkt", .offset = 8, .width = 8, .type = BB_TYPE_U64},
    {.name = "len", .unit = "bytes", .offset = 16, .width = 4, .type = BB_TYPE_U32},
    {.name = "code",
     .offset = 20,
     .width = 4,
     .type = BB_TYPE_I32,
     .has_sentinel = 1,
     .sentinel = 0xFFFFFFFFu},
    {.name = "tag", .offset = 24, .width = 4, .type = BB_TYPE_INTERNED, .type_arg = 1},
    {.name = "dir",
     .offset = 28,
     .width = 1,
     .type = BB_TYPE_ENUM,
     .type_arg = 1,
     .labels = DIR_LABELS,
     .label_count = 2},
    {.name = "flag", .offset = 29, .width = 1, .type = BB_TYPE_BOOL},
    {.name = "_pad", .offset = 30, .width = 2, .type = BB_TYPE_BYTES},
};
static const bb_field_desc BEGIN_FIELDS[] = {
    {.name = "span", .offset = 0, .width = 8, .type = BB_TYPE_U64, .role = BB_ROLE_SPAN_ID},
    {.name = "parent",
     .offset = 8,
     .width = 8,
     .type = BB_TYPE_U64,
     .role = BB_ROLE_PARENT_SPAN_ID},
};
static const bb_field_desc END_FIELDS[] = {
    {.name = "span", .offset = 0, .width = 8, .type = BB_TYPE_U64, .role = BB_ROLE_SPAN_ID},
    {.name = "bytes", .unit = "bytes", .offset = 8, .width = 8, .type = BB_TYPE_U64},
};

static bb_event_desc EVENTS[4] = {
    {.name = "gen::Packet",
     .description = "A packet.",
     .fields = PACKET_FIELDS,
     .field_count = 8,
     .record_size = 32},
    {.name = "gen::SpanBegin",
     .fields = BEGIN_FIELDS,
     .field_count = 2,
     .record_size = 16,
     .phase = BB_PHASE_ENTER},
    {.name = "gen::SpanEnd",
     .fields = END_FIELDS,
     .field_count = 2,
     .record_size = 16,
     .phase = BB_PHASE_EXIT},
    {.name = "gen::Tick", .record_size = 0},
};

static const char *const TAGS[] = {"",        "alpha", "beta", "gamma", "delta",
                                   "epsilon", "zeta",  "eta",  "theta"};

typedef struct gen {
    uint64_t n;
    uint32_t shards;
    uint64_t capacity;
    uint64_t *heads;
} gen;

static uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* Event of record i: 0..3 (Packet 60%, Begin 15%, End 15%, Tick 10%). */
static int kind_of(uint64_t i) {
    unsigned r = (unsigned)(i % 20);
    return r < 12 ? 0 : r < 15 ? 1 : r < 18 ? 2 : 3;
}

static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Field bytes of record i into f (record_size bytes). */
static void fields_of(const gen *g, uint64_t i, int k, uint8_t *f) {
    memset(f, 0, 32);
    if (k == 0) {
        put64(f, (1ull << 63) - 7 * (g->n / 2) + 7 * i);
        put64(f + 8, mix64(i));
        put32(f + 16, (uint32_t)(mix64(i ^ 0x55) % 1500));
        put32(f + 20, i % 13 == 0 ? 0xFFFFFFFFu : (uint32_t)(int32_t)((int64_t)(i % 7) - 3));
        put32(f + 24, (uint32_t)(1 + i % 8));
        f[28] = (uint8_t)(i % 2);
        f[29] = (uint8_t)(i % 3 == 0);
        f[30] = (uint8_t)i;
        f[31] = (uint8_t)(i >> 8);
    } else if (k == 1) {
        put64(f, i + 1);
        put64(f + 8, i / 2);
    } else if (k == 2) {
        put64(f, i - 2);
        put64(f + 8, i * 3);
    }
}

static uint64_t shard_capacity(void *ctx, uint32_t s) {
    (void)s;
    return ((gen *)ctx)->capacity;
}

static const uint8_t *shard_region(void *ctx, uint32_t s, uint8_t *scratch, uint64_t *head) {
    gen *g = ctx;
    memset(scratch, 0, g->capacity);
    uint64_t pos = 0;
    uint8_t f[32];
    for (uint64_t i = s; i < g->n; i += g->shards) {
        int k = kind_of(i);
        uint16_t rs = EVENTS[k].record_size;
        put64(scratch + pos, 1000000000000ull + 100 * i);
        put64(scratch + pos + 8, EVENTS[k].id);
        fields_of(g, i, k, f);
        memcpy(scratch + pos + 16, f, rs);
        uint16_t len = (uint16_t)(16 + rs);
        scratch[pos + 16 + rs] = (uint8_t)len;
        scratch[pos + 17 + rs] = (uint8_t)(len >> 8);
        pos += 18u + rs;
    }
    *head = pos;
    return scratch;
}

static bb_intern_item intern_get(void *ctx, size_t i) {
    (void)ctx;
    return (bb_intern_item){
        .id = (uint32_t)(i + 1), .len = (uint32_t)strlen(TAGS[i + 1]), .bytes = TAGS[i + 1]};
}

static int write_all(void *ctx, const void *data, size_t len) {
    FILE *f = ctx;
    return fwrite(data, 1, len, f) == len ? 0 : 1;
}

/* ---- the clash dump: schemas whose names and types collide in the table's layout ---- */

static const bb_enum_label ONE_LABEL[] = {{1, "one"}};
static const bb_field_desc CA[] = {
    {.name = "seq", .offset = 0, .width = 8, .type = BB_TYPE_U64, .role = BB_ROLE_KEY},
    {.name = "k", .offset = 8, .width = 8, .type = BB_TYPE_U64, .role = BB_ROLE_KEY},
    {.name = "x", .offset = 16, .width = 4, .type = BB_TYPE_U32},
    {.name = "clash::A", .offset = 20, .width = 8, .type = BB_TYPE_U64, .role = BB_ROLE_KEY},
};
static const bb_field_desc CB[] = {
    {.name = "k", .offset = 0, .width = 4, .type = BB_TYPE_I32, .role = BB_ROLE_KEY},
    {.name = "x", .offset = 4, .width = 2, .type = BB_TYPE_I16},
    {.name = "x", .offset = 6, .width = 1, .type = BB_TYPE_U8},
    {.name = "_p", .offset = 7, .width = 1, .type = BB_TYPE_BYTES},
};
static const bb_field_desc CC[] = {
    {.name = "k",
     .offset = 0,
     .width = 1,
     .type = BB_TYPE_ENUM,
     .type_arg = 1,
     .role = BB_ROLE_KEY,
     .labels = ONE_LABEL,
     .label_count = 1},
    {.name = "flag", .offset = 1, .width = 1, .type = BB_TYPE_BOOL, .role = BB_ROLE_KEY},
};
static const bb_field_desc CD[] = {
    {.name = "flag", .offset = 0, .width = 4, .type = BB_TYPE_U32, .role = BB_ROLE_KEY},
};
static const bb_field_desc CE[] = {
    {.name = "k", .offset = 0, .width = 4, .type = BB_TYPE_INTERNED, .role = BB_ROLE_KEY},
    {.name = "s", .offset = 4, .width = 4, .type = BB_TYPE_INTERNED, .type_arg = 1},
};
static const bb_field_desc CF[] = {
    {.name = "r", .offset = 0, .width = 8, .type = BB_TYPE_U64, .role = BB_ROLE_KEY},
    {.name = "r", .offset = 8, .width = 8, .type = BB_TYPE_U64, .role = BB_ROLE_KEY},
};
static const bb_field_desc CT[] = {
    {.name = "v", .offset = 0, .width = 1, .type = BB_TYPE_U8},
};
static bb_event_desc CLASH[7] = {
    {.name = "clash::A", .fields = CA, .field_count = 4, .record_size = 28},
    {.name = "clash::B", .fields = CB, .field_count = 4, .record_size = 8},
    {.name = "clash::C", .fields = CC, .field_count = 2, .record_size = 2},
    {.name = "clash::D", .fields = CD, .field_count = 1, .record_size = 4},
    {.name = "clash::E", .fields = CE, .field_count = 2, .record_size = 8},
    {.name = "clash::F", .fields = CF, .field_count = 2, .record_size = 16},
    {.name = "ts_nanos", .fields = CT, .field_count = 1, .record_size = 1},
};

/* Records: event index and field bytes (hex), one shard, ts 1000, 2000, ... */
static const struct {
    int ev;
    const char *hex;
} CLASH_RECS[] = {
    {0, "0500000000000000ffffffffffffffff070000000300000000000000"},
    {1, "fbfffffffeffc8ab"},
    {1, "0900000003000100"},
    {2, "0101"},
    {2, "0700"},
    {3, "00000000"},
    {3, "05000000"},
    {4, "0100000001000000"},
    {4, "0200000002000000"},
    {4, "0300000063000000"},
    {5, "0b000000000000000c00000000000000"},
    {6, "04"},
};

static uint8_t clash_ring[4096];

static uint64_t clash_capacity(void *ctx, uint32_t s) {
    (void)ctx;
    (void)s;
    return sizeof clash_ring;
}

static const uint8_t *clash_region(void *ctx, uint32_t s, uint8_t *scratch, uint64_t *head) {
    (void)ctx;
    (void)s;
    (void)scratch;
    uint64_t pos = 0;
    for (size_t r = 0; r < sizeof CLASH_RECS / sizeof CLASH_RECS[0]; r++) {
        const bb_event_desc *e = &CLASH[CLASH_RECS[r].ev];
        put64(clash_ring + pos, 1000 * (r + 1));
        put64(clash_ring + pos + 8, e->id);
        const char *h = CLASH_RECS[r].hex;
        for (size_t i = 0; i < e->record_size; i++) {
            unsigned v;
            sscanf(h + 2 * i, "%2x", &v);
            clash_ring[pos + 16 + i] = (uint8_t)v;
        }
        uint16_t len = (uint16_t)(16 + e->record_size);
        clash_ring[pos + 16 + e->record_size] = (uint8_t)len;
        clash_ring[pos + 17 + e->record_size] = (uint8_t)(len >> 8);
        pos += 18u + e->record_size;
    }
    *head = pos;
    return clash_ring;
}

static bb_intern_item clash_intern(void *ctx, size_t i) {
    (void)ctx;
    static const uint8_t bad[3] = {0xff, 0xfe, 0x78};
    return i == 0 ? (bb_intern_item){.id = 1, .len = 2, .bytes = "ok"}
                  : (bb_intern_item){.id = 2, .len = 3, .bytes = bad};
}

static int write_clash(const char *path) {
    const bb_event_desc *evs[7];
    for (int k = 0; k < 7; k++) {
        CLASH[k].id = bb_event_id_compute(&CLASH[k]);
        evs[k] = &CLASH[k];
    }
    bb_dump_input in = {.instance_id = 42,
                        .host = "clash-host",
                        .events = evs,
                        .event_count = 7,
                        .intern_count = 2,
                        .intern_get = clash_intern,
                        .shard_count = 1,
                        .shard_capacity = clash_capacity,
                        .shard_region = clash_region};
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return 1;
    }
    bb_error err;
    bb_sink sink = {.write = write_all, .ctx = f};
    if (bb_dump_write(&in, sink, NULL, &err) != BB_OK) {
        fprintf(stderr, "pq_gendump: %s\n", err.message);
        return 1;
    }
    return fclose(f) == 0 ? 0 : 1;
}

/* ---- the wide dump: WIDE_EVENTS event types "wide::E000".. with fields a u32, b i16, tag
 * interned, k u64 key; record i is event mix64(i) % WIDE_EVENTS with a = i, b = -(i % 1000),
 * tag = 1 + i % 3, k = 3 * i. ---- */
#define WIDE_EVENTS 400
static const bb_field_desc WIDE_FIELDS[] = {
    {.name = "a", .offset = 0, .width = 4, .type = BB_TYPE_U32},
    {.name = "b", .offset = 4, .width = 2, .type = BB_TYPE_I16},
    {.name = "_p", .offset = 6, .width = 2, .type = BB_TYPE_BYTES},
    {.name = "tag", .offset = 8, .width = 4, .type = BB_TYPE_INTERNED},
    {.name = "k", .offset = 12, .width = 8, .type = BB_TYPE_U64, .role = BB_ROLE_KEY},
};
static bb_event_desc WIDE[WIDE_EVENTS];
static char WIDE_NAMES[WIDE_EVENTS][16];
static uint64_t wide_n;
static uint8_t *wide_ring;
static uint64_t wide_cap;

static uint64_t wide_capacity(void *ctx, uint32_t s) {
    (void)ctx;
    (void)s;
    return wide_cap;
}

static const uint8_t *wide_region(void *ctx, uint32_t s, uint8_t *scratch, uint64_t *head) {
    (void)ctx;
    (void)s;
    (void)scratch;
    uint64_t pos = 0;
    for (uint64_t i = 0; i < wide_n; i++) {
        const bb_event_desc *e = &WIDE[mix64(i) % WIDE_EVENTS];
        uint8_t *p = wide_ring + pos;
        put64(p, 1000 + 10 * i);
        put64(p + 8, e->id);
        put32(p + 16, (uint32_t)i);
        int16_t b = (int16_t) - (int)(i % 1000);
        p[20] = (uint8_t)b;
        p[21] = (uint8_t)((uint16_t)b >> 8);
        p[22] = p[23] = 0;
        put32(p + 24, (uint32_t)(1 + i % 3));
        put64(p + 28, 3 * i);
        p[36] = 36;
        p[37] = 0;
        pos += 38;
    }
    *head = pos;
    return wide_ring;
}

static bb_intern_item wide_intern(void *ctx, size_t i) {
    (void)ctx;
    static const char *const t[] = {"red", "green", "blue"};
    return (bb_intern_item){.id = (uint32_t)(i + 1), .len = (uint32_t)strlen(t[i]), .bytes = t[i]};
}

static int write_wide(const char *path, uint64_t n) {
    static const bb_event_desc *evs[WIDE_EVENTS];
    for (int k = 0; k < WIDE_EVENTS; k++) {
        snprintf(WIDE_NAMES[k], sizeof WIDE_NAMES[k], "wide::E%03d", k);
        WIDE[k] = (bb_event_desc){
            .name = WIDE_NAMES[k], .fields = WIDE_FIELDS, .field_count = 5, .record_size = 20};
        WIDE[k].id = bb_event_id_compute(&WIDE[k]);
        evs[k] = &WIDE[k];
    }
    wide_n = n;
    wide_cap = 4096;
    while (wide_cap < 38 * n) wide_cap *= 2;
    wide_ring = calloc(1, wide_cap);
    if (!wide_ring) return 1;
    bb_dump_input in = {.instance_id = 7,
                        .host = "wide-host",
                        .events = evs,
                        .event_count = WIDE_EVENTS,
                        .intern_count = 3,
                        .intern_get = wide_intern,
                        .shard_count = 1,
                        .shard_capacity = wide_capacity,
                        .shard_region = wide_region};
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return 1;
    }
    bb_error err;
    bb_sink sink = {.write = write_all, .ctx = f};
    if (bb_dump_write(&in, sink, NULL, &err) != BB_OK) {
        fprintf(stderr, "pq_gendump: %s\n", err.message);
        return 1;
    }
    free(wide_ring);
    return fclose(f) == 0 ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[2], "wide") == 0)
        return write_wide(argv[1], strtoull(argv[3], NULL, 10));
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: pq_gendump OUT.bb N|clash [SHARDS]\n");
        return 2;
    }
    if (strcmp(argv[2], "clash") == 0) return write_clash(argv[1]);
    gen g = {.n = strtoull(argv[2], NULL, 10)};
    for (int k = 0; k < 4; k++) EVENTS[k].id = bb_event_id_compute(&EVENTS[k]);
    /* bytes per record: 18 + record_size; pick shards so each ring stays <= 64 MiB */
    uint64_t total = 0;
    for (int k = 0; k < 20; k++) total += 18u + EVENTS[kind_of((uint64_t)k)].record_size;
    total = total * (g.n / 20 + 1);
    g.shards = (uint32_t)(total / (60u << 20) + 1);
    if (argc == 4) g.shards = (uint32_t)strtoul(argv[3], NULL, 10);
    if (g.shards == 0) {
        fprintf(stderr, "pq_gendump: SHARDS must be at least 1\n");
        return 2;
    }
    uint64_t per = 0;
    for (uint32_t sh = 0; sh < g.shards; sh++) {
        uint64_t b = 0;
        for (uint64_t i = sh; i < g.n; i += g.shards) b += 18u + EVENTS[kind_of(i)].record_size;
        if (b > per) per = b;
    }
    g.capacity = 4096;
    while (g.capacity < per) g.capacity *= 2;
    uint8_t *scratch = malloc(g.capacity);
    if (!scratch) return 1;
    const bb_event_desc *evs[4] = {&EVENTS[0], &EVENTS[1], &EVENTS[2], &EVENTS[3]};
    const char *views[] = {"CREATE OR REPLACE VIEW packets AS SELECT * FROM events WHERE "
                           "event = 'gen::Packet';\n"};
    bb_dump_input in = {.instance_id = 0x1234567890abcdefull,
                        .host = "gen-host",
                        .events = evs,
                        .event_count = 4,
                        .intern_count = 8,
                        .intern_get = intern_get,
                        .views = views,
                        .view_count = 1,
                        .shard_count = g.shards,
                        .shard_capacity = shard_capacity,
                        .shard_region = shard_region,
                        .ctx = &g};
    FILE *f = fopen(argv[1], "wb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static char iobuf[1 << 20];
    setvbuf(f, iobuf, _IOFBF, sizeof iobuf);
    bb_error err;
    bb_sink sink = {.write = write_all, .ctx = f};
    if (bb_dump_write(&in, sink, scratch, &err) != BB_OK) {
        fprintf(stderr, "pq_gendump: %s\n", err.message);
        return 1;
    }
    if (fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    free(scratch);
    printf("%s: %llu records, %u shards of %llu bytes\n", argv[1], (unsigned long long)g.n,
           g.shards, (unsigned long long)g.capacity);
    return 0;
}
