/* read_fd.c — test_read_fd (see read_fd.h). */
/* SPDX-License-Identifier: MIT */
#include "read_fd.h"

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
