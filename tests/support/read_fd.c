/* read_fd.c — test_read_fd (see read_fd.h). */
/* SPDX-License-Identifier: MIT */
#include "read_fd.h"

#include <stdlib.h>
#include <unistd.h>

size_t test_read_fd(int fd, uint8_t *buf, size_t cap) {
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fd, buf + len, cap - len);
        if (n <= 0) break;
        len += (size_t)n;
    }
    return len;
}

uint8_t *test_file_bytes(FILE *f, size_t *len) {
    if (fflush(f) != 0) return NULL;
    off_t end = lseek(fileno(f), 0, SEEK_END);
    if (end < 0) return NULL;
    uint8_t *b = malloc(end > 0 ? (size_t)end : 1);
    if (!b || (end > 0 && pread(fileno(f), b, (size_t)end, 0) != (ssize_t)end)) {
        free(b);
        return NULL;
    }
    *len = (size_t)end;
    return b;
}
