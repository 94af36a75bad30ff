/* pq_genstrings.c — writes a dump whose records reference many long interned strings (the
 * Parquet string-dictionary test, tests/js/parquet_strings.mjs).
 *
 * Usage: pq_genstrings OUT.bb NSTR LEN N
 *
 * One event strs::S {u32 i, interned s}. The intern table holds NSTR strings (ids 1..NSTR) of
 * LEN bytes: string k (0-based) is "<k>:" then bytes 'a' + (k * 31 + j * 7 + j / 64) % 26 for
 * j = 0.. until LEN bytes. Record i has ts 1000 + 10 i, i = i and s = 1 + (i * 7919) % NSTR.
 * Everything is a function of (k, j) or i: the test recomputes it.
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/dump_writer.h"
#include "backbeat/registry.h"
#include "backbeat/schema.h"

static const bb_field_desc FIELDS[] = {
    {.name = "i", .offset = 0, .width = 4, .type = BB_TYPE_U32},
    {.name = "s", .offset = 4, .width = 4, .type = BB_TYPE_INTERNED},
};
static bb_event_desc EV = {.name = "strs::S", .fields = FIELDS, .field_count = 2, .record_size = 8};

typedef struct gen {
    uint64_t nstr, len, n, cap;
    char *text; /* nstr strings of len bytes, back to back */
    uint8_t *ring;
} gen;

static void put_le(uint8_t *p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void make_text(gen *g) {
    for (uint64_t k = 0; k < g->nstr; k++) {
        char *s = g->text + k * g->len;
        int pre = snprintf(s, (size_t)g->len, "%llu:", (unsigned long long)k);
        uint64_t start = pre < 0 ? 0 : (uint64_t)pre;
        if (start > g->len) start = g->len;
        for (uint64_t j = 0; start + j < g->len; j++)
            s[start + j] = (char)('a' + (k * 31 + j * 7 + j / 64) % 26);
    }
}

static uint64_t capacity(void *ctx, uint32_t s) {
    (void)s;
    return ((gen *)ctx)->cap;
}

static const uint8_t *region(void *ctx, uint32_t s, uint8_t *scratch, uint64_t *head) {
    (void)s;
    (void)scratch;
    gen *g = ctx;
    for (uint64_t i = 0; i < g->n; i++) {
        uint8_t *p = g->ring + 26 * i;
        put_le(p, 1000 + 10 * i, 8);
        put_le(p + 8, EV.id, 8);
        put_le(p + 16, i, 4);
        put_le(p + 20, 1 + (i * 7919) % g->nstr, 4);
        put_le(p + 24, 24, 2);
    }
    *head = 26 * g->n;
    return g->ring;
}

static bb_intern_item intern_get(void *ctx, size_t i) {
    gen *g = ctx;
    return (bb_intern_item){
        .id = (uint32_t)(i + 1), .len = (uint32_t)g->len, .bytes = g->text + i * g->len};
}

static int write_all(void *ctx, const void *data, size_t len) {
    return fwrite(data, 1, len, (FILE *)ctx) == len ? 0 : 1;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: pq_genstrings OUT.bb NSTR LEN N\n");
        return 2;
    }
    gen g = {.nstr = strtoull(argv[2], NULL, 10),
             .len = strtoull(argv[3], NULL, 10),
             .n = strtoull(argv[4], NULL, 10)};
    if (g.nstr == 0 || g.nstr > 1000000 || g.len < 8 || g.len > (1u << 20)) {
        fprintf(stderr, "pq_genstrings: NSTR 1..1e6, LEN 8..1 MiB\n");
        return 2;
    }
    g.cap = 4096;
    while (g.cap < 26 * g.n) g.cap *= 2;
    g.text = malloc(g.nstr * g.len);
    g.ring = calloc(1, g.cap);
    if (!g.text || !g.ring) return 1;
    make_text(&g);
    EV.id = bb_event_id_compute(&EV);
    const bb_event_desc *evs[] = {&EV};
    bb_dump_input in = {.instance_id = 9,
                        .host = "strings-host",
                        .events = evs,
                        .event_count = 1,
                        .intern_count = g.nstr,
                        .intern_get = intern_get,
                        .shard_count = 1,
                        .shard_capacity = capacity,
                        .shard_region = region,
                        .ctx = &g};
    FILE *f = fopen(argv[1], "wb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    bb_error err;
    bb_sink sink = {.write = write_all, .ctx = f};
    int rc = bb_dump_write(&in, sink, NULL, &err) == BB_OK ? 0 : 1;
    if (rc) fprintf(stderr, "pq_genstrings: %s\n", err.message);
    if (fclose(f) != 0) rc = 1;
    free(g.text);
    free(g.ring);
    return rc;
}
