/* parquet_buf.c — growth and release of pq_buf (see parquet_buf.h). */
/* SPDX-License-Identifier: MIT */
#include "parquet/buf.h"

#include <stdlib.h>

bool pq_buf_reserve(pq_buf *b, size_t extra) {
    if (b->failed) return false;
    if (b->cap - b->len >= extra) return true;
    size_t want = b->len + extra;
    if (want < b->len) {
        b->failed = true;
        return false;
    }
    size_t cap = b->cap ? b->cap : 256;
    while (cap < want) cap = cap > SIZE_MAX / 2 ? want : cap * 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p) {
        b->failed = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void pq_buf_free(pq_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = false;
}
