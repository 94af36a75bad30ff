/* backbeat/global.h — the process-wide recorder: zero-code-change tracing, a background dumper,
 * triggers, crash dumps.
 *
 *   BB_GRECORD(packet_sent, .conn_id = 7, .len = 1200);   // record through the global recorder
 *   bb_global_trigger();                                   // ask for a dump (signal-safe)
 *
 * Everything else the recorder offers takes bb_global() as its recorder, e.g.
 *   BB_SPAN_SCOPED(span, bb_global(), req_enter, req_exit, 0, .path = BB_INTERN(bb_global(), "/"));
 *
 * The global recorder is built on first use (BB_GRECORD, bb_global(), any bb_global_* call),
 * thread-safely, from the BACKBEAT_* environment variables (docs/ENVIRONMENT.md), read once.
 * Building it also starts the dumper thread, installs the BACKBEAT_SIGNAL handler and, with
 * BACKBEAT_DUMP_ON_CRASH, the crash handlers. After that, recording through it costs one load of
 * the global pointer and a predictable branch more than recording into a local recorder.
 *
 * Dumps are written by the dumper thread (bb_global_trigger) or by the caller (bb_global_dump)
 * to `<stem>.<YYYYMMDDThhmmssmmmZ>[-N].<ext>` derived from BACKBEAT_PATH, through a temporary
 * file and a link, never replacing a file; BACKBEAT_THROTTLE_MS spaces background dumps (the
 * first is never throttled, triggers in the window coalesce into one later dump) and
 * BACKBEAT_MAX_DUMPS / BACKBEAT_LIMIT_POLICY cap the files kept. A failed dump is reported once
 * on stderr; recording is never blocked by the dumper.
 *
 * fork(): the child's global recorder is rebuilt on its first use in the child (new instance
 * id, empty rings, its own dumper thread, the same configuration; the default path uses the
 * child's pid; enabled if the parent's was). Until then, in the child, triggers and crashes
 * write nothing. fork() waits for a dump in progress to finish.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_GLOBAL_H
#define BACKBEAT_GLOBAL_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "recorder.h"
#include "detail/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Implementation details of bb_global(): the published recorder (NULL until built) and the
 * slow path that builds it. */
BB_API extern bb_recorder *bb__global_rec;
BB_API bb_recorder *bb__global_slow(void);

/* The global recorder, built on first call. NULL only when it could not be built (reported
 * once on stderr); every recorder macro accepts NULL and records nothing. The fast path is one
 * acquire load (a plain load on x86-64 and a load-acquire on arm64) and a branch. Not
 * async-signal-safe until the recorder exists (the first call allocates and takes a lock). */
static inline bb_recorder *bb_global(void) {
    bb_recorder *r = __atomic_load_n(&bb__global_rec, __ATOMIC_ACQUIRE);
    if (__builtin_expect(r != NULL, 1)) return r;
    return bb__global_slow();
}

/* BB_GRECORD(ident, .field = v, ...): BB_RECORD into the global recorder. */
#define BB_GRECORD(...) BB_RECORD(bb_global(), __VA_ARGS__)
/* BB_GRECORD_PTR(ident, ptr): BB_RECORD_PTR into the global recorder. */
#define BB_GRECORD_PTR(ident, ptr) BB_RECORD_PTR(bb_global(), ident, ptr)

/* Build the global recorder now (normally done by its first use): useful early in main so the
 * BACKBEAT_SIGNAL and crash handlers are armed from the start. Returns BB_OK, or the status
 * that prevented building it (the same every later call). */
BB_API bb_status bb_global_init(void);

/* Arm / disarm capture (BACKBEAT_ENABLE arms it at build time). */
BB_API void bb_global_enable(void);
BB_API void bb_global_disable(void);
BB_API bool bb_global_enabled(void);

/* Ask the dumper thread for a dump and return at once. Async-signal-safe once the global
 * recorder exists; before that it builds it first (not signal-safe). Coalesces with pending and
 * throttled triggers. */
BB_API void bb_global_trigger(void);

/* Write a dump now on the calling thread (not throttled; counts against BACKBEAT_MAX_DUMPS).
 * On success the file name is copied to path_out[cap] (when given). Returns BB_OK, BB_ERR_FULL
 * when keep-oldest reached the cap, or the error (also reported once on stderr). */
BB_API bb_status bb_global_dump(char *path_out, size_t cap, bb_error *err);

/* Give the calling thread an alternate signal stack (if it has none), so a stack overflow on
 * this thread still produces a crash dump. The thread that builds the global recorder, the
 * dumper thread and (with BACKBEAT_DUMP_ON_CRASH set at startup) the main thread get one
 * automatically; call this at the start of other threads. Returns BB_OK or BB_ERR_NOMEM. */
BB_API bb_status bb_global_thread_init(void);

#ifdef __cplusplus
}
#endif

#endif /* BACKBEAT_GLOBAL_H */
