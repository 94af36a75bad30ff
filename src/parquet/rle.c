/* parquet_rle.c — RLE / bit-packing hybrid encoder (see parquet_rle.h). */
/* SPDX-License-Identifier: MIT */
#include "parquet/rle.h"

#include <string.h>

#include "common/le_bytes.h"

_Static_assert(PQ_RLE_LITCAP % 8 == 0 && PQ_RLE_LITCAP / 8 < 64,
               "a bit-packed run's header (its groups of 8, shifted, | 1) is one varint byte");

void pq_rle_init(pq_rle *e, pq_buf *out, int bit_width) {
    e->out = out;
    e->bit_width = bit_width < 1 ? 1 : bit_width;
    e->run_val = 0;
    e->run_len = 0;
    e->nlit = 0;
    memset(e->packed, 0, sizeof e->packed);
}

int pq_bit_width(uint64_t max) {
    int w = 1;
    while (w < 64 && (max >> w) != 0) w++;
    return w;
}

/* Emit every pending literal (a multiple of 8 of them) as one bit-packed run. */
static void emit_literals(pq_rle *e) {
    uint32_t n = e->nlit;
    if (n == 0) return;
    size_t bytes = (size_t)n * (size_t)e->bit_width / 8;
    if (e->out->cap - e->out->len >= 1 + bytes || pq_buf_reserve(e->out, 1 + bytes)) {
        /* n <= PQ_RLE_LITCAP: the header, a varint, is one byte */
        e->out->data[e->out->len++] = (uint8_t)(((n / 8) << 1) | 1);
        uint8_t *d = e->out->data + e->out->len;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(d, e->packed, bytes); /* the words' bytes are the stream's, LSB first */
#else
        for (size_t i = 0; i < bytes; i++) d[i] = (uint8_t)(e->packed[i >> 3] >> (8 * (i & 7)));
#endif
        e->out->len += bytes;
    }
    memset(e->packed, 0, (bytes + 7) / 8 * 8);
    e->nlit = 0;
}

/* Emit `n` copies of `v` (`bit_width` bits) into `out` as RLE runs. */
static inline void emit_rle(pq_buf *out, int bit_width, uint32_t v, uint64_t n) {
    int vbytes = (bit_width + 7) / 8;
    if (n < 64 && vbytes == 1 && out->cap - out->len >= 2) { /* a level's run: 2 bytes */
        out->data[out->len] = (uint8_t)(n << 1);
        out->data[out->len + 1] = (uint8_t)v;
        out->len += 2;
        return;
    }
    while (n > 0) {
        uint64_t chunk = n > (1u << 30) ? (1u << 30) : n;
        if (out->cap - out->len < 5 + 4 && !pq_buf_reserve(out, 5 + 4)) /* header, value */
            return;
        uint8_t *d = out->data + out->len;
        size_t k = 0;
        for (uint64_t h = chunk << 1;; h >>= 7) { /* the header: a ULEB128 varint */
            if (h < 0x80) {
                d[k++] = (uint8_t)h;
                break;
            }
            d[k++] = (uint8_t)(h | 0x80);
        }
        for (int i = 0; i < vbytes; i++) d[k++] = (uint8_t)(v >> (8 * i));
        out->len += k;
        n -= chunk;
    }
}

/* Append `n` copies of `v` to the pending literals, emitting them whenever they fill up. */
static void add_literals(pq_rle *e, uint32_t v, uint64_t n) {
    while (n > 0) {
        uint32_t room = PQ_RLE_LITCAP - e->nlit;
        uint32_t k = n < room ? (uint32_t)n : room;
        pq_rle_pack(e, v, k);
        e->nlit += k;
        n -= k;
        if (e->nlit == PQ_RLE_LITCAP) emit_literals(e);
    }
}

/* Turn the current run into output (RLE when long enough) or pending literals. */
static void resolve(pq_rle *e) {
    uint64_t n = e->run_len;
    uint32_t v = e->run_val;
    e->run_len = 0;
    if (n == 0) return;
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
    if (n) emit_rle(e->out, e->bit_width, v, n);
}

void pq_rle_put_slow(pq_rle *e, uint32_t v, uint64_t n) {
    if (n == 0) return;
    if (e->run_len > 0 && v == e->run_val) {
        e->run_len += n;
        return;
    }
    resolve(e);
    e->run_val = v;
    e->run_len = n;
}

void pq_rle_finish(pq_rle *e) {
    resolve(e);
    if (e->nlit) {
        e->nlit = (e->nlit + 7) / 8 * 8; /* padded with zeros */
        emit_literals(e);
    }
}

/* ---- pq_rle_encode_u32: the same bytes, the pending literals packed straight into `out` ---- */

/* A bit-packed run being written into out: its header byte's place (at most 8 groups of 8: the
 * header is one byte) and the bits not yet stored. */
typedef struct lit_run {
    pq_buf *out;
    unsigned w;
    size_t hdr;   /* 0: no run open, else 1 + the header byte's offset */
    uint32_t n;   /* values in the run */
    uint64_t acc; /* bits not yet stored, LSB first */
    unsigned bits;
} lit_run;

/* Open a run: its header byte and room for its 64 values (8 bytes each at most: w <= 32, plus
 * the word the last store may spill). False when out of memory. */
static bool lit_open(lit_run *r) {
    if (!pq_buf_reserve(r->out, 1 + (size_t)PQ_RLE_LITCAP * r->w / 8 + 8)) return false;
    r->hdr = 1 + r->out->len++;
    r->n = 0;
    r->acc = 0;
    r->bits = 0;
    return true;
}

/* Close the open run (its values padded with zeros to a multiple of 8): the last bits stored,
 * the header written. */
static void lit_close(lit_run *r) {
    if (!r->hdr) return;
    uint32_t n = (r->n + 7) / 8 * 8;
    r->bits += (n - r->n) * r->w; /* n * w is a multiple of 8: whole bytes are left */
    while (r->bits >= 64) {       /* padding past a word: zeros */
        bb__le_put_u64(r->out->data + r->out->len, r->acc);
        r->out->len += 8;
        r->acc = 0;
        r->bits -= 64;
    }
    bb__le_put_u64(r->out->data + r->out->len, r->acc);
    r->out->len += r->bits / 8;
    r->out->data[r->hdr - 1] = (uint8_t)(((n / 8) << 1) | 1);
    r->hdr = 0;
}

/* The start of the first run of 8 or more equal values in v[i..n) (i starts a run: v[i - 1],
 * if any, differs), its length in *len; n and 0 if there is none. Such a run holds one of i + 7,
 * i + 15, ...: only those are looked at, and most have neighbours that differ. */
static size_t next_long_run(const uint32_t *v, size_t i, size_t n, size_t *len) {
    for (size_t q = i + 7; q < n; q += 8) {
        uint32_t x = v[q];
        if (v[q - 1] != x && (q + 1 == n || v[q + 1] != x)) continue;
        size_t s = q, e = q + 1;
        while (s > i && v[s - 1] == x) s--;
        while (e < n && v[e] == x) e++;
        if (e - s >= 8) {
            *len = e - s;
            return s;
        }
    }
    *len = 0;
    return n;
}

/* Whether a run is open (one is opened if none was); false when out of memory. */
static inline bool lit_room(lit_run *r) { return r->hdr || lit_open(r); }

/* Append v[0..m) to the open run (m <= what it has room for), the run closed when full; the
 * bits are kept in registers (the stores into the body would alias them). */
static void lit_pack(lit_run *r, const uint32_t *v, uint32_t m) {
    uint64_t acc = r->acc;
    unsigned bits = r->bits, w = r->w;
    uint8_t *d = r->out->data + r->out->len;
    for (uint32_t k = 0; k < m; k++) {
        acc |= (uint64_t)v[k] << bits;
        bits += w;
        if (bits >= 64) {
            bb__le_put_u64(d, acc);
            d += 8;
            bits -= 64;
            acc = bits ? (uint64_t)v[k] >> (w - bits) : 0;
        }
    }
    r->out->len = (size_t)(d - r->out->data);
    r->acc = acc;
    r->bits = bits;
    if ((r->n += m) == PQ_RLE_LITCAP) lit_close(r);
}

void pq_rle_encode_u32(pq_buf *out, const uint32_t *v, size_t n, int bit_width) {
    lit_run r = {.out = out, .w = bit_width < 1 ? 1u : (unsigned)bit_width};
    size_t i = 0;
    while (i < n && !out->failed) {
        /* the short runs from i go out as literals, up to the next run of 8 or more */
        size_t len = 0, p = next_long_run(v, i, n, &len);
        while (i < p && lit_room(&r)) { /* as many as the open run takes, at once */
            size_t m = p - i < PQ_RLE_LITCAP - r.n ? p - i : PQ_RLE_LITCAP - r.n;
            lit_pack(&r, v + i, (uint32_t)m);
            i += m;
        }
        if (len == 0) break;
        /* the long run completes the open run's last group of 8, which then goes out */
        uint64_t rest = len;
        if (r.hdr && r.n % 8) {
            uint32_t need = 8 - r.n % 8, copies[8]; /* the run has room: r.n < 64 */
            for (uint32_t k = 0; k < need; k++) copies[k] = v[p];
            lit_pack(&r, copies, need);
            rest -= need;
        }
        lit_close(&r);
        emit_rle(out, (int)r.w, v[p], rest);
        i = p + len;
    }
    if (!out->failed) lit_close(&r);
}
