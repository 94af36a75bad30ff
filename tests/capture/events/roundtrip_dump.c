/* roundtrip_dump.c — round trip through the dump writer and the reader, with rings built in
 * the test: event structs filled with designated initialisers are appended as records
 * ([ts][id][BB_RECORD_SIZE field bytes][u16 len]) to two rings, bb_dump_write streams the
 * registry snapshot, intern table, view sets and rings into memory, and the reader gives back
 * every schema (equal to the descriptors) and every value (every field type, role, enum repr
 * 1/2/4/8 with labelled and unlabelled values, sentinel hits and misses, both interned kinds
 * with a missing id, span enter/exit, the zero-field marker), in order. rt::Unrecorded has no
 * records and is still in the dump's registry. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "backbeat/dump_writer.h"
#include "roundtrip_check.h"

#define RT_VIEWS_SQL "CREATE VIEW rt AS SELECT * FROM events;"
BB_VIEWS(rt_views, RT_VIEWS_SQL);

#define CAP 4096u

typedef struct ring {
    uint8_t region[CAP];
    uint64_t head;
} ring;
static ring rings[2];

static void put(ring *r, const void *data, size_t n) {
    for (size_t i = 0; i < n; i++, r->head++)
        r->region[r->head & (CAP - 1)] = ((const uint8_t *)data)[i];
}

static void append(ring *r, uint64_t ts, uint64_t id, const void *fields, uint16_t size) {
    uint8_t le[8];
    for (int i = 0; i < 8; i++) le[i] = (uint8_t)(ts >> (8 * i));
    put(r, le, 8);
    for (int i = 0; i < 8; i++) le[i] = (uint8_t)(id >> (8 * i));
    put(r, le, 8);
    put(r, fields, size);
    uint16_t len = (uint16_t)(16 + size);
    uint8_t suffix[2] = {(uint8_t)len, (uint8_t)(len >> 8)};
    put(r, suffix, 2);
}

static bb_intern_item intern_get(void *ctx, size_t i) {
    (void)ctx;
    bb_intern_item it = {(uint32_t)(i + 1), (uint32_t)strlen(rt_intern_text[i]), rt_intern_text[i]};
    return it;
}
static uint64_t shard_capacity(void *ctx, uint32_t i) {
    (void)ctx;
    (void)i;
    return CAP;
}
static const uint8_t *shard_region(void *ctx, uint32_t i, uint8_t *scratch, uint64_t *head) {
    (void)ctx;
    memcpy(scratch, rings[i].region, CAP);
    *head = rings[i].head;
    return scratch;
}

static rt_value values[] = {
    {BB_DESC(rt_scalars),
     {.scalars = {.a = 1,
                  .e = -2,
                  .b = 3,
                  .f = 4,
                  .c = 5,
                  .g = -6,
                  .d = 7,
                  .h = -8,
                  .i = true,
                  .j = {1, 2, 3, 4, 5, 6, 7, 8, 9}}}},
    {BB_DESC(rt_scalars),
     {.scalars = {.a = UINT64_MAX,
                  .e = INT64_MIN,
                  .b = 0,
                  .f = -1,
                  .c = UINT16_MAX,
                  .g = INT16_MIN,
                  .d = UINT8_MAX,
                  .h = -128,
                  .i = false,
                  .j = {0}}}},
    {BB_DESC(rt_scalars),
     {.scalars = {.a = 1ull << 53,
                  .e = INT64_MAX,
                  .b = UINT32_MAX,
                  .f = INT32_MIN,
                  .c = 0,
                  .g = INT16_MAX,
                  .d = 0,
                  .h = INT8_MAX,
                  .i = true,
                  .j = {0xff, 0, 0xab, 0, 0, 0, 0, 0, 0x10}}}},
    {BB_DESC(rt_scalars), {.scalars = {.a = (1ull << 53) + 1, .e = -1, .b = 1, .f = -2}}},
    {BB_DESC(rt_enums),
     {.enums = {.e8 = RT_E8_MAX, .e4 = RT_E4_NEG, .e2 = RT_E2_ON, .e1 = RT_E1_BACK}}},
    {BB_DESC(rt_enums), {.enums = {.e8 = 2, .e4 = 3, .e2 = RT_E2_NONE, .e1 = 7, .pad = {9}}}},
    {BB_DESC(rt_enums), {.enums = {.e8 = RT_E8_ZERO, .e4 = RT_E4_BIG, .e2 = 0, .e1 = RT_E1_FWD}}},
    {BB_DESC(rt_strings), {.strings = {.parent = 10, .name = 1, .path = 2, .k = 7}}},
    {BB_DESC(rt_strings), {.strings = {.parent = 0, .name = 3, .path = 99, .k = 8}}},
    {BB_DESC(rt_strings), {.strings = {.parent = UINT64_MAX, .name = 4, .path = 0, .k = 0}}},
    {BB_DESC(rt_begin), {.begin = {.span = 100, .parent = 0, .work = 1}}},
    {BB_DESC(rt_begin), {.begin = {.span = 101, .parent = 100, .work = 2}}},
    {BB_DESC(rt_mark), {.mark = {0}}},
    {BB_DESC(rt_end), {.end = {.span = 101, .bytes = 4096}}},
    {BB_DESC(rt_end), {.end = {.span = 100, .bytes = UINT64_MAX}}},
    {BB_DESC(rt_mark), {.mark = {0}}},
};
#define NVALUES (sizeof values / sizeof values[0])

/* Records recovered from one shard (newest first). */
typedef struct collected {
    const bb_rinstance *inst;
    size_t n;
    bb_record recs[NVALUES];
    uint8_t bytes[NVALUES][64];
} collected;

static int on_record(const bb_record *rec, void *ctx) {
    collected *c = ctx;
    if (c->n < NVALUES) {
        c->recs[c->n] = *rec;
        memcpy(c->bytes[c->n], rec->fields, rec->schema->record_size);
        c->recs[c->n].fields = c->bytes[c->n];
    }
    c->n++;
    return 0;
}

int main(void) {
    /* Record: value k goes to shard k % 2 at ts 1000 + k. */
    for (size_t k = 0; k < NVALUES; k++)
        append(&rings[k % 2], 1000 + k, bb_event_id((bb_event_desc *)values[k].desc), &values[k].u,
               values[k].desc->record_size);

    const bb_event_desc *events[16];
    size_t nev = bb_registry_snapshot(events, 16);
    RT_CHECK(nev == 7, "7 events registered, got %zu", nev);
    const bb_view_desc *vd[4];
    size_t nviews = bb_views_snapshot(vd, 4);
    const char *views[4];
    for (size_t i = 0; i < nviews && i < 4; i++) views[i] = vd[i]->sql;

    bb_dump_input in;
    memset(&in, 0, sizeof in);
    in.instance_id = 0x0102030405060708ull;
    in.host = "rt-host";
    in.events = events;
    in.event_count = nev;
    in.intern_count = 4;
    in.intern_get = intern_get;
    in.views = views;
    in.view_count = nviews;
    in.shard_count = 2;
    in.shard_capacity = shard_capacity;
    in.shard_region = shard_region;

    uint64_t size = bb_dump_size(&in);
    uint8_t *buf = malloc(size);
    static uint8_t scratch[CAP];
    bb_buffer_sink bs = {buf, size, 0};
    bb_error err;
    bb_status st = bb_dump_write(&in, bb_sink_buffer(&bs), scratch, &err);
    RT_CHECK(st == BB_OK && bs.len == size, "write: %s", st == BB_OK ? "short" : err.message);

    bb_dump *dump = NULL;
    st = bb_dump_open_memory(buf, bs.len, "roundtrip", &dump, &err);
    RT_CHECK(st == BB_OK, "open: %s", err.message);
    if (st != BB_OK) return 1;

    /* Registry: every descriptor, including the never-recorded one, equal in every attribute. */
    RT_CHECK(bb_dump_schema_count(dump) == 7, "schema count");
    for (size_t i = 0; i < 7; i++) {
        const bb_rschema *s = bb_dump_find_schema(dump, rt_descs[i]->id);
        RT_CHECK(s != NULL, "%s missing from the dump", rt_descs[i]->name);
        if (s) rt_check_schema(s, rt_descs[i]);
    }
    RT_CHECK(bb_dump_view_count(dump) == 1 && bb_dump_view(dump, 0).len == strlen(RT_VIEWS_SQL) &&
                 memcmp(bb_dump_view(dump, 0).ptr, RT_VIEWS_SQL, strlen(RT_VIEWS_SQL)) == 0,
             "views");

    const bb_rinstance *inst = bb_dump_find_instance(dump, in.instance_id);
    RT_CHECK(inst && inst->shard_count == 2 && inst->intern_count == 4, "instance");
    size_t total = 0;
    for (uint32_t s = 0; inst && s < 2; s++) {
        collected c;
        memset(&c, 0, sizeof c);
        bb_walk_stats stats;
        bb_shard_walk(dump, &inst->shards[s], on_record, &c, &stats);
        size_t want_n = (NVALUES + 1 - s) / 2;
        RT_CHECK(c.n == want_n && stats.skipped_bytes == 0, "shard %u: %zu records", s, c.n);
        /* Newest first: the i-th from the end is value 2*(want_n-1-i) + s. */
        for (size_t i = 0; i < c.n && i < want_n; i++) {
            size_t k = 2 * (want_n - 1 - i) + s;
            RT_CHECK(c.recs[i].ts == 1000 + k && c.recs[i].shard_id == s, "record %zu ts", k);
            rt_check_record(&c.recs[i], inst, &values[k]);
        }
        total += c.n;
    }
    RT_CHECK(total == NVALUES, "all records recovered");
    bb_dump_close(dump);
    free(buf);
    printf("roundtrip_dump: %zu records, %d failures\n", total, rt_failures);
    return rt_failures ? 1 : 0;
}
