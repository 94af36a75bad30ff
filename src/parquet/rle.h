/* parquet_rle.h — the RLE / bit-packing hybrid encoding of Parquet (Encodings.md), used for
 * definition levels and for dictionary indices.
 *
 * Values are fed as runs (value, count) so that the long stretches of NULLs of a sparse-wide
 * table cost O(1) each. Runs of at least 8 equal values become RLE runs; shorter stretches are
 * gathered into bit-packed groups of 8. Only the final group of the stream is padded (readers
 * stop at the page's value count), so the encoder borrows values from a long run to complete a
 * pending bit-packed group before starting the RLE run. Pending literals are kept bit-packed
 * already (a short stretch costs a few shifts, not a store and a later pass per value), and
 * extending the current run is inline.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_PARQUET_RLE_H
#define BB_PARQUET_RLE_H

#include <stdint.h>

#include "parquet/buf.h"

#define PQ_RLE_LITCAP 64 /* pending bit-packed values (a multiple of 8; small: one per column) */

typedef struct pq_rle {
    pq_buf *out;
    int bit_width; /* 1..32 */
    uint32_t run_val;
    uint64_t run_len;
    uint32_t nlit; /* pending literals, bit-packed in `packed` (LSB first), the rest zero */
    uint64_t packed[PQ_RLE_LITCAP * 32 / 64];
} pq_rle;

/* Start an encoded stream appended to `out` with values of `bit_width` bits (1..32). */
void pq_rle_init(pq_rle *e, pq_buf *out, int bit_width);
/* Pack `k` copies of `v` after the pending literals (k <= PQ_RLE_LITCAP - nlit; nlit not
 * advanced). */
static inline void pq_rle_pack(pq_rle *e, uint32_t v, uint32_t k) {
    if (v == 0) return; /* the free bits are zero already */
    unsigned w = (unsigned)e->bit_width;
    uint64_t b = (uint64_t)e->nlit * w;
    if (w == 1) { /* nlit + k <= 64: one word */
        e->packed[0] |= (k >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << k) - 1) << b;
        return;
    }
    for (uint32_t i = 0; i < k; i++, b += w) {
        unsigned sh = (unsigned)(b & 63);
        e->packed[b >> 6] |= (uint64_t)v << sh;
        if (sh + w > 64) e->packed[(b >> 6) + 1] |= (uint64_t)v >> (64 - sh);
    }
}

/* Append `n` copies of `v` (v < 2^bit_width). */
void pq_rle_put_slow(pq_rle *e, uint32_t v, uint64_t n);
static inline void pq_rle_put(pq_rle *e, uint32_t v, uint64_t n) {
    if (e->run_len > 0 && v == e->run_val) {
        e->run_len += n;
        return;
    }
    /* a short run ending that joins the pending literals without filling them: what
     * pq_rle_put_slow does then, inline */
    if (n > 0 && e->run_len - 1 < 7 && e->nlit + e->run_len < PQ_RLE_LITCAP) {
        pq_rle_pack(e, e->run_val, (uint32_t)e->run_len);
        e->nlit += (uint32_t)e->run_len;
        e->run_val = v;
        e->run_len = n;
        return;
    }
    pq_rle_put_slow(e, v, n);
}
/* Emit everything pending; the stream is complete. */
void pq_rle_finish(pq_rle *e);

/* The whole stream of `n` values v[] (each < 2^bit_width, bit_width 1..32) appended to `out`:
 * the bytes pq_rle_init, pq_rle_put of each value and pq_rle_finish append, without a call per
 * run (a page of dictionary indices, whose runs are short: their literals are packed 64 bits
 * at a time). Allocation failure sets out->failed. */
void pq_rle_encode_u32(pq_buf *out, const uint32_t *v, size_t n, int bit_width);

/* Bits needed to represent values 0..max (at least 1). */
int pq_bit_width(uint64_t max);

#endif /* BB_PARQUET_RLE_H */
