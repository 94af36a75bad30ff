/* fsize_guard.h — keeps a file-size limit (RLIMIT_FSIZE, `ulimit -f`) from killing the host
 * program at a library write. A write past the limit makes the kernel send SIGXFSZ to the
 * writing thread, whose default action terminates the process; with the signal blocked the
 * write fails with EFBIG instead, which the caller reports as an error. Every library path
 * that writes or grows a file (dumps to an fd or a path, the global dumper's dumps and crash
 * dumps, a ring file's reservation) runs inside one guard. Internal to the library. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_FORMAT_FSIZE_GUARD_H
#define BACKBEAT_FORMAT_FSIZE_GUARD_H

#include <signal.h>

/* The calling thread's signal mask before the guard. */
typedef struct bb__fsize_guard {
    sigset_t old;
    int ok; /* the mask was changed (restored by bb__fsize_guard_end) */
} bb__fsize_guard;

/* Block SIGXFSZ in the calling thread. Async-signal-safe (pthread_sigmask). */
void bb__fsize_guard_begin(bb__fsize_guard *g);

/* End the guard: when the guarded writes raised SIGXFSZ (it is pending) and the thread did not
 * block it itself, take it (it would kill the process once unblocked); then restore the mask.
 * Async-signal-safe (sigpending, sigtimedwait and pthread_sigmask are system calls); errno is
 * preserved. */
void bb__fsize_guard_end(bb__fsize_guard *g);

#endif /* BACKBEAT_FORMAT_FSIZE_GUARD_H */
