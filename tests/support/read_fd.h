/* read_fd.h — read back what a test wrote to a pipe, a file descriptor or a FILE. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_TEST_READ_FD_H
#define BB_TEST_READ_FD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Read from fd (from its current offset) into buf until end of file, an error, or `cap` bytes;
 * returns the number of bytes read. */
size_t test_read_fd(int fd, uint8_t *buf, size_t cap);

/* The whole of file `f` (flushed first), malloc'ed, its size in *len; NULL on failure. */
uint8_t *test_file_bytes(FILE *f, size_t *len);

#endif /* BB_TEST_READ_FD_H */
