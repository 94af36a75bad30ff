/* parquet_rle.c — RLE / bit-packing hybrid encoder (see parquet_rle.h). */
/* SPDX-License-Identifier: MIT */
#include "parquet/rle.h"

void pq_rle_init(pq_rle *e, pq_buf *out, int bit_width)
{
    e->out = out;
    e->bit_width = bit_width < 1 ? 1 : bit_width;
    e->run_val = 0;
    e->run_len = 0;
    e->nlit = 0;
}

int pq_bit_width(uint64_t max)
{
    int w = 1;
    while (w < 64 && (max >> w) != 0)
        w++;
    return w;
}

/* Emit the first `n` (a multiple of 8) pending literals as one bit-packed run. */
static void emit_literals(pq_rle *e, uint32_t n)
{
    if (n == 0)
        return;
    pq_buf_uvarint(e->out, ((uint64_t)(n / 8) << 1) | 1);
    int bw = e->bit_width;
    size_t bytes = (size_t)n * (size_t)bw / 8;
    if (!pq_buf_reserve(e->out, bytes))
        return;
    uint8_t *d = e->out->data + e->out->len;
    uint64_t acc = 0;
    int nbits = 0;
    for (uint32_t i = 0; i < n; i++) {
        acc |= (uint64_t)e->lit[i] << nbits;
        nbits += bw;
        while (nbits >= 8) {
            *d++ = (uint8_t)acc;
            acc >>= 8;
            nbits -= 8;
        }
    }
    e->out->len += bytes;
    for (uint32_t i = n; i < e->nlit; i++)
        e->lit[i - n] = e->lit[i];
    e->nlit -= n;
}

/* Emit `n` copies of `v` as RLE runs. */
static void emit_rle(pq_rle *e, uint32_t v, uint64_t n)
{
    int vbytes = (e->bit_width + 7) / 8;
    while (n > 0) {
        uint64_t chunk = n > (1u << 30) ? (1u << 30) : n;
        pq_buf_uvarint(e->out, chunk << 1);
        for (int i = 0; i < vbytes; i++)
            pq_buf_byte(e->out, (uint8_t)(v >> (8 * i)));
        n -= chunk;
    }
}

/* Append `n` (< 8, or any count when flushing) copies of `v` to the pending literals. */
static void add_literals(pq_rle *e, uint32_t v, uint64_t n)
{
    while (n > 0) {
        e->lit[e->nlit++] = v;
        n--;
        if (e->nlit == PQ_RLE_LITCAP)
            emit_literals(e, e->nlit);
    }
}

/* Turn the current run into output (RLE when long enough) or pending literals. */
static void resolve(pq_rle *e)
{
    uint64_t n = e->run_len;
    uint32_t v = e->run_val;
    e->run_len = 0;
    if (n == 0)
        return;
    if (n < 8) {
        add_literals(e, v, n);
        return;
    }
    if (e->nlit % 8) {
        uint32_t need = 8 - e->nlit % 8;
        add_literals(e, v, need);
        n -= need;
    }
    emit_literals(e, e->nlit);
    if (n)
        emit_rle(e, v, n);
}

void pq_rle_put(pq_rle *e, uint32_t v, uint64_t n)
{
    if (n == 0)
        return;
    if (e->run_len > 0 && v == e->run_val) {
        e->run_len += n;
        return;
    }
    resolve(e);
    e->run_val = v;
    e->run_len = n;
}

void pq_rle_finish(pq_rle *e)
{
    resolve(e);
    if (e->nlit) {
        while (e->nlit % 8)
            e->lit[e->nlit++] = 0;
        emit_literals(e, e->nlit);
    }
}
