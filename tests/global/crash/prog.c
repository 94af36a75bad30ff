/* prog.c — the crash-where test program (issue 40): one crash mode per run, built -O2
 * -fomit-frame-pointer, run with BACKBEAT_DUMP_ON_CRASH=1 by crash_where.sh, which checks the
 * crash dump's signal and the symbolized frames (the function names below, in order).
 *
 *   main       NULL store three calls deep: m_store <- m_mid <- m_entry <- main
 *   thread     the same in a worker: t_store <- t_mid <- t_entry <- t_start
 *   lib        in the linked shared library: lib_store <- lib_mid <- lib_entry <- main
 *   plugin     in a dlopened plugin (argv[2]): plugin_store <- plugin_mid <- plugin_entry <- main
 *   assert     a failed assert (SIGABRT): ... abort ... a_check <- main
 *   fpe        integer division by zero: f_div <- main
 *   bus        a read of a truncated file mapping (SIGBUS): b_touch <- main
 *   overflow   unbounded recursion: r_recurse <- r_recurse ...
 *   handler    a NULL store in a SIGUSR1 handler: h_store <- h_handler <- ... <- s_raise <- main
 *   double     two threads crash at once: d_store <- d_start (either thread)
 *   badstack   (x86-64) a store with the stack pointer in unmapped memory: the stack walk
 *              itself faults reading the return address; the dump still names u_badstack
 */
/* SPDX-License-Identifier: MIT */
#undef NDEBUG
#include <assert.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backbeat/backbeat.h"
#include "cw.h"

BB_EVENT(cw_tick, "cw", "Tick", NULL, BB_FIELD(uint64_t, i, "The iteration."));

volatile uintptr_t cw_null;
volatile int cw_zero;

CW_FN int m_store(int x) {
    *(volatile int *)cw_null = x;
    return x + 1;
}
CW_FN int m_mid(int x) {
    int r = m_store(x + 1);
    CW_KEEP();
    return r;
}
CW_FN int m_entry(int x) {
    int r = m_mid(x + 1);
    CW_KEEP();
    return r;
}

CW_FN int t_store(int x) {
    *(volatile int *)cw_null = x;
    return x + 1;
}
CW_FN int t_mid(int x) {
    int r = t_store(x + 1);
    CW_KEEP();
    return r;
}
CW_FN int t_entry(int x) {
    int r = t_mid(x + 1);
    CW_KEEP();
    return r;
}
CW_FN void *t_start(void *arg) {
    BB_GRECORD(cw_tick, .i = 1);
    t_entry((int)(intptr_t)arg);
    CW_KEEP();
    return NULL;
}

CW_FN int a_check(int x) {
    assert(x == cw_zero + 12345);
    CW_KEEP();
    return x;
}

/* A hardware division by zero, not C's (undefined behaviour that UBSan would stop first). */
CW_FN int f_div(int x) {
#if defined(__x86_64__)
    unsigned lo = (unsigned)x, hi = 0, zero = (unsigned)cw_zero;
    __asm__ volatile("divl %2" : "+a"(lo), "+d"(hi) : "r"(zero));
    int r = (int)lo;
#else
    int r = x / cw_zero;
#endif
    CW_KEEP();
    return r;
}

CW_FN int b_touch(const char *dir) {
    char path[4096];
    snprintf(path, sizeof path, "%s/cw-bus.tmp", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ftruncate(fd, 8192) != 0) return -1;
    volatile char *p = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED || ftruncate(fd, 0) != 0) return -1;
    unlink(path);
    int r = p[4096];
    CW_KEEP();
    return r;
}

volatile int cw_forever = 1;
CW_FN int r_recurse(int n) {
    volatile char pad[256];
    pad[0] = (char)n;
    int r = cw_forever ? r_recurse(n + 1) + pad[0] : n;
    CW_KEEP();
    return r;
}

CW_FN int h_store(int x) {
    *(volatile int *)cw_null = x;
    return x + 1;
}
CW_FN void h_handler(int sig) {
    h_store(sig);
    CW_KEEP();
}
CW_FN int s_raise(int x) {
    raise(SIGUSR1);
    CW_KEEP();
    return x;
}

static pthread_barrier_t d_barrier;
CW_FN int d_store(int x) {
    *(volatile int *)cw_null = x;
    return x + 1;
}
CW_FN void *d_start(void *arg) {
    BB_GRECORD(cw_tick, .i = 2);
    pthread_barrier_wait(&d_barrier);
    d_store((int)(intptr_t)arg);
    CW_KEEP();
    return NULL;
}

CW_FN int plugin(const char *path) {
    void *h = dlopen(path, RTLD_NOW);
    if (!h) {
        fprintf(stderr, "prog: %s\n", dlerror());
        return 2;
    }
    int (*entry)(int);
    void *sym = dlsym(h, "plugin_entry");
    memcpy(&entry, &sym, sizeof entry); /* ISO C has no object-to-function pointer cast */
    if (!entry) return 2;
    int r = entry(1);
    CW_KEEP();
    return r;
}

static int threads(void *(*start)(void *), int n) {
    pthread_t t[2];
    for (int i = 0; i < n; i++) pthread_create(&t[i], NULL, start, (void *)(intptr_t)i);
    for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
    return 0;
}

CW_FN int u_badstack(void) {
#if defined(__x86_64__)
    __asm__ volatile("mov $0x1000, %%rsp\n\tmovl $0, (%%rsp)" ::: "memory");
#endif
    return 2;
}

/* Each mode's call is kept a call (no tail call), so main stays on the stack. */
int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    const char *arg = argc > 2 ? argv[2] : NULL;
    BB_GRECORD(cw_tick, .i = 0);
    int r = 2;
    if (!strcmp(mode, "main")) r = m_entry(1);
    else if (!strcmp(mode, "thread")) r = threads(t_start, 1);
    else if (!strcmp(mode, "lib")) r = lib_entry(1);
    else if (!strcmp(mode, "plugin") && arg) r = plugin(arg);
    else if (!strcmp(mode, "assert")) r = a_check(1);
    else if (!strcmp(mode, "fpe")) r = f_div(1);
    else if (!strcmp(mode, "bus") && arg) r = b_touch(arg);
    else if (!strcmp(mode, "overflow")) r = r_recurse(0);
    else if (!strcmp(mode, "handler")) {
        signal(SIGUSR1, h_handler);
        r = s_raise(1);
    } else if (!strcmp(mode, "double")) {
        pthread_barrier_init(&d_barrier, NULL, 2);
        r = threads(d_start, 2);
    } else if (!strcmp(mode, "badstack")) {
        r = u_badstack();
    } else {
        fprintf(stderr, "prog: unknown mode '%s'\n", mode);
    }
    CW_KEEP();
    return r;
}
