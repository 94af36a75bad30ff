/* global_crash_info.c — the crash gathered in the handler: signal, code, faulting address, the
 * crashing thread, and its stack unwound with the binaries' CFI; the guard that keeps a fault of
 * the gathering itself from killing the dump.
 *
 * The stack is walked by libgcc's _Unwind_Backtrace from the handler: it reads the call-frame
 * information (.eh_frame) of every module, so -O2 code without frame pointers is crossed, and
 * its Linux fallback recognises the kernel's signal frame (__restore_rt) and continues in the
 * interrupted code. With glibc >= 2.35 it finds a pc's FDE through _dl_find_object, which takes
 * no lock; the first call loads and initialises what it needs, so it is made once at install.
 * Frames up to the signal frame (the handler's own) are dropped: the stack starts at the
 * faulting instruction (the first frame marked "ip before instruction", or the context's pc).
 */
/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <string.h>
#include <sys/prctl.h>
#include <ucontext.h>
#include <unistd.h>
#include <unwind.h>

#include "global/global_crash_info.h"

static bb__g_crash_info g_crash;
static int g_crash_set; /* atomic */

/* The guard: one thread (the crash path's) at a time. */
static sigjmp_buf g_guard_jmp;
static pid_t g_guard_tid; /* atomic: the thread inside a guarded call, 0 when none */

static _Unwind_Reason_Code count_frame(struct _Unwind_Context *ctx, void *arg) {
    (void)ctx;
    return ++*(int *)arg > 4 ? _URC_END_OF_STACK : _URC_NO_REASON;
}

void bb__g_crash_info_prepare(void) {
    int n = 0;
    _Unwind_Backtrace(count_frame, &n); /* loads libgcc_s's unwinder, fills its caches */
}

void bb__g_crash_guard_check(void) {
    if (__atomic_load_n(&g_guard_tid, __ATOMIC_ACQUIRE) == gettid()) siglongjmp(g_guard_jmp, 1);
}

bool bb__g_crash_guarded(void (*fn)(void *arg), void *arg) {
    sigset_t faults;
    sigemptyset(&faults);
    sigaddset(&faults, SIGSEGV);
    sigaddset(&faults, SIGBUS);
    bool ok = false;
    if (sigsetjmp(g_guard_jmp, 1) == 0) { /* 1: the mask is restored on the jump back */
        __atomic_store_n(&g_guard_tid, gettid(), __ATOMIC_RELEASE);
        sigprocmask(SIG_UNBLOCK, &faults, NULL); /* a fault here re-enters our handler */
        fn(arg);
        ok = true;
    }
    __atomic_store_n(&g_guard_tid, 0, __ATOMIC_RELEASE);
    return ok;
}

/* ---- the walk ------------------------------------------------------------------------------ */

typedef struct walk {
    bb__g_crash_info *out;
    uintptr_t pc;  /* the context's pc (0 when unknown) */
    bool started;  /* past the signal frame */
    uint32_t seen; /* frames visited, bounded */
} walk;

static _Unwind_Reason_Code on_frame(struct _Unwind_Context *ctx, void *arg) {
    walk *w = arg;
    int before = 0;
    uintptr_t ip = _Unwind_GetIPInfo(ctx, &before);
    if (++w->seen > 4 * BB__G_CRASH_FRAMES) return _URC_END_OF_STACK;
    if (!w->started) {
        if (!before && ip != w->pc) return _URC_NO_REASON; /* the handler's own frames */
        w->started = true;
    }
    if (ip == 0) return _URC_END_OF_STACK;
    w->out->frames[w->out->nframes++] = ip;
    return w->out->nframes == BB__G_CRASH_FRAMES ? _URC_END_OF_STACK : _URC_NO_REASON;
}

static void unwind(void *arg) { _Unwind_Backtrace(on_frame, arg); }

static uintptr_t context_pc(const void *uc) {
#if defined(__x86_64__)
    return uc ? (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] : 0;
#elif defined(__aarch64__)
    return uc ? (uintptr_t)((const ucontext_t *)uc)->uc_mcontext.pc : 0;
#else
    (void)uc;
    return 0;
#endif
}

void bb__g_crash_gather(int sig, const siginfo_t *info, const void *uc) {
    bb__g_crash_info *out = &g_crash;
    memset(out, 0, sizeof *out);
    out->sig = sig;
    out->code = info ? info->si_code : 0;
    /* si_addr is the fault's address for the faults; for a sent signal it is not meaningful */
    out->addr = info && info->si_code > 0 ? (uint64_t)(uintptr_t)info->si_addr : 0;
    out->tid = (uint32_t)gettid();
    prctl(PR_GET_NAME, out->thread, 0, 0, 0);
    walk w = {out, context_pc(uc), false, 0};
    out->unwind_faulted = !bb__g_crash_guarded(unwind, &w);
    if (out->nframes == 0 && w.pc) out->frames[out->nframes++] = w.pc;
    __atomic_store_n(&g_crash_set, 1, __ATOMIC_RELEASE);
}

const bb__g_crash_info *bb__g_crash_current(void) {
    return __atomic_load_n(&g_crash_set, __ATOMIC_ACQUIRE) ? &g_crash : NULL;
}
