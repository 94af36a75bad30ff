/* format/sink.h — where encoded `.bb` bytes go: the format's own sink type and its sinks (an fd,
 * a memory buffer, fixed or growing), used by the section encoder (sections.h) and by every
 * writer of `.bb` bytes in both libraries. Internal (hidden visibility); capture's public
 * bb_sink (backbeat/dump_writer.h) is adapted to it in capture/dump_sinks.c. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_FORMAT_SINK_H
#define BACKBEAT_FORMAT_SINK_H

#include <stddef.h>
#include <stdint.h>

/* Where bytes go. `write` must consume all `len` bytes or fail (return non-zero, an errno). */
typedef struct bb__sink {
    int (*write)(void *ctx, const void *data, size_t len);
    void *ctx;
} bb__sink;

/* A sink that write(2)s to `*fd` (retrying on EINTR and short writes; EIO when write returns 0).
 * `fd` must outlive the sink. Async-signal-safe. */
bb__sink bb__sink_fd(int *fd);

/* A memory buffer bytes are appended to: `len` of `cap` bytes at `data` used. Growing (`fixed`
 * 0; {0} is an empty one): reallocated as needed, ENOMEM when that fails; the caller frees
 * `data`. Fixed (`fixed` 1, bb__membuf_fixed): the caller's buffer; an append past `cap` fails
 * with ENOSPC and appends nothing (no heap, so async-signal-safe). `failed` is set by a failed
 * append; later appends still go on (a fixed buffer may take a smaller one). */
typedef struct bb__membuf {
    uint8_t *data;
    size_t cap;
    size_t len;
    int fixed;
    int failed;
} bb__membuf;

/* A fixed buffer over `cap` bytes at `data`. */
bb__membuf bb__membuf_fixed(uint8_t *data, size_t cap);

/* Append `len` bytes: 0, ENOSPC (fixed, past cap) or ENOMEM (growing, out of memory). */
int bb__membuf_put(bb__membuf *b, const void *data, size_t len);

/* `b` as a sink (bb__membuf_put). */
bb__sink bb__sink_membuf(bb__membuf *b);

#endif /* BACKBEAT_FORMAT_SINK_H */
