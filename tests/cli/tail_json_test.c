/* tail_json_test.c — `backbeat tail --format jsonl`'s renderer (cli/tail_json.c) against lines
 * written here with snprintf: timestamps on both sides of every boundary its fast path treats
 * apart (below 10^8, the hundred-million holding 2^53, 2^53 itself, UINT64_MAX), timestamps whose
 * shared digits change from record to record, records of one event alternating between shards
 * and instances (plans per event, instance and shard), an event without fields, unsigned and
 * signed fields of every width with values around 2^53 and 10^8 (and the digits emit/obuf.h's
 * em_put_u64 writes for them), a bool and a sentinel; plans kept and reset between the records. */
/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/tail_json.h"
#include "emit/obuf.h"

#define SAFE ((uint64_t)1 << 53)

static int g_fail;

#define SV(s) \
    { s, sizeof s - 1 }

/* The event of the checks: u64 a, i32 b, bool c, u16 d (sentinel 0xFFFF), i8 e, u8 f. */
static const bb_rfield FIELDS[] = {
    {.name = SV("a"), .type = BB_TYPE_U64, .offset = 0, .width = 8},
    {.name = SV("b"), .type = BB_TYPE_I32, .offset = 8, .width = 4},
    {.name = SV("c"), .type = BB_TYPE_BOOL, .offset = 12, .width = 1},
    {.name = SV("_pad"), .type = BB_TYPE_U8, .offset = 13, .width = 1},
    {.name = SV("d"),
     .type = BB_TYPE_U16,
     .offset = 14,
     .width = 2,
     .has_sentinel = true,
     .sentinel = 0xFFFF},
    {.name = SV("e"), .type = BB_TYPE_I8, .offset = 16, .width = 1},
    {.name = SV("f"), .type = BB_TYPE_U8, .offset = 17, .width = 1},
};
static const bb_rschema EV = {.id = 0x0123456789abcdefu,
                              .name = SV("t::Ev"),
                              .record_size = 18,
                              .field_count = sizeof FIELDS / sizeof *FIELDS,
                              .fields = FIELDS};
static const bb_rschema BARE = {.id = 0xfedcba9876543210u, .name = SV("t::Bare")};

/* A number as the golden JSON writes it: up to 2^53 a number, past it a string. */
static int num(char *p, size_t n, uint64_t mag, bool neg) {
    const char *q = mag > BB_JSON_SAFE_MAX ? "\"" : "";
    return snprintf(p, n, "%s%s%" PRIu64 "%s", q, neg ? "-" : "", mag, q);
}

typedef struct rec {
    uint64_t ts, a;
    int32_t b;
    bool c;
    uint16_t d;
    int8_t e;
    uint8_t f;
} rec;

static void pack(const rec *r, uint8_t *f) {
    memset(f, 0, 18);
    memcpy(f, &r->a, 8);
    memcpy(f + 8, &r->b, 4);
    f[12] = r->c;
    memcpy(f + 14, &r->d, 2);
    memcpy(f + 16, &r->e, 1);
    f[17] = r->f;
}

/* The line of r (event EV, or BARE when bare) of inst on shard, as tail_json.h describes it. */
static size_t expect(char *o, size_t n, const rec *r, bool bare, const bb_rinstance *in,
                     uint32_t shard) {
    const bb_rschema *s = bare ? &BARE : &EV;
    char ts[32], a[32], b[32], pid[32];
    num(ts, sizeof ts, r->ts, false);
    num(a, sizeof a, r->a, false);
    num(b, sizeof b, r->b < 0 ? (uint64_t)0 - (uint64_t)(int64_t)r->b : (uint64_t)r->b, r->b < 0);
    if (in->has_process) snprintf(pid, sizeof pid, "%" PRIu64, in->pid);
    else snprintf(pid, sizeof pid, "null");
    int k = snprintf(o, n,
                     "{\"ts_nanos\":%s,\"event\":\"%.*s\",\"event_id\":\"%016" PRIx64
                     "\",\"instance_id\":\"%016" PRIx64 "\",\"pid\":%s,\"shard\":%u",
                     ts, (int)s->name.len, s->name.ptr, s->id, in->instance_id, pid, shard);
    if (!bare) {
        char d[16];
        if (r->d == 0xFFFF) snprintf(d, sizeof d, "null");
        else snprintf(d, sizeof d, "%u", r->d);
        k +=
            snprintf(o + k, n - (size_t)k, ",\"a\":%s,\"b\":%s,\"c\":%s,\"d\":%s,\"e\":%d,\"f\":%u",
                     a, b, r->c ? "true" : "false", d, r->e, r->f);
    }
    k += snprintf(o + k, n - (size_t)k, "}\n");
    return (size_t)k;
}

static const uint64_t TS[] = {0,
                              7,
                              99999999,
                              100000000,
                              123456789012,
                              1796639171453006401u,
                              1796639171453006402u,
                              1796639171553006401u,
                              SAFE - 1,
                              SAFE,
                              SAFE + 1,
                              9007199200000000u,
                              9007199299999999u,
                              9007199300000000u,
                              9007199100000000u,
                              9007199199999999u,
                              999999999999999999u,
                              1000000000000000000u,
                              UINT64_MAX};
static const uint64_t VALS[] = {0,         9,          10,         99999999,          100000000,
                                123456789, SAFE - 1,   SAFE,       SAFE + 1,          UINT64_MAX,
                                1u << 31,  4294967295, 4294967296, 10000000000000000u};

int main(void) {
    cli_tail_json *j = cli_tail_json_new();
    em_obuf got;
    if (!j || !em_obuf_init(&got, -1, 4096)) return 1;
    bb_rinstance inst[2] = {{.instance_id = 0xaabbccddeeff0011u, .has_process = true, .pid = 4242},
                            {.instance_id = 0x1u}};
    char want[1024];
    uint8_t f[18];
    size_t nts = sizeof TS / sizeof *TS, nv = sizeof VALS / sizeof *VALS, lines = 0;
    for (size_t i = 0; i < 4000; i++) {
        rec r = {.ts = TS[i % nts] + (i / nts) * (i % 3 ? 1 : 100000000u),
                 .a = VALS[i % nv] + (i / nv) % 2,
                 .b = (int32_t)(i % 2 ? -(int64_t)(i * 7919u % 2147483648u) : (int64_t)(i * 31u)),
                 .c = i % 3 == 0,
                 .d = (uint16_t)(i % 5 == 0 ? 0xFFFF : i * 13),
                 .e = (int8_t)(i % 7 == 0 ? -128 : (int)(i % 127) - 60),
                 .f = (uint8_t)i};
        if (r.ts < TS[i % nts]) r.ts = TS[i % nts]; /* (no wrap past UINT64_MAX) */
        bool bare = i % 11 == 0;
        const bb_rinstance *in = &inst[i / 3 % 2];
        uint32_t shard = i % 4 == 3 ? 12 : (uint32_t)(i / 2 % 2);
        pack(&r, f);
        size_t n = expect(want, sizeof want, &r, bare, in, shard);
        got.len = 0;
        if (!cli_tail_json_put(j, &got, bare ? &BARE : &EV, in, r.ts, shard, f)) {
            printf("FAIL: record %zu: out of memory\n", i);
            return 1;
        }
        if (got.len != n || memcmp(got.data, want, n)) {
            printf("FAIL: record %zu:\n  got  %.*s  want %s", i, (int)got.len, got.data, want);
            if (++g_fail > 5) break;
        }
        lines++;
        if (i % 500 == 499) cli_tail_json_reset(j);
    }
    /* em_put_u64's digits (emit/obuf.h) against printf's, every value below 2 * 10^6 and past. */
    char buf[64], ref[32];
    for (uint64_t v = 0, step = 1; v < UINT64_MAX - step && g_fail < 10; v += step) {
        if (v >= 2000000) step += step / 64 + 1;
        for (uint64_t w = v; w <= v + 2 && w >= v; w++) {
            size_t n = (size_t)(em_put_u64(buf, w) - buf);
            int k = snprintf(ref, sizeof ref, "%" PRIu64, w);
            if (n != (size_t)k || memcmp(buf, ref, n)) {
                printf("FAIL: em_put_u64(%s) wrote %.*s\n", ref, (int)n, buf);
                g_fail++;
            }
        }
    }
    for (uint64_t p = 1; p <= UINT64_MAX / 10 && !g_fail; p *= 10) {
        for (uint64_t w = p - 1; w <= p; w++) {
            size_t n = (size_t)(em_put_u64(buf, w) - buf);
            int k = snprintf(ref, sizeof ref, "%" PRIu64, w);
            if (n != (size_t)k || memcmp(buf, ref, n)) {
                printf("FAIL: em_put_u64(%s) wrote %.*s\n", ref, (int)n, buf);
                g_fail++;
            }
        }
    }
    free(got.data);
    cli_tail_json_free(j);
    if (!g_fail) printf("ok: %zu lines as written here; em_put_u64 as printf\n", lines);
    return g_fail ? 1 : 0;
}
