/* tail_types_gen.c — a ring file for tail_types_check.mjs (issue 37: tail's JSON lines rendered
 * by plans, checked against a rendering written independently in JavaScript): an event with a
 * field of every type (unsigned and signed of each width, with values past 2^53, a bool, bytes,
 * an enum with and without a label, an interned string with characters JSON escapes, a field
 * with a sentinel, padding), a span enter/exit pair and a log line, in blocks recorded on CPU 0
 * and CPU 1 in turn (so the two rings' records interleave in time). Every value is a function of
 * the record's seq, restated in the checker. Kept at exit (state closed).
 *
 * Usage: tail_types_gen DIR N   (prints the ring file's path; N records of the typed event)
 */
/* SPDX-License-Identifier: MIT */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "backbeat/backbeat.h"

BB_ENUM(tt_color, uint16_t, (TT_RED, 1, "red"), (TT_GREEN, 2, "gr\"een"), (TT_BLUE, 700, "blue"));
BB_EVENT(tt_all, "tail_types", "All", "every field type", BB_KEY(uint64_t, seq, "record number"),
         BB_FIELD(uint64_t, u64, NULL), BB_FIELD(int64_t, i64, NULL), BB_FIELD(uint32_t, u32, NULL),
         BB_FIELD(int32_t, i32, NULL), BB_FIELD(uint32_t, opt, NULL, BB_SENTINEL(0xFFFFFFFFu)),
         BB_INTERN_DYN_F(name, NULL), BB_FIELD(uint16_t, u16, NULL), BB_FIELD(int16_t, i16, NULL),
         BB_ENUM_F(tt_color, color, NULL), BB_FIELD(uint8_t, u8, NULL), BB_FIELD(int8_t, i8, NULL),
         BB_FIELD(bool, flag, NULL), BB_FIELD(uint8_t[5], raw, NULL),
         BB_FIELD(uint8_t[2], _pad, NULL));
BB_SPAN_ENTER_EVENT(tt_enter, "tail_types", "Work", NULL, BB_SPAN_ID(uint64_t, span, NULL),
                    BB_FIELD(uint16_t, depth, NULL, BB_SENTINEL(0)),
                    BB_FIELD(uint8_t[6], _pad, NULL));
BB_SPAN_EXIT_EVENT(tt_exit, "tail_types", "Work", NULL, BB_SPAN_ID(uint64_t, span, NULL),
                   BB_FIELD(uint16_t, depth, NULL, BB_SENTINEL(0)),
                   BB_FIELD(uint8_t[6], _pad, NULL));

/* The names the interned field takes (restated in the checker). */
static const char *const names[4] = {"plain", "quote\" back\\slash", "tab\tnl\nbell\a\b\f\x1f",
                                     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8e\xb5"};

static void on_cpu(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu % (int)sysconf(_SC_NPROCESSORS_ONLN), &set);
    sched_setaffinity(0, sizeof set, &set);
}

static void record(bb_recorder *rec, uint64_t s) {
    uint8_t k = (uint8_t)(s % 7);
    tt_all v = {
        .seq = s,
        .u64 = s % 3 == 0 ? 18446744073709551615ull - s : s * 1000003ull, /* past 2^53, or not */
        .i64 = s % 2 ? -(int64_t)(s * 3000000000000ull) : (int64_t)(s * 12345ull), /* and past */
        .u32 = (uint32_t)(4294967295ull - s * 7),
        .i32 = s % 2 ? -2147483647 - 1 + (int32_t)s : (int32_t)s * 1000,
        .opt = s % 5 == 0 ? 0xFFFFFFFFu : (uint32_t)s, /* the sentinel: null */
        .name = bb_intern_str(rec, names[s % 4]),
        .u16 = (uint16_t)(65535 - s),
        .i16 = (int16_t)(s % 2 ? -32768 + (int)(s % 100) : (int)(s % 32767)),
        .color = k == 0   ? TT_RED
                 : k == 1 ? TT_GREEN
                 : k == 2 ? TT_BLUE
                          : (tt_color)(k * 10),
        .u8 = (uint8_t)(s * 37),
        .i8 = (int8_t)(s % 2 ? -128 + (int)(s % 50) : (int)(s % 127)),
        .flag = s % 3 == 1,
        .raw = {(uint8_t)s, (uint8_t)(s >> 8), 0xab, 0x00, 0xff},
        ._pad = {0, 0},
    };
    BB_RECORD_PTR(rec, tt_all, &v);
    if (s % 10 == 0) {
        BB_RECORD(rec, tt_enter, .span = s + 1, .depth = (uint16_t)(s % 3));
        BB_LOG(rec, BB_INFO, "record %llu of %s", (unsigned long long)s, BB_I(names[s % 4]));
        BB_RECORD(rec, tt_exit, .span = s + 1, .depth = (uint16_t)(s % 3));
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: tail_types_gen DIR N\n");
        return 2;
    }
    uint64_t n = strtoull(argv[2], NULL, 10);
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 2;
    o.bytes_per_shard = 64 << 10; /* N = 4000 wraps them: a record wraps, the oldest go */
    bb_recorder *rec = NULL;
    bb_error err;
    if (bb_recorder_create_ring(&o, argv[1], true, &rec, &err) != BB_OK) {
        fprintf(stderr, "tail_types_gen: %s\n", err.message);
        return 1;
    }
    bb_recorder_enable(rec, true);
    for (uint64_t s = 0; s < n; s++) {
        if (s % 50 == 0) on_cpu((int)(s / 50) % 2); /* blocks of 50 on each CPU in turn */
        record(rec, s);
    }
    printf("%s\n", bb_recorder_ring_path(rec));
    bb_recorder_free(rec);
    return 0;
}
