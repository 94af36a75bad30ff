/* convert/obuf.c — the buffered writer over a file descriptor (or growing memory) every text
 * output of backbeat's tools writes through (see convert/obuf.h). */
/* SPDX-License-Identifier: MIT */
#include "convert/obuf.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool obuf_init(obuf *b, int fd, size_t cap) {
    memset(b, 0, sizeof *b);
    b->fd = fd;
    b->cap = cap;
    b->data = malloc(cap);
    return b->data != NULL;
}

/* A buffer over no fd (fd < 0) grows instead; out of memory, its bytes are dropped and the
 * error is kept. */
static void buf_grow(obuf *b) {
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

static void buf_drain(obuf *b) {
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

int obuf_flush(obuf *b) {
    if (b->len && b->fd >= 0) buf_drain(b);
    return b->failed;
}

int obuf_finish(obuf *b) {
    int r = obuf_flush(b);
    free(b->data);
    b->data = NULL;
    return r;
}

void obuf_write(obuf *b, const void *data, size_t len) {
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

void obuf_puts(obuf *b, const char *s) { obuf_write(b, s, strlen(s)); }

void obuf_putc(obuf *b, char c) {
    if (b->len == b->cap) buf_drain(b);
    b->data[b->len++] = c;
}

void obuf_printf(obuf *b, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof tmp) {
        obuf_write(b, tmp, (size_t)n);
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
    obuf_write(b, big, (size_t)n);
    free(big);
}

void obuf_u64(obuf *b, uint64_t v) {
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    obuf_write(b, tmp + i, sizeof tmp - i);
}

void obuf_i64(obuf *b, int64_t v) {
    if (v < 0) {
        obuf_putc(b, '-');
        obuf_u64(b, (uint64_t)0 - (uint64_t)v);
    } else {
        obuf_u64(b, (uint64_t)v);
    }
}

static const char hexdig[] = "0123456789abcdef";

void obuf_hex16(obuf *b, uint64_t v) {
    char tmp[16];
    for (int i = 15; i >= 0; i--) {
        tmp[i] = hexdig[v & 15];
        v >>= 4;
    }
    obuf_write(b, tmp, 16);
}

void obuf_hexbytes(obuf *b, const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        char two[2] = {hexdig[p[i] >> 4], hexdig[p[i] & 15]};
        obuf_write(b, two, 2);
    }
}
