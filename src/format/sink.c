/* sink.c — the format's byte sinks (format/sink.h): an fd, and a memory buffer that is fixed
 * (the caller's, no heap) or growing. Both libraries write `.bb` bytes through them. */
/* SPDX-License-Identifier: MIT */
#include "format/sink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* write(2) all of data to *(int *)ctx; returns 0, or the errno of the failure (EIO when write
 * returns 0). Uses only write(2): async-signal-safe. errno is left as write(2) set it. */
static int fd_write(void *ctx, const void *data, size_t len) {
    int fd = *(const int *)ctx;
    const uint8_t *p = data;
    while (len > 0) {
        size_t chunk = len > (size_t)0x40000000 ? (size_t)0x40000000 : len;
        ssize_t n = write(fd, p, chunk);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno ? errno : EIO;
        }
        if (n == 0) return EIO;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

bb__sink bb__sink_fd(int *fd) {
    bb__sink s = {fd_write, fd};
    return s;
}

bb__membuf bb__membuf_fixed(uint8_t *data, size_t cap) {
    bb__membuf b = {data, cap, 0, 1, 0};
    return b;
}

/* Room for `len` more bytes in a growing buffer (doubling, from 256); false when out of memory. */
static int reserve(bb__membuf *b, size_t len) {
    if (len > SIZE_MAX - b->len) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + len) {
        if (cap > SIZE_MAX / 2) {
            cap = b->len + len;
            break;
        }
        cap *= 2;
    }
    uint8_t *p = realloc(b->data, cap);
    if (!p) return 0;
    b->data = p;
    b->cap = cap;
    return 1;
}

int bb__membuf_put(bb__membuf *b, const void *data, size_t len) {
    if (b->len > b->cap || len > b->cap - b->len) {
        int rc = b->fixed ? ENOSPC : reserve(b, len) ? 0 : ENOMEM;
        if (rc) {
            b->failed = 1;
            return rc;
        }
    }
    if (len) memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

static int membuf_write(void *ctx, const void *data, size_t len) {
    return bb__membuf_put(ctx, data, len);
}

bb__sink bb__sink_membuf(bb__membuf *b) {
    bb__sink s = {membuf_write, b};
    return s;
}
