/* sink_sparse.h — an fd sink that leaves holes: runs of zero bytes written to a regular file
 * become holes (lseek over them) instead of writes, so a dump of mostly empty rings does not
 * write gigabytes of zeros; the bytes read back are the same. Internal to the library. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_FORMAT_SINK_SPARSE_H
#define BACKBEAT_FORMAT_SINK_SPARSE_H

#include <stdint.h>

#include "format/sink.h"

/* State of one sparse fd sink (caller-owned; initialize with bb__sparse_fd_init). */
typedef struct bb__sparse_fd {
    int fd;
    int mode;       /* 0: not yet known, 1: holes (seekable regular file, no O_APPEND), 2: writes */
    uint64_t hole;  /* zero bytes skipped and not yet passed with lseek */
    uint64_t holes; /* total bytes left as holes (for tests and benchmarks) */
} bb__sparse_fd;

void bb__sparse_fd_init(bb__sparse_fd *s, int fd);
/* A sink over `s`: like bb__sink_fd, except that aligned 64 KiB blocks of zeros inside large
 * writes become holes when the fd is a seekable regular file without O_APPEND (any other fd is
 * written to as bb__sink_fd does). Async-signal-safe (fstat, fcntl, lseek, write). */
bb__sink bb__sink_sparse_fd(bb__sparse_fd *s);
/* Pass a pending hole at the end of the output: seek to one byte before its end and write that
 * byte, so the file has its full size and the fd's offset is at the end. 0 or an errno. */
int bb__sparse_fd_finish(bb__sparse_fd *s);

#endif /* BACKBEAT_FORMAT_SINK_SPARSE_H */
