/* emit/obuf.c — the buffered writer over a file descriptor (or growing memory) every text
 * output of backbeat's tools writes through (see emit/obuf.h). */
/* SPDX-License-Identifier: MIT */
#include "emit/obuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool em_obuf_init(em_obuf *b, int fd, size_t cap) {
    memset(b, 0, sizeof *b);
    b->fd = fd;
    b->cap = cap;
    b->data = malloc(cap);
    return b->data != NULL;
}

/* A buffer over no fd (fd < 0) grows instead; out of memory, its bytes are dropped and the
 * error is kept. */
static void buf_grow(em_obuf *b) {
    size_t cap = b->cap ? b->cap * 2 : 4096;
    char *n = b->failed ? NULL : realloc(b->data, cap);
    if (!n) {
        b->failed = ENOMEM;
        b->len = 0;
        return;
    }
    b->data = n;
    b->cap = cap;
}

static void buf_drain(em_obuf *b) {
    if (b->fd < 0) {
        buf_grow(b);
        return;
    }
    size_t off = 0;
    while (off < b->len && !b->failed) {
        ssize_t w = write(b->fd, b->data + off, b->len - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            b->failed = errno ? errno : EIO;
            break;
        }
        off += (size_t)w;
    }
    b->written += off;
    b->len = 0;
}

int em_obuf_flush(em_obuf *b) {
    if (b->len && b->fd >= 0) buf_drain(b);
    return b->failed;
}

int em_obuf_finish(em_obuf *b) {
    int r = em_obuf_flush(b);
    free(b->data);
    b->data = NULL;
    return r;
}

void em_obuf_write_slow(em_obuf *b, const void *data, size_t len) {
    const char *p = data;
    while (len) {
        if (b->len == b->cap) buf_drain(b);
        size_t n = b->cap - b->len;
        if (n > len) n = len;
        memcpy(b->data + b->len, p, n);
        b->len += n;
        p += n;
        len -= n;
    }
}

char *em_obuf_room_slow(em_obuf *b, size_t n) {
    while (!b->failed && n > b->cap - b->len) {
        if (b->fd >= 0 && b->len == 0) return NULL; /* never fits: the caller's slow path */
        buf_drain(b);
    }
    return n <= b->cap - b->len ? b->data + b->len : NULL;
}

void em_obuf_putc_slow(em_obuf *b, char c) {
    if (b->len == b->cap) buf_drain(b);
    if (b->len < b->cap) b->data[b->len++] = c;
}

void em_obuf_printf(em_obuf *b, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        em_obuf_write(b, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->failed = ENOMEM;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    em_obuf_write(b, big, (size_t)n);
    free(big);
}

/* "00" .. "99": two digits per division (obuf.h). */
const char em_digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static const uint64_t pow10_tab[20] = {1ull,
                                       10ull,
                                       100ull,
                                       1000ull,
                                       10000ull,
                                       100000ull,
                                       1000000ull,
                                       10000000ull,
                                       100000000ull,
                                       1000000000ull,
                                       10000000000ull,
                                       100000000000ull,
                                       1000000000000ull,
                                       10000000000000ull,
                                       100000000000000ull,
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull};

/* The number of decimal digits of v (1 for 0): log10 from the bit length, then one compare. */
static inline unsigned dec_len(uint64_t v) {
    unsigned t = ((64u - (unsigned)__builtin_clzll(v | 1)) * 1233u) >> 12;
    unsigned n = t + (v >= pow10_tab[t]);
    return n ? n : 1;
}

/* The 8 digits of v (< 10^8) ending at `end`: two halves of 4, each two pairs (a short chain
 * of 32-bit multiplications). */
static inline void put8(char *end, uint32_t v) {
    uint32_t hi = v / 10000, lo = v % 10000;
    memcpy(end - 8, em_digit_pairs + (hi / 100) * 2, 2);
    memcpy(end - 6, em_digit_pairs + (hi % 100) * 2, 2);
    memcpy(end - 4, em_digit_pairs + (lo / 100) * 2, 2);
    memcpy(end - 2, em_digit_pairs + (lo % 100) * 2, 2);
}

/* v's n digits (n = dec_len(v)) ending at `end`: 8-digit blocks in 32-bit arithmetic, then the
 * rest two at a time. */
static inline void put_dec(char *end, uint64_t v) {
    while (v >= 100000000u) {
        put8(end, (uint32_t)(v % 100000000u));
        v /= 100000000u;
        end -= 8;
    }
    uint32_t w = (uint32_t)v;
    while (w >= 100) {
        uint32_t d = (w % 100) * 2;
        w /= 100;
        end[-1] = em_digit_pairs[d + 1];
        end[-2] = em_digit_pairs[d];
        end -= 2;
    }
    if (w >= 10) {
        end[-1] = em_digit_pairs[w * 2 + 1];
        end[-2] = em_digit_pairs[w * 2];
    } else {
        end[-1] = (char)('0' + w);
    }
}

void em_obuf_u64(em_obuf *b, uint64_t v) {
    char *p = b->cap - b->len >= 24 ? b->data + b->len : NULL; /* em_put_u64's room */
    if (p) {
        b->len += (size_t)(em_put_u64(p, v) - p);
        return;
    }
    unsigned n = dec_len(v);
    char tmp[20];
    p = em_obuf_room(b, n);
    if (!p) {
        put_dec(tmp + n, v);
        em_obuf_write(b, tmp, n);
        return;
    }
    put_dec(p + n, v);
    b->len += n;
}

void em_obuf_usec(em_obuf *b, uint64_t ns) {
    uint64_t us = ns / 1000;
    uint32_t f = (uint32_t)(ns % 1000);
    unsigned n = dec_len(us);
    char *p = em_obuf_room(b, n + 4), tmp[24];
    bool direct = p != NULL;
    if (!direct) p = tmp;
    put_dec(p + n, us);
    p[n] = '.';
    p[n + 1] = (char)('0' + f / 100);
    p[n + 2] = em_digit_pairs[(f % 100) * 2];
    p[n + 3] = em_digit_pairs[(f % 100) * 2 + 1];
    if (direct) b->len += n + 4;
    else em_obuf_write(b, tmp, n + 4);
}

void em_obuf_i64(em_obuf *b, int64_t v) {
    if (v < 0) {
        em_obuf_putc(b, '-');
        em_obuf_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        em_obuf_u64(b, (uint64_t)v);
    }
}

static const char hexdig[] = "0123456789abcdef";

void em_obuf_hex16(em_obuf *b, uint64_t v) {
    char tmp[16];
    for (int i = 15; i >= 0; i--) {
        tmp[i] = hexdig[v & 15];
        v >>= 4;
    }
    em_obuf_write(b, tmp, 16);
}

void em_obuf_hexbytes(em_obuf *b, const uint8_t *p, size_t n) {
    char tmp[128];
    while (n) {
        size_t k = n < sizeof tmp / 2 ? n : sizeof tmp / 2;
        for (size_t i = 0; i < k; i++) {
            tmp[2 * i] = hexdig[p[i] >> 4];
            tmp[2 * i + 1] = hexdig[p[i] & 15];
        }
        em_obuf_write(b, tmp, 2 * k);
        p += k;
        n -= k;
    }
}
