/* ring_write.c — bb_ring_snapshot_fd (backbeat/ring_reader.h): a ring file's snapshot written to
 * a file descriptor from the byte ranges that hold data, the rest left as holes (a seekable
 * fd) or written as zeros (a pipe). The snapshot's untouched zero pages are never read, so a
 * sparse ring file of gigabytes costs the memory and time of its data, not of its size. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error_set.h"
#include "format/sink.h"
#include "read/ring_priv.h"

static int by_start(const void *a, const void *b) {
    const struct bb__ring_range *x = a, *y = b;
    return x->p < y->p ? -1 : x->p > y->p;
}

/* All of p[n] to fd through the format's fd sink (EINTR and short writes retried); 0 or an
 * errno. */
static int write_all(int fd, const uint8_t *p, uint64_t n) {
    bb__sink s = bb__sink_fd(&fd);
    return s.write(s.ctx, p, (size_t)n);
}

/* Pass `n` zero bytes: a seek where the fd allows it, else writes of zeros. */
static int skip(int fd, uint64_t n, bool *seekable) {
    if (*seekable && lseek(fd, (off_t)n, SEEK_CUR) >= 0) return 0;
    *seekable = false;
    static const uint8_t zeros[65536];
    for (; n; n -= n < sizeof zeros ? n : sizeof zeros) {
        int rc = write_all(fd, zeros, n < sizeof zeros ? n : sizeof zeros);
        if (rc) return rc;
    }
    return 0;
}

/* The dump buf[len] to fd: the noted ranges written, the gaps skipped. 0 or an errno. */
static int write_ranges(bb_ring *r, int fd, const uint8_t *buf, size_t len) {
    if (r->ranges_failed) return write_all(fd, buf, len);
    if (r->nranges) qsort(r->ranges, r->nranges, sizeof *r->ranges, by_start);
    bool seekable = true;
    const uint8_t *at = buf;
    int rc = 0;
    for (size_t i = 0; !rc && i < r->nranges; i++) {
        const uint8_t *p = r->ranges[i].p, *e = p + r->ranges[i].n;
        if (e <= at) continue;
        if (p > at) rc = skip(fd, (uint64_t)(p - at), &seekable);
        else p = at;
        if (!rc) rc = write_all(fd, p, (uint64_t)(e - p));
        at = e;
    }
    if (!rc && at < buf + len) { /* a trailing hole: the last byte makes the size */
        rc = skip(fd, (uint64_t)(buf + len - at) - 1, &seekable);
        if (!rc) rc = write_all(fd, buf + len - 1, 1);
    }
    return rc;
}

/* Contract: see ring_priv.h. */
bb_status bb__ring_snapshot_write(bb_ring *r, int fd, uint64_t *written, bb_error *err) {
    if (written) *written = 0;
    if (!r || fd < 0) return bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "invalid argument");
    void *buf = NULL;
    size_t len = 0;
    bb_status st = bb_ring_snapshot(r, &buf, &len, err);
    if (st != BB_OK) return st;
    int rc = write_ranges(r, fd, buf, len);
    bb__ring_buf_put(buf);
    if (rc)
        return bb__err_set(err, BB_ERR_IO, UINT64_MAX, NULL, "%s: writing the dump: %s", r->name,
                           strerror(rc));
    if (written) *written = len;
    return BB_OK;
}

/* Contract: see ring_reader.h. */
bb_status bb_ring_snapshot_fd(bb_ring *r, int fd, uint64_t *written, bb_error *err) {
    return bb__ring_snapshot_write(r, fd, written, err);
}
