/* parquet_rle.c — RLE / bit-packing hybrid encoder (see parquet_rle.h). */
/* SPDX-License-Identifier: MIT */
#include "parquet/rle.h"

#include <string.h>

void pq_rle_init(pq_rle *e, pq_buf *out, int bit_width)
{
    e->out = out;
    e->bit_width = bit_width < 1 ? 1 : bit_width;
    e->run_val = 0;
    e->run_len = 0;
    e->nlit = 0;
    memset(e->packed, 0, sizeof e->packed);
}

int pq_bit_width(uint64_t max)
{
    int w = 1;
    while (w < 64 && (max >> w) != 0)
        w++;
    return w;
}

/* Emit every pending literal (a multiple of 8 of them) as one bit-packed run. */
static void emit_literals(pq_rle *e)
{
    uint32_t n = e->nlit;
    if (n == 0)
        return;
    pq_buf_uvarint(e->out, ((uint64_t)(n / 8) << 1) | 1);
    size_t bytes = (size_t)n * (size_t)e->bit_width / 8;
    if (pq_buf_reserve(e->out, bytes)) {
        uint8_t *d = e->out->data + e->out->len;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(d, e->packed, bytes); /* the words' bytes are the stream's, LSB first */
#else
        for (size_t i = 0; i < bytes; i++)
            d[i] = (uint8_t)(e->packed[i >> 3] >> (8 * (i & 7)));
#endif
        e->out->len += bytes;
    }
    memset(e->packed, 0, (bytes + 7) / 8 * 8);
    e->nlit = 0;
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

/* Append `n` copies of `v` to the pending literals, emitting them whenever they fill up. */
static void add_literals(pq_rle *e, uint32_t v, uint64_t n)
{
    while (n > 0) {
        uint32_t room = PQ_RLE_LITCAP - e->nlit;
        uint32_t k = n < room ? (uint32_t)n : room;
        pq_rle_pack(e, v, k);
        e->nlit += k;
        n -= k;
        if (e->nlit == PQ_RLE_LITCAP)
            emit_literals(e);
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
    emit_literals(e);
    if (n)
        emit_rle(e, v, n);
}

void pq_rle_put_slow(pq_rle *e, uint32_t v, uint64_t n)
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
        e->nlit = (e->nlit + 7) / 8 * 8; /* padded with zeros */
        emit_literals(e);
    }
}
