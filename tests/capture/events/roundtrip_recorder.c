/* roundtrip_recorder.c — round trip through the recorder: events recorded with BB_RECORD
 * (designated initialisers, including a zero-field marker with none), BB_RECORD_PTR,
 * BB_SPAN_ENTER / BB_SPAN_EXIT and interned strings from bb_intern_str, dumped with
 * bb_recorder_dump_buffer and read back: the registry holds every descriptor (the never
 * recorded one too) and every recorded value comes back. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "backbeat/backbeat.h"
#include "roundtrip_check.h"

#define MAXV 32
static rt_value want[MAXV];
static uint64_t want_ts[MAXV];
static size_t nwant;
static bb_recorder *rec;

/* Record `ident` with the given initialisers and remember the same value as expected. */
#define REC(ident, member, ...)                      \
    do {                                             \
        want_ts[nwant] = 1000 + nwant;               \
        bb_recorder_clock_set(rec, want_ts[nwant]);  \
        want[nwant].desc = BB_DESC(ident);           \
        want[nwant].u.member = (ident){__VA_ARGS__}; \
        nwant++;                                     \
        BB_RECORD(rec, ident, __VA_ARGS__);          \
    } while (0)

typedef struct got {
    bb_record r;
    uint8_t bytes[64];
} got;

static got recs[MAXV];
static size_t ngot;

static int on_record(const bb_record *r, void *ctx) {
    (void)ctx;
    if (ngot < MAXV) {
        recs[ngot].r = *r;
        memcpy(recs[ngot].bytes, r->fields, r->schema->record_size);
        recs[ngot].r.fields = recs[ngot].bytes;
    }
    ngot++;
    return 0;
}

int main(void) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 2;
    o.bytes_per_shard = 4096;
    o.clock = BB_CLOCK_MANUAL;
    o.instance_id = 0x1111222233334444ull;
    o.host = "rt-recorder";
    RT_CHECK(bb_recorder_create(&o, &rec) == BB_OK, "create");
    if (!rec) return 1;
    bb_recorder_enable(rec, true);
    for (int i = 0; i < 4; i++) rt_intern_id[i] = bb_intern_str(rec, rt_intern_text[i]);

    REC(rt_scalars, scalars, .a = 1, .e = -2, .b = 3, .f = 4, .c = 5, .g = -6, .d = 7, .h = -8,
        .i = true, .j = {1, 2, 3, 4, 5, 6, 7, 8, 9});
    REC(rt_scalars, scalars, .a = UINT64_MAX, .e = INT64_MIN, .b = 0, .f = -1, .c = UINT16_MAX,
        .g = INT16_MIN, .d = UINT8_MAX, .h = -128, .i = false);
    REC(rt_scalars, scalars, .a = 1ull << 53, .e = INT64_MAX, .b = UINT32_MAX, .f = INT32_MIN,
        .g = INT16_MAX, .h = INT8_MAX, .i = true, .j = {0xff, 0, 0xab});
    REC(rt_enums, enums, .e8 = RT_E8_MAX, .e4 = RT_E4_NEG, .e2 = RT_E2_ON, .e1 = RT_E1_BACK);
    REC(rt_enums, enums, .e8 = 2, .e4 = 3, .e2 = RT_E2_NONE, .e1 = 7, .pad = {9});
    REC(rt_enums, enums, .e8 = RT_E8_ZERO, .e4 = RT_E4_BIG, .e2 = 0, .e1 = RT_E1_FWD);
    REC(rt_strings, strings, .parent = 10, .name = rt_intern_id[0], .path = rt_intern_id[1],
        .k = 7);
    REC(rt_strings, strings, .name = rt_intern_id[2], .path = 999999, .k = 8);
    REC(rt_strings, strings, .parent = UINT64_MAX, .name = rt_intern_id[3], .k = 0);
    REC(rt_mark, mark, 0);
    bb_recorder_clock_set(rec, 5000);
    RT_CHECK(BB_RECORD_SIZE(rt_mark) == 0, "marker size");
    BB_RECORD(rec, rt_mark); /* no initialisers at all */
    want[nwant].desc = BB_DESC(rt_mark);
    want_ts[nwant++] = 5000;

    /* Spans: the macros set the span_id / parent_span_id fields. */
    bb_recorder_clock_set(rec, 6000);
    uint64_t outer = BB_SPAN_ENTER(rec, rt_begin, 0, .work = 1);
    want[nwant].desc = BB_DESC(rt_begin);
    want[nwant].u.begin = (rt_begin){.span = outer, .parent = 0, .work = 1};
    want_ts[nwant++] = 6000;
    bb_recorder_clock_set(rec, 6001);
    uint64_t inner = BB_SPAN_ENTER(rec, rt_begin, outer, .work = 2);
    want[nwant].desc = BB_DESC(rt_begin);
    want[nwant].u.begin = (rt_begin){.span = inner, .parent = outer, .work = 2};
    want_ts[nwant++] = 6001;
    bb_recorder_clock_set(rec, 6002);
    BB_SPAN_EXIT(rec, rt_end, inner, .bytes = 4096);
    want[nwant].desc = BB_DESC(rt_end);
    want[nwant].u.end = (rt_end){.span = inner, .bytes = 4096};
    want_ts[nwant++] = 6002;
    bb_recorder_clock_set(rec, 6003);
    rt_end e = {.span = outer, .bytes = UINT64_MAX};
    BB_RECORD_PTR(rec, rt_end, &e);
    want[nwant].desc = BB_DESC(rt_end);
    want[nwant].u.end = e;
    want_ts[nwant++] = 6003;
    RT_CHECK(outer != 0 && inner != 0 && outer != inner, "span ids");

    void *buf = NULL;
    size_t len = 0;
    bb_error err;
    RT_CHECK(bb_recorder_dump_buffer(rec, &buf, &len, &err) == BB_OK, "dump: %s", err.message);
    bb_dump *dump = NULL;
    bb_status st = bb_dump_open_memory(buf, len, "roundtrip_recorder", &dump, &err);
    RT_CHECK(st == BB_OK, "open: %s", err.message);
    if (st != BB_OK) return 1;

    RT_CHECK(bb_dump_schema_count(dump) == 7, "schema count %zu", bb_dump_schema_count(dump));
    for (size_t i = 0; i < 7; i++) {
        const bb_rschema *s = bb_dump_find_schema(dump, rt_descs[i]->id);
        RT_CHECK(s != NULL, "%s missing from the dump", rt_descs[i]->name);
        if (s) rt_check_schema(s, rt_descs[i]);
    }
    const bb_rinstance *inst = bb_dump_find_instance(dump, o.instance_id);
    RT_CHECK(inst != NULL, "instance");
    for (size_t s = 0; inst && s < inst->shard_count; s++)
        bb_shard_walk(dump, &inst->shards[s], on_record, NULL, NULL);
    RT_CHECK(ngot == nwant, "%zu records recovered, %zu recorded", ngot, nwant);
    /* Match by timestamp (shards are per CPU, so the order across them is by ts). */
    for (size_t k = 0; k < nwant; k++) {
        size_t found = 0;
        for (size_t i = 0; i < ngot && i < MAXV; i++) {
            if (recs[i].r.ts != want_ts[k]) continue;
            found++;
            rt_check_record(&recs[i].r, inst, &want[k]);
        }
        RT_CHECK(found == 1, "record at ts %llu found %zu times", (unsigned long long)want_ts[k],
                 found);
    }
    bb_dump_close(dump);
    free(buf);
    bb_recorder_free(rec);
    printf("roundtrip_recorder: %zu records, %d failures\n", ngot, rt_failures);
    return rt_failures ? 1 : 0;
}
