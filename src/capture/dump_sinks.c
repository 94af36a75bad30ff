/* dump_sinks.c — the public byte sinks of backbeat/dump_writer.h (bb_sink_fd, bb_sink_buffer),
 * adapted to the format's own sinks (format/sink.h), which do the writing. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/dump_writer.h"

#include "format/sink.h"

bb_sink bb_sink_fd(int *fd_storage) {
    bb__sink k = bb__sink_fd(fd_storage);
    bb_sink s = {k.write, k.ctx};
    return s;
}

/* Append to the bb_buffer_sink at ctx through a fixed format buffer over it: ENOSPC (nothing
 * appended) when it would pass cap. */
static int buffer_write(void *ctx, const void *data, size_t len) {
    bb_buffer_sink *b = ctx;
    bb__membuf m = bb__membuf_fixed(b->data, b->cap);
    m.len = b->len;
    int rc = bb__membuf_put(&m, data, len);
    b->len = m.len;
    return rc;
}

bb_sink bb_sink_buffer(bb_buffer_sink *buf) {
    bb_sink s = {buffer_write, buf};
    return s;
}
