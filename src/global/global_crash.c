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
 *
 * Re-arming (once, at the program's first record): a handler the program installed over ours
 * during its set-up is gone over again, and ours then chains to it first ("over"), to the
 * disposition from before ours second. A handler that chained to ours is thus entered, calls
 * ours again on the same thread (t_crashed), which then puts back the original disposition.
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

#include "global/global_crash_info.h"
#include "global/global_internal.h"

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define NSIG_CRASH (sizeof crash_signals / sizeof crash_signals[0])

static struct sigaction prev_action[NSIG_CRASH]; /* before ours was first installed */
static struct sigaction over_action[NSIG_CRASH]; /* the program's, gone over at re-arming */
static bool over_set[NSIG_CRASH];
static bool installed;
/* This thread has run the crash path (a second entry is a handler chaining back to ours). */
static __thread bool t_crashed __attribute__((tls_model("initial-exec")));
static pthread_mutex_t install_lock = PTHREAD_MUTEX_INITIALIZER;

/* The callback, published with release, read with acquire by the handler. */
static bb__g_crash_fn crash_fn;
static void *crash_ctx;
static int crash_state; /* 0 none, 1 dumping, 2 done */
static pid_t crash_tid; /* the thread writing the crash dump */

void bb__g_crash_set(bb__g_crash_fn fn, void *ctx) {
    __atomic_store_n(&crash_ctx, ctx, __ATOMIC_RELEASE);
    __atomic_store_n(&crash_fn, fn, __ATOMIC_RELEASE);
}

static int index_of(int sig) {
    for (size_t i = 0; i < NSIG_CRASH; i++)
        if (crash_signals[i] == sig) return (int)i;
    return -1;
}

/* The disposition to put back: the one ours went over at re-arming on a first entry, the one
 * from before ours when this thread already ran the crash path. */
static const struct sigaction *restore_of(int idx, bool again) {
    if (!again && __atomic_load_n(&over_set[idx], __ATOMIC_ACQUIRE)) return &over_action[idx];
    return &prev_action[idx];
}

static void crash_handler(int sig, siginfo_t *info, void *uc) {
    bb__g_crash_guard_check(); /* a fault while gathering the crash: back to the gathering */
    int saved_errno = errno;
    int idx = index_of(sig);
    bool again = t_crashed;
    t_crashed = true;
    int expected = 0;
    if (__atomic_compare_exchange_n(&crash_state, &expected, 1, false, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&crash_tid, gettid(), __ATOMIC_RELAXED);
        bb__g_crash_gather(sig, info, uc);
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
    if (idx >= 0) sigaction(sig, restore_of(idx, again), NULL);
    else signal(sig, SIG_DFL);
    /* A signal sent by a process (si_code <= 0: kill, raise, abort, tgkill) does not repeat by
     * itself: raise it again (it is blocked until we return). A fault repeats on return. */
    if (!info || info->si_code <= 0) raise(sig);
    errno = saved_errno;
}

int bb__g_crash_install(bb__g_crash_fn fn, void *ctx) {
    bb__g_crash_set(fn, ctx);
    bb__g_crash_info_prepare();
    bb__g_modules_prepare();
    bb__g_crash_events_register();
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

/* Whether `sa` is our crash handler. */
static bool is_ours(const struct sigaction *sa) {
    return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == crash_handler;
}

int bb__g_crash_rearm(void) {
    if (!__atomic_load_n(&installed, __ATOMIC_ACQUIRE)) return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = crash_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    int n = 0;
    for (size_t i = 0; i < NSIG_CRASH; i++) {
        struct sigaction cur;
        if (sigaction(crash_signals[i], NULL, &cur) != 0 || is_ours(&cur) ||
            __atomic_load_n(&over_set[i], __ATOMIC_RELAXED))
            continue;
        over_action[i] = cur;
        __atomic_store_n(&over_set[i], true, __ATOMIC_RELEASE);
        if (sigaction(crash_signals[i], &sa, NULL) == 0) n++;
        else __atomic_store_n(&over_set[i], false, __ATOMIC_RELEASE);
    }
    return n;
}

/* ---- alternate signal stacks ---------------------------------------------------------- */

static pthread_key_t altstack_key;
static pthread_once_t altstack_once = PTHREAD_ONCE_INIT;
static bool altstack_key_ok;
static size_t altstack_page, altstack_size; /* set once with the key */

/* Thread exit: the key's value is the mapping (a guard page, then the stack). */
static void altstack_release(void *map) {
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == (char *)map + altstack_page) {
        stack_t off;
        memset(&off, 0, sizeof off);
        off.ss_flags = SS_DISABLE;
        sigaltstack(&off, NULL);
    }
    munmap(map, altstack_page + altstack_size);
}

static void altstack_key_init(void) {
    altstack_page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = 64 * 1024;
    if (size < (size_t)SIGSTKSZ * 4) size = (size_t)SIGSTKSZ * 4;
    altstack_size = (size + altstack_page - 1) / altstack_page * altstack_page;
    altstack_key_ok = pthread_key_create(&altstack_key, altstack_release) == 0;
}

void bb__g_altstack_prepare(void) { pthread_once(&altstack_once, altstack_key_init); }

int bb__g_altstack_install(void) {
    stack_t cur;
    if (sigaltstack(NULL, &cur) != 0) return errno;
    if (!(cur.ss_flags & SS_DISABLE)) return 0; /* the thread already has one: keep it */
    bb__g_altstack_prepare();
    size_t len = altstack_page + altstack_size; /* a guard page below the stack */
    void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return errno;
    mprotect(map, altstack_page, PROT_NONE);
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = (char *)map + altstack_page;
    ss.ss_size = altstack_size;
    if (sigaltstack(&ss, NULL) != 0) {
        int e = errno;
        munmap(map, len);
        return e;
    }
    /* released when the thread exits; without the key, kept for the thread's life, then leaked */
    if (altstack_key_ok) pthread_setspecific(altstack_key, map);
    return 0;
}
