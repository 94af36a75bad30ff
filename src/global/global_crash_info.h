/* global_crash_info.h — what the crash path gathers about a crash (signal, fault, thread, stack,
 * loaded modules) and records as the built-in events backbeat::Crash and backbeat::Module
 * before the crash dump (issue 40). Private to the global room.
 *
 * Everything called from a signal handler here is async-signal-safe: no allocation, no lock.
 * What needs preparing (libgcc's unwinder, the main program's path and program headers) is
 * prepared by bb__g_crash_info_prepare when the handlers are installed. The module list is not
 * a copy kept current: it is read at the crash from the dynamic loader's own list (_r_debug, the
 * debuggers' interface, which the loader keeps current lock-free), so dlopen/dlclose cost
 * nothing more. Reads of memory that may be gone (a stack, a module being unloaded) are guarded:
 * a fault there ends that read and what was gathered is kept. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_GLOBAL_CRASH_INFO_H
#define BACKBEAT_GLOBAL_CRASH_INFO_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "backbeat/recorder.h"

#define BB__G_CRASH_FRAMES 64u

/* One crash, as gathered in the handler. */
typedef struct bb__g_crash_info {
    int sig, code;
    uint64_t addr;                       /* si_addr */
    uint32_t tid;                        /* the crashing thread */
    char thread[17];                     /* its name (PR_GET_NAME) */
    uint32_t nframes;                    /* entries of frames */
    uint64_t frames[BB__G_CRASH_FRAMES]; /* the faulting pc, then return addresses */
    bool unwind_faulted;                 /* the walk ended on a fault of its own */
} bb__g_crash_info;

/* One loaded module (global_crash_modules.c). */
typedef struct bb__g_module {
    const char *path;    /* as the loader knows it; the main program's is /proc/self/exe's target */
    uint64_t bias;       /* a code address minus bias is its address in the file */
    uint64_t start, end; /* the span of its PT_LOAD segments in memory */
    uint8_t build_id[32];
    uint8_t build_id_len;
} bb__g_module;

/* At install (not signal-safe): load and initialise the unwinder. */
void bb__g_crash_info_prepare(void);

/* In the crash handler, on the thread that won the crash: gather the crash (bb__g_crash_current
 * then returns it) from the signal and the context. Async-signal-safe. */
void bb__g_crash_gather(int sig, const siginfo_t *info, const void *uc);

/* In the crash handler, first thing: when this thread faulted inside a guarded read, jump back
 * out of it (does not return then). Async-signal-safe. */
void bb__g_crash_guard_check(void);

/* Run `fn(arg)` with faults (SIGSEGV, SIGBUS) ending it instead of the process. Returns false
 * when it faulted. Only the crash path's one thread uses it; async-signal-safe. */
bool bb__g_crash_guarded(void (*fn)(void *arg), void *arg);

/* Each loaded module, read from the loader's list under the guard; `fn` returns false to stop.
 * Returns how many were visited. Async-signal-safe. (global_crash_modules.c) */
uint32_t bb__g_modules_each(bool (*fn)(const bb__g_module *m, void *arg), void *arg);
/* At install: note the main program's path and program headers (global_crash_modules.c). */
void bb__g_modules_prepare(void);

/* The crash gathered by the handler, or NULL (set by global_crash.c before the dump callback). */
const bb__g_crash_info *bb__g_crash_current(void);

/* Register backbeat::Crash and backbeat::Module (once; when the handlers are installed, not
 * signal-safe). (global_crash_events.c) */
void bb__g_crash_events_register(void);

/* Record the current crash and the loaded modules into `rec` (capture switched on for it: the
 * process is going away). Async-signal-safe. (global_crash_events.c) */
void bb__g_crash_record(bb_recorder *rec);

#endif /* BACKBEAT_GLOBAL_CRASH_INFO_H */
