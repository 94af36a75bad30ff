/* parquet_buf.h — a growable byte buffer, the scratch space every part of the Parquet writer
 * appends to (Thrift footer, page bodies, column chunks).
 *
 * Allocation failure is sticky: once an append fails, `failed` stays set and further appends
 * do nothing, so callers check once at the end of a unit of work instead of after every byte.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_PARQUET_BUF_H
#define BB_PARQUET_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct pq_buf {
    uint8_t *data;
    size_t len;
    size_t cap;
    bool failed;
} pq_buf;

/* Make room for `extra` more bytes; false (and `failed` set) if memory ran out. */
bool pq_buf_reserve(pq_buf *b, size_t extra);
/* Release the storage; the buffer is empty and usable again afterwards. */
void pq_buf_free(pq_buf *b);

/* Append `n` bytes. */
static inline void pq_buf_put(pq_buf *b, const void *p, size_t n) {
    if (n == 0 || (b->cap - b->len < n && !pq_buf_reserve(b, n))) return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static inline void pq_buf_byte(pq_buf *b, uint8_t v) {
    if (b->len == b->cap && !pq_buf_reserve(b, 1)) return;
    b->data[b->len++] = v;
}

/* Append `v` as 4 / 8 little-endian bytes. */
static inline void pq_buf_u32le(pq_buf *b, uint32_t v) {
    uint8_t t[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    pq_buf_put(b, t, 4);
}
static inline void pq_buf_u64le(pq_buf *b, uint64_t v) {
    if (b->cap - b->len < 8 && !pq_buf_reserve(b, 8)) return;
    uint8_t *d = b->data + b->len;
    for (int i = 0; i < 8; i++) d[i] = (uint8_t)(v >> (8 * i));
    b->len += 8;
}

/* Append an unsigned LEB128 varint. */
static inline void pq_buf_uvarint(pq_buf *b, uint64_t v) {
    uint8_t t[10];
    size_t n = 0;
    while (v >= 0x80) {
        t[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    t[n++] = (uint8_t)v;
    pq_buf_put(b, t, n);
}

#endif /* BB_PARQUET_BUF_H */
