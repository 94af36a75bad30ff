/* emit/text.c — text rendering helpers of the Parquet writer (see emit/text.h). */
/* SPDX-License-Identifier: MIT */
#include "emit/text.h"

#include "backbeat/reader.h"
#include "emit/json.h"

#include <string.h>

/* bb_text_fn appending to the pq_buf `ctx`. */
static int append_piece(void *ctx, const char *text, size_t len) {
    pq_buf_put(ctx, text, len);
    return 0;
}

void em_utf8_lossy(pq_buf *b, const uint8_t *p, size_t n) {
    if (bb_utf8_valid(p, n)) pq_buf_put(b, p, n);
    else (void)bb_utf8_lossy_each(p, n, append_piece, b);
}

void em_hex(pq_buf *b, const uint8_t *p, size_t n) {
    static const char digits[] = "0123456789abcdef";
    if (n == 0) /* a zero-width bytes field: nothing to add (b->data may still be NULL) */
        return;
    if (!pq_buf_reserve(b, 2 * n)) return;
    char *d = (char *)b->data + b->len;
    for (size_t i = 0; i < n; i++) {
        d[2 * i] = digits[p[i] >> 4];
        d[2 * i + 1] = digits[p[i] & 15];
    }
    b->len += 2 * n;
}

void em_hex16(pq_buf *b, uint64_t v) {
    uint8_t be[8];
    for (int i = 0; i < 8; i++) be[i] = (uint8_t)(v >> (56 - 8 * i));
    em_hex(b, be, 8);
}

void em_dec_u64(pq_buf *b, uint64_t v) {
    char t[24];
    int n = 0;
    do {
        t[sizeof t - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    pq_buf_put(b, t + sizeof t - n, (size_t)n);
}

void em_dec_i64(pq_buf *b, int64_t v) {
    if (v < 0) {
        pq_buf_byte(b, '-');
        em_dec_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        em_dec_u64(b, (uint64_t)v);
    }
}

void em_json_str(pq_buf *b, const char *p, size_t n) {
    pq_buf_byte(b, '"');
    (void)em_json_escape_each(p, n, append_piece, b);
    pq_buf_byte(b, '"');
}

void em_json_cstr(pq_buf *b, const char *s) { em_json_str(b, s, strlen(s)); }

void em_json_u64(pq_buf *b, uint64_t v) {
    if (v > BB_JSON_SAFE_MAX) {
        pq_buf_byte(b, '"');
        em_dec_u64(b, v);
        pq_buf_byte(b, '"');
    } else {
        em_dec_u64(b, v);
    }
}

/* Append (p, n) between `q` quotes, each `q` inside doubled. */
static void quoted(pq_buf *b, const char *p, size_t n, char q) {
    pq_buf_byte(b, (uint8_t)q);
    for (size_t i = 0; i < n; i++) {
        if (p[i] == q) pq_buf_byte(b, (uint8_t)q);
        pq_buf_byte(b, (uint8_t)p[i]);
    }
    pq_buf_byte(b, (uint8_t)q);
}

void em_sql_str(pq_buf *b, const char *p, size_t n) { quoted(b, p, n, '\''); }

void em_sql_ident(pq_buf *b, const char *p, size_t n) { quoted(b, p, n, '"'); }

void em_cstr(pq_buf *b, const char *s) { pq_buf_put(b, s, strlen(s)); }
