/* fsize_guard.c — see fsize_guard.h: SIGXFSZ blocked around the library's writes, and the one
 * they raise discarded, so a file-size limit fails a write with EFBIG instead of killing. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "format/fsize_guard.h"

void bb__fsize_guard_begin(bb__fsize_guard *g) {
    sigset_t xfsz;
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    g->ok = pthread_sigmask(SIG_BLOCK, &xfsz, &g->old) == 0;
}

void bb__fsize_guard_end(bb__fsize_guard *g) {
    if (!g->ok) return;
    int saved = errno;
    /* Linux sends SIGXFSZ to the writing thread, so one a guarded write raised is pending here.
     * When the caller had it blocked already, it stays pending for the caller, as without us. */
    sigset_t pending;
    if (!sigismember(&g->old, SIGXFSZ) && sigpending(&pending) == 0 &&
        sigismember(&pending, SIGXFSZ) == 1) {
        sigset_t xfsz;
        sigemptyset(&xfsz);
        sigaddset(&xfsz, SIGXFSZ);
        const struct timespec now = {0, 0};
        sigtimedwait(&xfsz, NULL, &now);
    }
    pthread_sigmask(SIG_SETMASK, &g->old, NULL);
    g->ok = 0;
    errno = saved;
}
