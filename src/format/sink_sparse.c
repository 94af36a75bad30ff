/* sink_sparse.c — the hole-leaving fd sink of sink_sparse.h: dump writes of ring snapshots that
 * are mostly zeros become lseeks over holes when the output is a regular file. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/sink_sparse.h"

#define BB_SPARSE_BLOCK 65536u

void bb__sparse_fd_init(bb__sparse_fd *s, int fd) {
    memset(s, 0, sizeof *s);
    s->fd = fd;
}

/* write(2) all of p through the plain fd sink (sink.c: EINTR and short writes retried); 0 or
 * an errno. */
static int write_all(int fd, const uint8_t *p, size_t len) {
    bb__sink plain = bb__sink_fd(&fd);
    return plain.write(plain.ctx, p, len);
}

/* Holes only where a seek lands where the next write goes: a regular file, no O_APPEND. */
static int decide(int fd) {
    struct stat st;
    int fl = fcntl(fd, F_GETFL);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || fl < 0 || (fl & O_APPEND) ||
        lseek(fd, 0, SEEK_CUR) < 0)
        return 2;
    return 1;
}

static int pass_hole(bb__sparse_fd *s) {
    if (s->hole == 0) return 0;
    if (lseek(s->fd, (off_t)s->hole, SEEK_CUR) < 0) return errno ? errno : EIO;
    s->holes += s->hole;
    s->hole = 0;
    return 0;
}

static int all_zero(const uint8_t *p, size_t n) {
    const uint64_t *w = (const uint64_t *)(const void *)p; /* p is 8-aligned, n % 8 == 0 */
    uint64_t acc = 0;
    for (size_t i = 0; i < n / 8; i++) {
        acc |= w[i];
        if ((i & 63) == 63 && acc) return 0;
    }
    return acc == 0;
}

static int sparse_write(void *ctx, const void *data, size_t len) {
    bb__sparse_fd *s = ctx;
    const uint8_t *p = data;
    if (s->mode == 0) s->mode = decide(s->fd);
    if (s->mode == 2 || len < 2 * BB_SPARSE_BLOCK || ((uintptr_t)p & 7)) {
        int rc = pass_hole(s);
        return rc ? rc : write_all(s->fd, p, len);
    }
    while (len > 0) { /* a run of zero blocks becomes a hole, a run of others one write */
        size_t n = len < BB_SPARSE_BLOCK ? len : BB_SPARSE_BLOCK;
        if (n == BB_SPARSE_BLOCK && all_zero(p, n)) {
            s->hole += n;
            p += n;
            len -= n;
            continue;
        }
        while (n < len) {
            size_t more = len - n < BB_SPARSE_BLOCK ? len - n : BB_SPARSE_BLOCK;
            if (more == BB_SPARSE_BLOCK && all_zero(p + n, more)) break;
            n += more;
        }
        int rc = pass_hole(s);
        if (!rc) rc = write_all(s->fd, p, n);
        if (rc) return rc;
        p += n;
        len -= n;
    }
    return 0;
}

bb__sink bb__sink_sparse_fd(bb__sparse_fd *s) {
    bb__sink k = {sparse_write, s};
    return k;
}

int bb__sparse_fd_finish(bb__sparse_fd *s) {
    if (s->hole == 0) return 0;
    s->hole--;
    int rc = pass_hole(s);
    static const uint8_t zero = 0;
    return rc ? rc : write_all(s->fd, &zero, 1);
}
