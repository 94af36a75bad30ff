/* pq_col_run_test.c — the runs of parquet/column.h (pq_col_u64_run, pq_col_index_run) write
 * what the per-value calls write: the same chunk bytes, levels, counts and statistics, across
 * page boundaries, NULL gaps, dictionary pages, a dictionary given up mid-chunk (PLAIN from
 * there), signed and unsigned columns, required and optional ones, and several row groups.
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "read_fd.h"
#include "parquet/column.h"

#define ROWS 20000u
#define RUN 37u    /* values handed to one run call at most: runs end between page boundaries */
#define VALUES 64u /* distinct values of a low-cardinality column */

/* A case: the column's type, levels and dictionary, and how its rows look. */
typedef struct tcase {
    const char *name;
    pq_type type;
    int max_def;
    bool dict;
    bool distinct; /* every value different: a dictionary gives up after its probe */
    bool gaps;     /* every 7th row and rows 5000-5099 NULL (optional columns) */
} tcase;

/* The slot of row i's value among the VALUES of a low-cardinality column (its cache). */
static unsigned slot(uint64_t i) { return (unsigned)((i * 13) % VALUES); }

/* The value of row i of case t (negative ones for INT64: the signed statistics differ). */
static uint64_t value(const tcase *t, uint64_t i) {
    uint64_t x = t->distinct ? i * 0x9e3779b97f4a7c15ull : slot(i);
    return t->type == PQ_INT64 ? x - (x % 3 ? 0 : 100) : x;
}

static bool is_null(const tcase *t, uint64_t i) {
    return t->gaps && (i % 7 == 3 || (i >= 5000 && i < 5100));
}

/* Write the rows of case t: value by value, or in runs (mode 1). Dictionary columns of
 * low-cardinality values pass their cached indices (mode 1: pq_col_index_run while a cache is
 * current, as the Parquet writer's dense columns). */
static void write_rows(pq_column *c, const tcase *t, uint64_t rows, int mode,
                       pq_dict_cache *cache) {
    uint64_t v[RUN];
    uint32_t idx[RUN];
    for (uint64_t i = 0; i < rows;) {
        if (is_null(t, i)) {
            i++; /* a gap: the next value writes its NULL level */
            continue;
        }
        size_t n = 0;
        while (n < RUN && i + n < rows && !is_null(t, i + n)) {
            v[n] = value(t, i + n);
            n++;
        }
        bool cached = t->dict && !t->distinct;
        if (mode == 0) {
            for (size_t k = 0; k < n; k++) {
                if (cached) pq_col_u64_cached(c, i + k, v[k], &cache[slot(i + k)]);
                else pq_col_u64(c, i + k, v[k]);
            }
            i += n;
            continue;
        }
        size_t m = 0;
        if (cached) {
            uint64_t gen = c->dict.generation + 1;
            while (m < n && cache[slot(i + m)].generation == gen) {
                idx[m] = cache[slot(i + m)].index;
                m++;
            }
            m = m ? pq_col_index_run(c, i, idx, m) : 0;
            if (m == 0) {
                pq_col_u64_cached(c, i, v[0], &cache[slot(i)]);
                m = 1;
            }
        } else {
            m = pq_col_u64_run(c, i, v, n);
            if (m == 0) {
                pq_col_u64(c, i, v[0]);
                m = 1;
            }
        }
        i += m;
    }
}

/* Case t written in mode 0 and 1 into two files, three row groups each: same bytes, same
 * chunk metadata. */
static void run_case(const tcase *t) {
    FILE *f[2] = {tmpfile(), tmpfile()};
    uint8_t *bytes[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    pq_chunk_meta meta[2][3];
    memset(meta, 0, sizeof meta);
    for (int mode = 0; mode < 2 && f[0] && f[1]; mode++) {
        pq_out out = {.fd = fileno(f[mode])};
        pq_ctx ctx;
        if (!pq_ctx_init(&ctx, &out, 3)) break;
        ctx.page_bytes = 1000; /* not a multiple of 8 or 4: runs stop mid-way */
        pq_column c;
        pq_col_init(&c, &ctx, t->type, t->max_def, t->dict);
        pq_dict_cache cache[VALUES];
        memset(cache, 0, sizeof cache);
        for (int g = 0; g < 3; g++) {
            write_rows(&c, t, ROWS - 1000u * (unsigned)g, mode, cache);
            CHECK(pq_col_finish(&c, ROWS - 1000u * (unsigned)g, &meta[mode][g]),
                  "%s: row group %d of mode %d failed", t->name, g, mode);
        }
        pq_col_free(&c);
        pq_ctx_free(&ctx);
        bytes[mode] = test_file_bytes(f[mode], &len[mode]);
    }
    CHECK(bytes[0] && bytes[1] && len[0] > 0 && len[0] == len[1] &&
              memcmp(bytes[0], bytes[1], len[0]) == 0,
          "%s: runs wrote %zu bytes, values one by one %zu (or different ones)", t->name, len[1],
          len[0]);
    for (int g = 0; g < 3; g++) {
        const pq_chunk_meta *a = &meta[0][g], *b = &meta[1][g];
        CHECK(a->num_values == b->num_values && a->null_count == b->null_count &&
                  a->enc_dict == b->enc_dict && a->has_minmax == b->has_minmax &&
                  a->min_len == b->min_len && a->max_len == b->max_len &&
                  (!a->has_minmax || (memcmp(a->min, b->min, a->min_len) == 0 &&
                                      memcmp(a->max, b->max, a->max_len) == 0)),
              "%s: row group %d's metadata differs (values %lld / %lld, nulls %lld / %lld)",
              t->name, g, (long long)a->num_values, (long long)b->num_values,
              (long long)a->null_count, (long long)b->null_count);
        pq_chunk_meta_free(&meta[0][g]);
        pq_chunk_meta_free(&meta[1][g]);
    }
    free(bytes[0]);
    free(bytes[1]);
    for (int i = 0; i < 2; i++)
        if (f[i]) fclose(f[i]);
}

int main(void) {
    static const tcase cases[] = {
        {"uint64 required plain", PQ_UINT64, 0, false, true, false},
        {"int64 optional plain with gaps", PQ_INT64, 1, false, true, true},
        {"int64 optional dictionary given up", PQ_INT64, 1, true, true, true},
        {"uint64 required dictionary given up", PQ_UINT64, 0, true, true, false},
        {"uint64 required cached indices", PQ_UINT64, 0, true, false, false},
        {"int64 optional cached indices with gaps", PQ_INT64, 1, true, false, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i]);

    /* the wrong kind of page: nothing written */
    pq_out out = {.fd = -1};
    pq_ctx ctx;
    if (!pq_ctx_init(&ctx, &out, 3)) return 1;
    pq_column c;
    uint64_t v = 1;
    uint32_t idx = 0;
    pq_col_init(&c, &ctx, PQ_UINT64, 0, true);
    CHECK(pq_col_u64_run(&c, 0, &v, 1) == 0 && c.rows == 0,
          "pq_col_u64_run wrote into a dictionary page");
    pq_col_free(&c);
    pq_col_init(&c, &ctx, PQ_UINT64, 0, false);
    CHECK(pq_col_index_run(&c, 0, &idx, 1) == 0 && c.rows == 0,
          "pq_col_index_run wrote into a PLAIN page");
    CHECK(pq_col_u64_run(&c, 0, &v, 0) == 0, "an empty run wrote something");
    pq_col_free(&c);
    pq_ctx_free(&ctx);
    if (failures) return 1;
    printf("ok: runs write what values one by one write (%zu cases)\n",
           sizeof cases / sizeof cases[0]);
    return 0;
}
