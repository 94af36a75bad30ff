/* pq_defer_test.c — deferred pages (parquet/column.h, pq_cut_fn): a column whose full pages are
 * cut and compressed later (at the next cut, as the Parquet engine's workers may leave them)
 * writes the bytes and metadata of one that compresses each page where it fills: required
 * PLAIN columns (the values swapped into the cut page), optional ones with NULLs, dictionaries
 * kept and given up, booleans, across row groups. The hook sees every cut in order.
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "read_fd.h"
#include "parquet/column.h"

#define ROWS 30000u

typedef struct tcase {
    const char *name;
    pq_type type;
    int max_def;
    bool dict;
    unsigned distinct; /* values cycle through this many (0: all different) */
} tcase;

/* The deferring hook's state: the page cut last waits in the column until the next cut. */
typedef struct hook {
    pq_ctx *ctx;
    bool waiting;  /* a cut page not compressed yet */
    unsigned cuts; /* PQ_CUT_AFTER calls */
    bool out_of_order;
} hook;

static void on_cut(void *arg, pq_column *c, int phase) {
    hook *h = arg;
    if (phase == PQ_CUT_BEFORE) {
        if (h->waiting && !pq_col_compress_pend(c, h->ctx))
            h->out_of_order = true; /* reported as a failure below */
        h->waiting = false;
        return;
    }
    if (h->waiting) h->out_of_order = true; /* a cut over a page not compressed */
    h->waiting = true;
    h->cuts++;
}

static uint64_t value(const tcase *t, uint64_t i) {
    uint64_t x = i * 0x9e3779b97f4a7c15ull;
    return t->distinct ? x % t->distinct : x;
}

/* Rows of case t into c: every 5th row NULL in optional columns. */
static void write_rows(pq_column *c, const tcase *t, uint64_t rows) {
    for (uint64_t i = 0; i < rows; i++) {
        if (t->max_def > 0 && i % 5 == 2) continue;
        if (t->type == PQ_BOOLEAN) pq_col_bool(c, i, value(t, i) & 1);
        else pq_col_u64(c, i, value(t, i));
    }
}

/* Case t written with pages compressed where they fill (mode 0) and deferred (mode 1). */
static void run_case(const tcase *t) {
    FILE *f[2] = {tmpfile(), tmpfile()};
    uint8_t *bytes[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    int64_t values[2][3] = {{0}}, nulls[2][3] = {{0}};
    hook h = {0};
    for (int mode = 0; mode < 2 && f[0] && f[1]; mode++) {
        pq_out out = {.fd = fileno(f[mode])};
        pq_ctx ctx;
        if (!pq_ctx_init(&ctx, &out, 3)) break;
        ctx.page_bytes = 4000;
        h.ctx = &ctx;
        pq_column c;
        pq_col_init(&c, &ctx, t->type, t->max_def, t->dict);
        if (mode == 1) {
            c.on_cut = on_cut;
            c.cut_arg = &h;
        }
        for (int g = 0; g < 3; g++) {
            uint64_t rows = ROWS - 5000u * (unsigned)g;
            write_rows(&c, t, rows);
            if (mode == 1 && h.waiting) { /* the seal needs the page before compressed */
                CHECK(pq_col_compress_pend(&c, &ctx), "%s: a deferred compression failed", t->name);
                h.waiting = false;
            }
            pq_chunk_meta m;
            memset(&m, 0, sizeof m);
            CHECK(pq_col_finish(&c, rows, &m), "%s: row group %d of mode %d failed", t->name, g,
                  mode);
            values[mode][g] = m.num_values;
            nulls[mode][g] = m.null_count;
            pq_chunk_meta_free(&m);
        }
        pq_col_free(&c);
        pq_ctx_free(&ctx);
        bytes[mode] = test_file_bytes(f[mode], &len[mode]);
    }
    CHECK(h.cuts >= 6 && !h.out_of_order, "%s: %u cuts%s", t->name, h.cuts,
          h.out_of_order ? ", one over a page not compressed" : "");
    CHECK(bytes[0] && bytes[1] && len[0] > 0 && len[0] == len[1] &&
              memcmp(bytes[0], bytes[1], len[0]) == 0,
          "%s: deferred pages wrote %zu bytes, pages compressed where they fill %zu (or other "
          "bytes)",
          t->name, len[1], len[0]);
    for (int g = 0; g < 3; g++)
        CHECK(values[0][g] == values[1][g] && nulls[0][g] == nulls[1][g],
              "%s: row group %d: %lld / %lld values, %lld / %lld NULLs", t->name, g,
              (long long)values[0][g], (long long)values[1][g], (long long)nulls[0][g],
              (long long)nulls[1][g]);
    free(bytes[0]);
    free(bytes[1]);
    for (int i = 0; i < 2; i++)
        if (f[i]) fclose(f[i]);
}

int main(void) {
    static const tcase cases[] = {
        {"uint64 required plain", PQ_UINT64, 0, false, 0},
        {"int64 optional plain", PQ_INT64, 1, false, 0},
        {"uint64 required dictionary kept", PQ_UINT64, 0, true, 50},
        {"int64 optional dictionary given up", PQ_INT64, 1, true, 0},
        {"boolean optional", PQ_BOOLEAN, 1, false, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);
    if (failures) return 1;
    printf("ok: deferred pages write what pages compressed where they fill write (%zu cases)\n",
           sizeof cases / sizeof cases[0]);
    return 0;
}
