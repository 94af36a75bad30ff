/* parquet_text.c — text rendering helpers of the Parquet writer (see parquet_text.h). */
#include "parquet_text.h"

#include <string.h>

/* Length of the valid UTF-8 sequence starting at p[0] (1..4), or 0 if invalid; *bad is then
 * set to the length of the maximal subpart (>= 1) to replace by one U+FFFD. */
static size_t utf8_seq(const uint8_t *p, size_t n, size_t *bad)
{
    uint8_t c = p[0];
    if (c < 0x80)
        return 1;
    size_t need;
    uint8_t lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else {
        *bad = 1;
        return 0;
    }
    size_t i = 1;
    for (; i <= need; i++) {
        if (i >= n || p[i] < lo || p[i] > hi) {
            *bad = i;
            return 0;
        }
        lo = 0x80;
        hi = 0xBF;
    }
    return need + 1;
}

size_t pq_utf8_valid_prefix(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (i + 8 <= n) {
            uint64_t w;
            memcpy(&w, p + i, 8);
            if ((w & 0x8080808080808080ull) == 0) {
                i += 8;
                continue;
            }
        }
        size_t bad;
        size_t k = utf8_seq(p + i, n - i, &bad);
        if (k == 0)
            return i;
        i += k;
    }
    return n;
}

void pq_utf8_lossy(pq_buf *b, const uint8_t *p, size_t n)
{
    static const uint8_t fffd[3] = {0xEF, 0xBF, 0xBD};
    while (n > 0) {
        size_t ok = pq_utf8_valid_prefix(p, n);
        pq_buf_put(b, p, ok);
        p += ok;
        n -= ok;
        if (n == 0)
            break;
        size_t bad = 1;
        (void)utf8_seq(p, n, &bad);
        pq_buf_put(b, fffd, 3);
        p += bad;
        n -= bad;
    }
}

void pq_hex(pq_buf *b, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    if (!pq_buf_reserve(b, 2 * n))
        return;
    char *d = (char *)b->data + b->len;
    for (size_t i = 0; i < n; i++) {
        d[2 * i] = digits[p[i] >> 4];
        d[2 * i + 1] = digits[p[i] & 15];
    }
    b->len += 2 * n;
}

void pq_hex16(pq_buf *b, uint64_t v)
{
    uint8_t be[8];
    for (int i = 0; i < 8; i++)
        be[i] = (uint8_t)(v >> (56 - 8 * i));
    pq_hex(b, be, 8);
}

void pq_dec_u64(pq_buf *b, uint64_t v)
{
    char t[24];
    int n = 0;
    do {
        t[sizeof t - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    pq_buf_put(b, t + sizeof t - n, (size_t)n);
}

void pq_dec_i64(pq_buf *b, int64_t v)
{
    if (v < 0) {
        pq_buf_byte(b, '-');
        pq_dec_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        pq_dec_u64(b, (uint64_t)v);
    }
}

void pq_json_str(pq_buf *b, const char *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    pq_buf_byte(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '"' || c == '\\') {
            pq_buf_byte(b, '\\');
            pq_buf_byte(b, c);
        } else if (c == '\n') {
            pq_buf_put(b, "\\n", 2);
        } else if (c == '\t') {
            pq_buf_put(b, "\\t", 2);
        } else if (c == '\r') {
            pq_buf_put(b, "\\r", 2);
        } else if (c < 0x20) {
            char u[6] = {'\\', 'u', '0', '0', digits[c >> 4], digits[c & 15]};
            pq_buf_put(b, u, 6);
        } else {
            pq_buf_byte(b, c);
        }
    }
    pq_buf_byte(b, '"');
}

void pq_json_cstr(pq_buf *b, const char *s)
{
    pq_json_str(b, s, strlen(s));
}

void pq_json_u64(pq_buf *b, uint64_t v)
{
    if (v > (1ull << 53)) {
        pq_buf_byte(b, '"');
        pq_dec_u64(b, v);
        pq_buf_byte(b, '"');
    } else {
        pq_dec_u64(b, v);
    }
}

static void quoted(pq_buf *b, const char *p, size_t n, char q)
{
    pq_buf_byte(b, (uint8_t)q);
    for (size_t i = 0; i < n; i++) {
        if (p[i] == q)
            pq_buf_byte(b, (uint8_t)q);
        pq_buf_byte(b, (uint8_t)p[i]);
    }
    pq_buf_byte(b, (uint8_t)q);
}

void pq_sql_str(pq_buf *b, const char *p, size_t n)
{
    quoted(b, p, n, '\'');
}

void pq_sql_ident(pq_buf *b, const char *p, size_t n)
{
    quoted(b, p, n, '"');
}

void pq_cstr(pq_buf *b, const char *s)
{
    pq_buf_put(b, s, strlen(s));
}
