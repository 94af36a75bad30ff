/* madv.h — the madvise(2) advice the reader gives that older C library headers may not name:
 * the kernel's numbers, the same on every architecture. A kernel that does not know one answers
 * EINVAL, and each caller then does without it; and the one way the reader gives advice over a
 * range. Reader internals, not API. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_READ_MADV_H
#define BB_READ_MADV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

#ifndef MADV_COLD /* Linux 5.4: reclaim these pages first */
#define MADV_COLD 20
#endif
#ifndef MADV_POPULATE_READ /* Linux 5.14: fault the pages in for reading, in one call */
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE /* Linux 5.14: the same, writable */
#define MADV_POPULATE_WRITE 23
#endif

/* madvise(advice) over the pages that hold [p, p + n) (`page`: the page size, a power of two):
 * madvise's own answer, 0 or -1 with errno. */
static inline int bb__madv_pages(const void *p, size_t n, size_t page, int advice) {
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)(page - 1);
    return madvise((void *)a, (size_t)((uintptr_t)p + n - a), advice);
}

#endif /* BB_READ_MADV_H */
