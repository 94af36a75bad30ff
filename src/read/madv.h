/* madv.h — the madvise(2) advice the reader gives that older C library headers may not name:
 * the kernel's numbers, the same on every architecture. A kernel that does not know one answers
 * EINVAL, and each caller then does without it. Reader internals, not API. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_READ_MADV_H
#define BB_READ_MADV_H

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

#endif /* BB_READ_MADV_H */
