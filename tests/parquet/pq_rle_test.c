/* pq_rle_test.c — the RLE / bit-packing hybrid encoder (src/cli/parquet_rle.c) against a
 * reference decoder written from Encodings.md: random run structures (long runs, short
 * stretches, alternations, runs across the literal buffer's capacity) at every bit width
 * 1..24 decode back to exactly the values fed in (padding inside the stream would shift them),
 * and the bytes are those of a reference encoder written here from the rules of rle.h, run by
 * run over the whole sequence (Parquet files stay byte-identical whatever the encoder's inner
 * workings: bit-packed pending literals, the inline path of 1-bit levels).
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet/rle.h"

static int failures;
#define CHECK(c, ...)                                   \
    do {                                                \
        if (!(c)) {                                     \
            failures++;                                 \
            printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__);                        \
            printf("\n");                               \
            if (failures > 20) exit(1);                 \
        }                                               \
    } while (0)

static uint64_t rng = 0x853c49e6748fea9bull;
static uint32_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static uint64_t uvarint(const uint8_t *p, size_t n, size_t *pos) {
    uint64_t v = 0;
    int shift = 0;
    while (*pos < n) {
        uint8_t b = p[(*pos)++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
        shift += 7;
    }
    return v;
}

/* Decode `count` values; returns the number decoded (stops at the end of the input). */
static size_t decode(const uint8_t *p, size_t n, int bw, uint32_t *out, size_t count) {
    size_t pos = 0, got = 0;
    while (got < count && pos < n) {
        uint64_t h = uvarint(p, n, &pos);
        if (h & 1) {
            size_t groups = (size_t)(h >> 1);
            size_t vals = groups * 8;
            uint64_t acc = 0;
            int nbits = 0;
            for (size_t i = 0; i < vals; i++) {
                while (nbits < bw && pos < n) {
                    acc |= (uint64_t)p[pos++] << nbits;
                    nbits += 8;
                }
                uint32_t v = (uint32_t)(acc & ((1ull << bw) - 1));
                acc >>= bw;
                nbits -= bw;
                if (got < count) out[got++] = v;
            }
        } else {
            size_t run = (size_t)(h >> 1);
            uint32_t v = 0;
            for (int i = 0; i < (bw + 7) / 8; i++) v |= (uint32_t)p[pos++] << (8 * i);
            for (size_t i = 0; i < run && got < count; i++) out[got++] = v;
        }
    }
    return got;
}

/* ---- the reference encoder: the rules of parquet/rle.h over a whole sequence ---- */

typedef struct ref_enc {
    uint8_t *out;
    size_t len;
    int bw;
    uint32_t lit[64];
    size_t nlit;
} ref_enc;

static void ref_varint(ref_enc *r, uint64_t v) {
    while (v >= 0x80) {
        r->out[r->len++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    r->out[r->len++] = (uint8_t)v;
}

/* The pending literals (a multiple of 8) as one bit-packed run, bit by bit. */
static void ref_emit(ref_enc *r) {
    if (r->nlit == 0) return;
    ref_varint(r, ((uint64_t)(r->nlit / 8) << 1) | 1);
    size_t bits = r->nlit * (size_t)r->bw;
    memset(r->out + r->len, 0, bits / 8);
    for (size_t b = 0; b < bits; b++)
        if ((r->lit[b / (size_t)r->bw] >> (b % (size_t)r->bw)) & 1)
            r->out[r->len + b / 8] |= (uint8_t)(1u << (b % 8));
    r->len += bits / 8;
    r->nlit = 0;
}

static void ref_lit(ref_enc *r, uint32_t v) {
    r->lit[r->nlit++] = v;
    if (r->nlit == 64) ref_emit(r);
}

/* Encode n values: each maximal run of equal values is literals when shorter than 8, else it
 * completes the pending group of 8, the literals go out, and the rest is one RLE run. */
static size_t ref_encode(const uint32_t *v, size_t n, int bw, uint8_t *out) {
    ref_enc r = {.out = out, .bw = bw};
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j] == v[i]) j++;
        size_t len = j - i;
        if (len < 8) {
            for (size_t k = 0; k < len; k++) ref_lit(&r, v[i]);
        } else {
            while (r.nlit % 8) {
                ref_lit(&r, v[i]);
                len--;
            }
            ref_emit(&r);
            ref_varint(&r, (uint64_t)len << 1);
            for (int b = 0; b < (bw + 7) / 8; b++) r.out[r.len++] = (uint8_t)(v[i] >> (8 * b));
        }
        i = j;
    }
    while (r.nlit % 8) r.lit[r.nlit++] = 0;
    ref_emit(&r);
    return r.len;
}

static void one_case(int bw, int shape) {
    size_t cap = 20000, n = 0;
    uint32_t *want = malloc(cap * sizeof *want), *got = malloc(cap * sizeof *got);
    pq_buf buf = {0};
    pq_rle e;
    pq_rle_init(&e, &buf, bw);
    uint32_t maxv = bw >= 32 ? UINT32_MAX : (uint32_t)((1ull << bw) - 1);
    while (n < cap - 2000) {
        uint32_t v = next() & maxv;
        size_t len;
        switch (shape) {
        case 0: len = 1 + next() % 3; break;  /* mostly literals */
        case 1: len = 1 + next() % 40; break; /* mixed */
        case 2: len = next() % 2 ? 1000 + next() % 900 : 1 + next() % 9; break;
        case 3: len = (n / 7) % 2 ? 7 : 9; break;                     /* around the 8 boundary */
        default: len = next() % 4 ? 1 + next() % 7 : 8 + next() % 70; /* sparse levels */
        }
        /* feed in random pieces: put(v, k) several times */
        size_t left = len;
        while (left) {
            size_t k = 1 + next() % left;
            if (next() % 16 == 0) pq_rle_put(&e, v ^ 1, 0); /* an empty put changes nothing */
            pq_rle_put(&e, v, k);
            for (size_t i = 0; i < k; i++) want[n++] = v;
            left -= k;
        }
    }
    pq_rle_finish(&e);
    CHECK(!buf.failed, "allocation");
    size_t m = decode(buf.data, buf.len, bw, got, n);
    CHECK(m == n, "bw %d shape %d: decoded %zu of %zu", bw, shape, m, n);
    for (size_t i = 0; i < n && i < m; i++)
        if (got[i] != want[i]) {
            CHECK(0, "bw %d shape %d: value %zu is %u, want %u", bw, shape, i, got[i], want[i]);
            break;
        }
    uint8_t *ref = malloc(n * 8 + 64);
    size_t rlen = ref_encode(want, n, bw, ref);
    /* the whole-array encoder: the same bytes, and appended after what the buffer held */
    for (size_t before = 0; before <= 3; before += 3) {
        pq_buf whole = {0};
        for (size_t k = 0; k < before; k++) pq_buf_byte(&whole, 0xA5);
        pq_rle_encode_u32(&whole, want, n, bw);
        size_t wat = 0;
        while (wat < rlen && before + wat < whole.len && ref[wat] == whole.data[before + wat])
            wat++;
        CHECK(!whole.failed && whole.len == before + rlen && wat == rlen,
              "pq_rle_encode_u32 bw %d shape %d: %zu bytes, reference %zu, first difference at "
              "byte %zu",
              bw, shape, whole.len - before, rlen, wat);
        pq_buf_free(&whole);
    }
    size_t at = 0;
    while (at < rlen && at < buf.len && ref[at] == buf.data[at]) at++;
    CHECK(rlen == buf.len && at == rlen,
          "bw %d shape %d: %zu bytes, reference %zu, first "
          "difference at byte %zu",
          bw, shape, buf.len, rlen, at);
    free(ref);
    pq_buf_free(&buf);
    free(want);
    free(got);
}

int main(void) {
    for (int bw = 1; bw <= 32; bw++)
        for (int shape = 0; shape < 5; shape++) one_case(bw, shape);
    /* short arrays, runs around 8 after 0..63 pending literals, and nothing at all */
    for (int t = 0; t < 4000; t++) {
        uint32_t v[200];
        int bw = 1 + t % 32;
        size_t n = (size_t)(t / 32) % 200, lit = next() % 64;
        for (size_t i = 0; i < n; i++)
            v[i] = i < lit ? next() & ((bw >= 32 ? 0 : (1u << bw)) - 1u) : (uint32_t)(t & 1);
        uint8_t ref[2048];
        size_t rlen = ref_encode(v, n, bw, ref);
        pq_buf whole = {0};
        pq_rle_encode_u32(&whole, v, n, bw);
        CHECK(whole.len == rlen && (rlen == 0 || memcmp(whole.data, ref, rlen) == 0),
              "pq_rle_encode_u32: %zu values (%zu literals first) at width %d differ", n, lit, bw);
        pq_buf_free(&whole);
    }
    CHECK(pq_bit_width(0) == 1 && pq_bit_width(1) == 1 && pq_bit_width(2) == 2 &&
              pq_bit_width(255) == 8 && pq_bit_width(256) == 9,
          "pq_bit_width");
    /* an empty stream is empty */
    pq_buf b = {0};
    pq_rle e;
    pq_rle_init(&e, &b, 3);
    pq_rle_finish(&e);
    CHECK(b.len == 0, "empty stream wrote %zu bytes", b.len);
    /* a long run is one RLE run: header + 1 value byte */
    pq_rle_init(&e, &b, 2);
    pq_rle_put(&e, 2, 1000000);
    pq_rle_finish(&e);
    CHECK(b.len == 4 && b.data[3] == 2, "1e6 equal values took %zu bytes", b.len);
    pq_buf_free(&b);
    if (failures) return 1;
    printf("ok: RLE hybrid round trips\n");
    return 0;
}
