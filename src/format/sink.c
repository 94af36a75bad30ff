/* sink.c — the byte sinks of dump_writer.h (an fd, a caller's buffer) that the dump writer and
 * `backbeat merge` stream `.bb` bytes into. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "backbeat/dump_writer.h"

/* write(2) all of data to *(int *)ctx; returns 0, or the errno of the failure (EIO when write
 * returns 0). Uses only write(2): async-signal-safe. errno is left as write(2) set it. */
static int fd_sink_write(void *ctx, const void *data, size_t len) {
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

bb_sink bb_sink_fd(int *fd_storage) {
    bb_sink s = {fd_sink_write, fd_storage};
    return s;
}

/* Append to the bb_buffer_sink at ctx; ENOSPC (nothing appended) when it would pass cap. */
static int buffer_sink_write(void *ctx, const void *data, size_t len) {
    bb_buffer_sink *b = ctx;
    if (b->len > b->cap || len > b->cap - b->len) return ENOSPC;
    if (len) memcpy(b->data + b->len, data, len);
    b->len += len;
    return 0;
}

bb_sink bb_sink_buffer(bb_buffer_sink *buf) {
    bb_sink s = {buffer_sink_write, buf};
    return s;
}
