/* fleet_gen.c — dumps of one program's three builds on several hosts, for the fleet test
 * (tests/js/fleet_check.mjs), written through the library's dump writer, with a JSON file of
 * every record's values beside each dump (OUT.bb.json) to check the tables against.
 *
 * Usage: fleet_gen OUT.bb BUILD HOST N [BASE]   (BUILD 1..3, HOST 1..4, N records; BASE: the
 *        first timestamp in ns instead of 2026-11-30T23:59:30Z, e.g. near 2^63)
 *
 * The builds of the event set (fields added, removed, reordered, one type changed, events
 * added; `key` is a key field everywhere):
 *   1: demo::cache::Miss   {key u64, worker u32 (sentinel 0xFFFFFFFF), hit bool}
 *      demo::cache::Lookup {key u64, size u32}
 *   2: demo::cache::Miss   {latency_ns u64, key u64, worker u32, shard u16, tier enum u8}
 *      demo::cache::Lookup {key u64, size i32}              (size: u32 -> i32)
 *      demo::cache::Evict  {key u64, bytes u64}              (new)
 *   3: demo::cache::Miss   {key u64, worker u32, tier enum u8, latency_ns u64}
 *      demo::cache::Lookup, demo::cache::Evict as in 2
 *      demo::cache::Purge  {key i64, count u32}              (new: a signed key)
 * Each build carries a view set over "demo::cache::Miss" and a view fleet_build naming the
 * build (which build's definition a views.sql keeps). Instance id 0xf1ee7000 + 16*HOST +
 * BUILD; host "host-<HOST>", host 4 "edge/4 \u00fc" (a '/' and UTF-8 to escape). Record i: ts =
 * 2026-12-01T00:00:00Z - 30 s + 20 s * (BUILD - 1) + 0.5 s * i + HOST us (so records fall on
 * 2026-11-30 and 2026-12-01), shard i % 2; values are pure functions of (BUILD, HOST, i), u64
 * keys over the whole range (2^64-1 on record 0) and i64 keys negative (INT64_MIN on record 0 of
 * Purge). A dump with a larger N of the same BUILD and HOST is a later dump of the same process:
 * it holds the smaller one's records at the same places.
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/dump_writer.h"
#include "backbeat/registry.h"
#include "backbeat/schema.h"

#define RING 65536
/* F(name, offset, width, type, more designators...) */
#define F(n, off, w, ...) \
    { .name = n, .offset = off, .width = w, .type = __VA_ARGS__ }

static const bb_enum_label TIER[] = {{1, "l1"}, {2, "l2"}};

static const bb_field_desc MISS1[] = {
    F("key", 0, 8, BB_TYPE_U64, .role = BB_ROLE_KEY),
    F("worker", 8, 4, BB_TYPE_U32, .has_sentinel = 1, .sentinel = 0xFFFFFFFFu),
    F("hit", 12, 1, BB_TYPE_BOOL),
};
static const bb_field_desc LOOKUP1[] = {
    F("key", 0, 8, BB_TYPE_U64, .role = BB_ROLE_KEY),
    F("size", 8, 4, BB_TYPE_U32),
};
static const bb_field_desc MISS2[] = {
    F("latency_ns", 0, 8, BB_TYPE_U64, .unit = "ns"),
    F("key", 8, 8, BB_TYPE_U64, .role = BB_ROLE_KEY),
    F("worker", 16, 4, BB_TYPE_U32, .has_sentinel = 1, .sentinel = 0xFFFFFFFFu),
    F("shard", 20, 2, BB_TYPE_U16),
    F("tier", 22, 1, BB_TYPE_ENUM, .type_arg = 1, .labels = TIER, .label_count = 2),
};
static const bb_field_desc LOOKUP2[] = {
    F("key", 0, 8, BB_TYPE_U64, .role = BB_ROLE_KEY),
    F("size", 8, 4, BB_TYPE_I32),
};
static const bb_field_desc EVICT[] = {
    F("key", 0, 8, BB_TYPE_U64, .role = BB_ROLE_KEY),
    F("bytes", 8, 8, BB_TYPE_U64, .unit = "bytes"),
};
static const bb_field_desc MISS3[] = {
    F("key", 0, 8, BB_TYPE_U64, .role = BB_ROLE_KEY),
    F("worker", 8, 4, BB_TYPE_U32, .has_sentinel = 1, .sentinel = 0xFFFFFFFFu),
    F("tier", 12, 1, BB_TYPE_ENUM, .type_arg = 1, .labels = TIER, .label_count = 2),
    F("latency_ns", 13, 8, BB_TYPE_U64, .unit = "ns"),
};
static const bb_field_desc PURGE[] = {
    F("key", 0, 8, BB_TYPE_I64, .role = BB_ROLE_KEY),
    F("count", 8, 4, BB_TYPE_U32),
};

#define EV(n, f, size) \
    { .name = n, .fields = f, .field_count = sizeof f / sizeof f[0], .record_size = size }
static bb_event_desc BUILD1[] = {EV("demo::cache::Miss", MISS1, 13),
                                 EV("demo::cache::Lookup", LOOKUP1, 12)};
static bb_event_desc BUILD2[] = {EV("demo::cache::Miss", MISS2, 23),
                                 EV("demo::cache::Lookup", LOOKUP2, 12),
                                 EV("demo::cache::Evict", EVICT, 16)};
static bb_event_desc BUILD3[] = {
    EV("demo::cache::Miss", MISS3, 21), EV("demo::cache::Lookup", LOOKUP2, 12),
    EV("demo::cache::Evict", EVICT, 16), EV("demo::cache::Purge", PURGE, 12)};
static bb_event_desc *const BUILDS[3] = {BUILD1, BUILD2, BUILD3};
static const size_t NEVENTS[3] = {2, 3, 4};

static const char *const VIEWS1[] = {
    "CREATE OR REPLACE VIEW fleet_miss_per_worker AS SELECT \"demo::cache::Miss\".worker AS "
    "worker, count(*) AS n FROM \"demo::cache::Miss\" GROUP BY ALL;\n"
    "CREATE OR REPLACE VIEW fleet_build AS SELECT 'build 1' AS build;\n"};
#define VIEWS23(b)                                                                              \
    "CREATE OR REPLACE VIEW fleet_miss_per_worker AS SELECT \"demo::cache::Miss\".worker AS "   \
    "worker, count(*) AS n FROM \"demo::cache::Miss\" GROUP BY ALL;\n"                          \
    "CREATE OR REPLACE VIEW fleet_worst_latency AS SELECT \"demo::cache::Miss\".tier AS tier, " \
    "max(\"demo::cache::Miss\".latency_ns) AS worst FROM \"demo::cache::Miss\" GROUP BY ALL;\n" \
    "CREATE OR REPLACE VIEW fleet_build AS SELECT 'build " b "' AS build;\n"
static const char *const VIEWS2[] = {VIEWS23("2")};
static const char *const VIEWS3[] = {VIEWS23("3")};

static uint64_t mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void put(uint8_t *p, uint64_t v, unsigned w) {
    for (unsigned i = 0; i < w; i++) p[i] = (uint8_t)(v >> (8 * i));
}

typedef struct gen {
    int build, host;
    uint64_t n, base;
    uint8_t ring[2][RING];
    uint64_t head[2];
    FILE *json;
} gen;

/* The value of field `f` of record i as the dump holds it (raw bits, zero-extended). */
static uint64_t raw_value(const gen *g, const bb_field_desc *f, uint64_t i) {
    uint64_t h = mix64(((uint64_t)g->build << 56) ^ ((uint64_t)g->host << 48) ^ (i << 8) ^
                       (uint64_t)(unsigned char)f->name[0] ^ ((uint64_t)f->offset << 4));
    if (strcmp(f->name, "key") == 0) {
        if (f->type == BB_TYPE_I64)
            return i < 4 ? (uint64_t)INT64_MIN : h | (1ull << 63); /* negative */
        return i < 2 ? UINT64_MAX : h;                             /* >= 2^63 about half the time */
    }
    if (strcmp(f->name, "worker") == 0) return i % 7 == 3 ? 0xFFFFFFFFu : h % 8;
    if (strcmp(f->name, "hit") == 0) return h & 1;
    if (strcmp(f->name, "tier") == 0) return 1 + h % 3; /* 3 has no label */
    if (strcmp(f->name, "size") == 0)
        return f->type == BB_TYPE_I32 ? (uint64_t)(uint32_t)(int32_t)((int64_t)(h % 2001) - 1000)
                                      : h % 100000;
    if (strcmp(f->name, "shard") == 0) return h % 64;
    if (strcmp(f->name, "count") == 0) return h % 1000;
    return h; /* latency_ns, bytes: the whole u64 range */
}

/* The field's value as the test expects it: a JSON string of the decimal value, true/false,
 * an enum label, or null (the sentinel). */
static void json_value(FILE *o, const bb_field_desc *f, uint64_t v) {
    if (f->has_sentinel && v == f->sentinel) fputs("null", o);
    else if (f->type == BB_TYPE_BOOL) fputs(v ? "true" : "false", o);
    else if (f->type == BB_TYPE_ENUM)
        v >= 1 && v <= 2 ? fprintf(o, "\"%s\"", TIER[v - 1].label)
                         : fprintf(o, "\"%llu\"", (unsigned long long)v);
    else if (f->type == BB_TYPE_I64 || f->type == BB_TYPE_I32)
        fprintf(o, "\"%lld\"",
                f->type == BB_TYPE_I32 ? (long long)(int32_t)(uint32_t)v : (long long)(int64_t)v);
    else fprintf(o, "\"%llu\"", (unsigned long long)v);
}

/* Record i into its shard's ring, and its JSON line. */
static void emit(gen *g, uint64_t i) {
    const bb_event_desc *e = &BUILDS[g->build - 1][i % NEVENTS[g->build - 1]];
    unsigned s = (unsigned)(i % 2);
    uint64_t ts = g->base + 20000000000ull * (uint64_t)(g->build - 1) + 500000000ull * i +
                  1000ull * (uint64_t)g->host;
    uint8_t *p = g->ring[s] + g->head[s];
    put(p, ts, 8);
    put(p + 8, e->id, 8);
    fprintf(g->json, "%s{\"ts\":\"%llu\",\"event\":\"%s\",\"event_id\":\"%016llx\",\"fields\":{",
            i ? ",\n" : "", (unsigned long long)ts, e->name, (unsigned long long)e->id);
    for (size_t f = 0; f < e->field_count; f++) {
        const bb_field_desc *fd = &e->fields[f];
        uint64_t v = raw_value(g, fd, i);
        put(p + 16 + fd->offset, v, fd->width);
        fprintf(g->json, "%s\"%s\":", f ? "," : "", fd->name);
        json_value(g->json, fd, v);
    }
    fputs("}}", g->json);
    put(p + 16 + e->record_size, 16u + e->record_size, 2);
    g->head[s] += 18u + e->record_size;
}

static uint64_t capacity(void *ctx, uint32_t s) {
    (void)ctx;
    (void)s;
    return RING;
}

static const uint8_t *region(void *ctx, uint32_t s, uint8_t *scratch, uint64_t *head) {
    gen *g = ctx;
    (void)scratch;
    *head = g->head[s];
    return g->ring[s];
}

static int write_all(void *ctx, const void *d, size_t n) {
    return fwrite(d, 1, n, ctx) == n ? 0 : 1;
}

int main(int argc, char **argv) {
    static gen g;
    if ((argc != 5 && argc != 6) || (g.build = atoi(argv[2])) < 1 || g.build > 3 ||
        (g.host = atoi(argv[3])) < 1 || g.host > 4 || (g.n = strtoull(argv[4], NULL, 10)) > 2000) {
        fprintf(stderr, "usage: fleet_gen OUT.bb BUILD(1-3) HOST(1-4) N(<=2000) [BASE_NS]\n");
        return 2;
    }
    g.base = argc == 6 ? strtoull(argv[5], NULL, 10) : 1796083200000000000ull - 30000000000ull;
    bb_event_desc *evs = BUILDS[g.build - 1];
    const bb_event_desc *list[4];
    for (size_t k = 0; k < NEVENTS[g.build - 1]; k++) {
        evs[k].id = bb_event_id_compute(&evs[k]);
        list[k] = &evs[k];
    }
    char host[32], jpath[4096];
    snprintf(host, sizeof host, g.host == 4 ? "edge/4 \xc3\xbc" : "host-%d", g.host);
    snprintf(jpath, sizeof jpath, "%s.json", argv[1]);
    uint64_t inst = 0xf1ee7000u + 16u * (unsigned)g.host + (unsigned)g.build;
    g.json = fopen(jpath, "w");
    FILE *out = fopen(argv[1], "wb");
    if (!g.json || !out) {
        perror(argv[1]);
        return 1;
    }
    fprintf(g.json, "{\"instance_id\":\"%016llx\",\"host\":\"%s\",\"build\":%d,\"records\":[\n",
            (unsigned long long)inst, g.host == 4 ? "edge/4 \\u00fc" : host, g.build);
    for (uint64_t i = 0; i < g.n; i++) emit(&g, i);
    fputs("]}\n", g.json);
    bb_dump_input in = {.instance_id = inst,
                        .host = host,
                        .events = list,
                        .event_count = NEVENTS[g.build - 1],
                        .views = g.build == 1   ? VIEWS1
                                 : g.build == 2 ? VIEWS2
                                                : VIEWS3,
                        .view_count = 1,
                        .shard_count = 2,
                        .shard_capacity = capacity,
                        .shard_region = region,
                        .ctx = &g};
    bb_error err;
    bb_sink sink = {.write = write_all, .ctx = out};
    if (bb_dump_write(&in, sink, NULL, &err) != BB_OK) {
        fprintf(stderr, "fleet_gen: %s\n", err.message);
        return 1;
    }
    return fclose(out) == 0 && fclose(g.json) == 0 ? 0 : 1;
}
