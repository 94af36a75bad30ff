/* global_crash.c — fatal-signal handlers (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT) and
 * alternate signal stacks for the global recorder's crash dumps.
 *
 * The handler runs on the thread's alternate stack (SA_ONSTACK) so a stack overflow is caught
 * where a stack exists. It calls the dump callback once per process (the first crash; a second
 * thread crashing meanwhile waits a bounded time for it), then puts back the disposition that
 * was installed before ours and lets the signal take its course: a fault re-executes the
 * faulting instruction on return, a sent signal (kill, raise, abort) is raised again, so the
 * previous handler runs, or the default action kills the process with the same signal and core
 * dump behaviour. A handler installed after ours that chains to ours keeps working: it runs
 * first, ours dumps and returns to it.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "global/global_internal.h"

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define NSIG_CRASH (sizeof crash_signals / sizeof crash_signals[0])

static struct sigaction prev_action[NSIG_CRASH];
static bool installed;
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

/* The callback, published with release, read with acquire by the handler. */
static bb__g_crash_fn crash_fn;
static void *crash_ctx;
static int crash_state; /* 0 none, 1 dumping, 2 done */
static pid_t crash_tid;  /* the thread writing the crash dump */

void bb__g_crash_set(bb__g_crash_fn fn, void *ctx) {
    __atomic_store_n(&crash_ctx, ctx, __ATOMIC_RELEASE);
    __atomic_store_n(&crash_fn, fn, __ATOMIC_RELEASE);
}

static int index_of(int sig) {
    for (size_t i = 0; i < NSIG_CRASH; i++)
        if (crash_signals[i] == sig) return (int)i;
    return -1;
}

static void crash_handler(int sig, siginfo_t *info, void *uc) {
    (void)uc;
    int saved_errno = errno;
    int idx = index_of(sig);
    int expected = 0;
    if (__atomic_compare_exchange_n(&crash_state, &expected, 1, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&crash_tid, gettid(), __ATOMIC_RELAXED);
        bb__g_crash_fn fn = __atomic_load_n(&crash_fn, __ATOMIC_ACQUIRE);
        void *ctx = __atomic_load_n(&crash_ctx, __ATOMIC_ACQUIRE);
        if (fn) fn(ctx, sig);
        __atomic_store_n(&crash_state, 2, __ATOMIC_RELEASE);
    } else if (expected == 1 && __atomic_load_n(&crash_tid, __ATOMIC_RELAXED) != gettid()) {
        /* Another thread is writing the crash dump: give it up to ~10 s before dying. (The
         * same thread faulting inside the dump goes straight on to die.) */
        struct timespec ten_ms = {0, 10 * 1000 * 1000};
        for (int i = 0; i < 1000 && __atomic_load_n(&crash_state, __ATOMIC_ACQUIRE) == 1; i++)
            nanosleep(&ten_ms, NULL);
    }
    if (idx >= 0) sigaction(sig, &prev_action[idx], NULL);
    else signal(sig, SIG_DFL);
    /* A signal sent by a process (si_code <= 0: kill, raise, abort, tgkill) does not repeat by
     * itself: raise it again (it is blocked until we return). A fault repeats on return. */
    if (!info || info->si_code <= 0) raise(sig);
    errno = saved_errno;
}

int bb__g_crash_install(bb__g_crash_fn fn, void *ctx) {
    bb__g_crash_set(fn, ctx);
    pthread_mutex_lock(&install_lock);
    int rc = 0;
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = crash_handler;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        for (size_t i = 0; i < NSIG_CRASH; i++) {
            if (sigaction(crash_signals[i], &sa, &prev_action[i]) != 0) {
                rc = errno;
                while (i-- > 0) sigaction(crash_signals[i], &prev_action[i], NULL);
                break;
            }
        }
        if (!rc) installed = true;
    }
    pthread_mutex_unlock(&install_lock);
    return rc;
}

/* ---- alternate signal stacks ---------------------------------------------------------- */

static pthread_key_t altstack_key;
static pthread_once_t altstack_once = PTHREAD_ONCE_INIT;
static bool altstack_key_ok;

typedef struct altstack {
    void *map;
    size_t len;
} altstack;

static void altstack_release(void *p) {
    altstack *a = p;
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == (char *)a->map + (size_t)sysconf(_SC_PAGESIZE)) {
        stack_t off;
        memset(&off, 0, sizeof off);
        off.ss_flags = SS_DISABLE;
        sigaltstack(&off, NULL);
    }
    munmap(a->map, a->len);
    free(a);
}

static void altstack_key_init(void) {
    altstack_key_ok = pthread_key_create(&altstack_key, altstack_release) == 0;
}

int bb__g_altstack_install(void) {
    stack_t cur;
    if (sigaltstack(NULL, &cur) != 0) return errno;
    if (!(cur.ss_flags & SS_DISABLE)) return 0; /* the thread already has one: keep it */
    pthread_once(&altstack_once, altstack_key_init);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = 64 * 1024;
    if (size < (size_t)SIGSTKSZ * 4) size = (size_t)SIGSTKSZ * 4;
    size = (size + page - 1) / page * page;
    size_t len = size + page; /* a guard page below the stack */
    void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return errno;
    mprotect(map, page, PROT_NONE);
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = (char *)map + page;
    ss.ss_size = size;
    if (sigaltstack(&ss, NULL) != 0) {
        int e = errno;
        munmap(map, len);
        return e;
    }
    altstack *a = malloc(sizeof *a);
    if (a && altstack_key_ok) {
        a->map = map;
        a->len = len;
        pthread_setspecific(altstack_key, a); /* released when the thread exits */
    } else {
        free(a); /* kept for the thread's life, then leaked */
    }
    return 0;
}
