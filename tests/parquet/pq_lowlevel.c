/* pq_lowlevel.c — writes a Parquet file through the encoding layer alone (columns, pages,
 * dictionaries with fallback, nested optional struct, several row groups, tiny pages), for
 * tests/js/parquet_lowlevel.mjs to check value by value with DuckDB and hyparquet.
 *
 * Usage: pq_lowlevel OUT.parquet   (the data is a pure function of the row number; the reader
 * script recomputes it).
 */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parquet/column.h"
#include "parquet/footer.h"

#define ROWS 30000u
#define RG 7000u

static const uint64_t E_VALUES[4] = {1, (1ull << 63) + 5, UINT64_MAX, 7};

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: pq_lowlevel OUT\n");
        return 2;
    }
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    pq_out out = {.fd = fd};
    pq_ctx ctx;
    if (!pq_ctx_init(&ctx, &out, 3)) return 1;
    ctx.page_bytes = 4096;
    ctx.dict_max = 2000;
    pq_node nodes[] = {
        {.name = "a", .type = PQ_UINT64, .parent = -1},
        {.name = "s", .type = PQ_STRING, .optional = true, .parent = -1},
        {.name = "g", .optional = true, .num_children = 2, .parent = -1},
        {.name = "x", .type = PQ_INT64, .optional = true, .parent = 2},
        {.name = "b", .type = PQ_BOOLEAN, .optional = true, .parent = 2},
        {.name = "e", .type = PQ_UINT64, .optional = true, .parent = -1},
    };
    enum { NLEAF = 5 };
    pq_column col[NLEAF];
    pq_col_init(&col[0], &ctx, PQ_UINT64, 0, false);
    pq_col_init(&col[1], &ctx, PQ_STRING, 1, true);
    pq_col_init(&col[2], &ctx, PQ_INT64, 2, true);
    pq_col_init(&col[3], &ctx, PQ_BOOLEAN, 2, false);
    pq_col_init(&col[4], &ctx, PQ_UINT64, 1, true);
    pq_dict_cache cache[4] = {{0, 0}};

    pq_rowgroup rgs[ROWS / RG + 1] = {{0}}; /* codec 0 = zstd, as ctx */
    size_t nrg = 0;
    if (!pq_out_write(&out, "PAR1", 4)) return 1;
    uint64_t r = 0; /* row within the row group */
    for (uint64_t i = 0; i < ROWS; i++) {
        pq_col_u64(&col[0], r, i * 0x9E3779B97F4A7C15ull);
        if (i % 7 != 0) {
            char s[32];
            int n = i < 20000 ? snprintf(s, sizeof s, "v%u", (unsigned)(i % 50))
                              : snprintf(s, sizeof s, "u%u", (unsigned)i);
            pq_col_str(&col[1], r, s, (size_t)n);
        }
        if (i % 3 != 0) {
            if (i % 5 == 0) pq_col_null(&col[2], r, 1);
            else pq_col_u64(&col[2], r, (uint64_t)(-(int64_t)(i * 1000)));
            pq_col_bool(&col[3], r, i % 2 == 0);
        }
        if (i % 11 != 0) pq_col_u64_cached(&col[4], r, E_VALUES[i % 4], &cache[i % 4]);
        r++;
        if (r == RG || i + 1 == ROWS) {
            rgs[nrg].num_rows = r;
            rgs[nrg].chunks = calloc(NLEAF, sizeof(pq_chunk_meta));
            for (int c = 0; c < NLEAF; c++)
                if (!pq_col_finish(&col[c], r, &rgs[nrg].chunks[c])) {
                    fprintf(stderr, "column %d failed\n", c);
                    return 1;
                }
            nrg++;
            r = 0;
        }
    }
    pq_buf foot = {0};
    pq_kv kv[] = {{"k", "v"}};
    if (!pq_footer_encode(&foot, nodes, sizeof nodes / sizeof nodes[0], rgs, nrg, ROWS, kv, 1,
                          "backbeat test"))
        return 1;
    pq_buf_u32le(&foot, (uint32_t)foot.len);
    pq_buf_put(&foot, "PAR1", 4);
    if (foot.failed || !pq_out_write(&out, foot.data, foot.len) || close(fd) != 0) return 1;
    for (size_t g = 0; g < nrg; g++) {
        for (int c = 0; c < NLEAF; c++) pq_chunk_meta_free(&rgs[g].chunks[c]);
        free(rgs[g].chunks);
    }
    for (int c = 0; c < NLEAF; c++) pq_col_free(&col[c]);
    pq_buf_free(&foot);
    pq_ctx_free(&ctx);
    return 0;
}
