/* pq_chunk_keep_test.c — a column's chunk buffer across row groups (parquet/column.h,
 * pq_col_kept / pq_col_release): kept after a row group that filled half of it or more, released
 * after one that did not and on request, and a row group written into a kept buffer is byte for
 * byte the one a fresh column writes.
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "parquet/column.h"

#define BIG 300000u /* values of a row group whose chunk passes 256 KiB (incompressible) */

/* The i-th value of row group g: pseudo-random, so that zstd cannot shrink the pages. */
static uint64_t value(uint64_t g, uint64_t i) {
    uint64_t x = (g << 40) + i + 1;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* Write row group g (n values) of column c; its chunk's bytes in the output file f (malloc'ed,
 * *len of them), NULL on failure. */
static uint8_t *row_group(pq_column *c, FILE *f, uint64_t g, uint64_t n, size_t *len) {
    for (uint64_t i = 0; i < n; i++) pq_col_u64(c, i, value(g, i));
    pq_chunk_meta m;
    memset(&m, 0, sizeof m);
    if (!pq_col_finish(c, n, &m)) return NULL;
    *len = (size_t)m.total_compressed;
    uint8_t *b = malloc(*len);
    fflush(f);
    if (!b || pread(fileno(f), b, *len, (off_t)m.data_offset) != (ssize_t)*len) {
        free(b);
        b = NULL;
    }
    pq_chunk_meta_free(&m);
    return b;
}

int main(void) {
    FILE *f = tmpfile();
    if (!f) return 1;
    pq_out out = {.fd = fileno(f)};
    pq_ctx ctx;
    if (!pq_ctx_init(&ctx, &out, 3)) return 1;
    ctx.page_bytes = 64u << 10;
    pq_column kept, fresh;
    pq_col_init(&kept, &ctx, PQ_UINT64, 0, false);
    pq_col_init(&fresh, &ctx, PQ_UINT64, 0, false);

    size_t n1, n2, nf;
    uint8_t *c1 = row_group(&kept, f, 1, BIG, &n1);
    CHECK(c1 && n1 > (256u << 10), "first row group: %zu chunk bytes", c1 ? n1 : 0);
    size_t cap = pq_col_kept(&kept);
    CHECK(cap >= n1 && cap / 2 <= n1, "kept %zu bytes after a row group of %zu", cap, n1);

    uint8_t *c2 = row_group(&kept, f, 2, BIG, &n2); /* into the kept buffer */
    uint8_t *cf = row_group(&fresh, f, 2, BIG, &nf);
    CHECK(c2 && cf && n2 == nf && memcmp(c2, cf, nf) == 0,
          "a row group in a kept buffer differs from a fresh column's (%zu / %zu bytes)", n2, nf);
    CHECK(pq_col_kept(&kept) == cap, "kept %zu, then %zu after the same size again", cap,
          pq_col_kept(&kept));

    size_t n3;
    uint8_t *c3 = row_group(&kept, f, 3, BIG / 8, &n3); /* an eighth: below half the buffer */
    CHECK(c3 && pq_col_kept(&kept) < (256u << 10),
          "a row group of %zu bytes left %zu kept: a big buffer less than half used stays", n3,
          pq_col_kept(&kept));

    free(row_group(&fresh, f, 4, BIG, &nf));
    CHECK(pq_col_kept(&fresh) > (256u << 10), "nothing kept after a big row group");
    pq_col_release(&fresh);
    CHECK(pq_col_kept(&fresh) == 0, "pq_col_release left %zu bytes", pq_col_kept(&fresh));
    size_t n5;
    uint8_t *c5 = row_group(&fresh, f, 1, BIG, &n5); /* after a release: as new */
    CHECK(c5 && c1 && n5 == n1 && memcmp(c5, c1, n1) == 0, "a row group after a release differs");

    free(c1);
    free(c2);
    free(cf);
    free(c3);
    free(c5);
    pq_col_free(&kept);
    pq_col_free(&fresh);
    pq_ctx_free(&ctx);
    fclose(f);
    if (failures) return 1;
    printf("ok: chunk buffers kept, released and written as new\n");
    return 0;
}
