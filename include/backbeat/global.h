/* backbeat/global.h — the process-wide recorder: zero-code-change tracing, a background dumper,
 * triggers, crash dumps.
 *
 *   BB_GRECORD(packet_sent, .conn_id = 7, .len = 1200);   // record through the global recorder
 *   bb_global_trigger();                                   // ask for a dump (signal-safe)
 *
 * Everything else the recorder offers takes bb_global() as its recorder, e.g.
 *   BB_SPAN_SCOPED(span, bb_global(), req_enter, req_exit, 0, .path = BB_INTERN(bb_global(), "/"));
 *
 * The global recorder is built from the BACKBEAT_* environment variables (docs/ENVIRONMENT.md),
 * read once: when the library loads if BACKBEAT_ENABLE, BACKBEAT_DUMP_ON_CRASH or
 * BACKBEAT_SIGNAL is set then (so the crash and dump-signal handlers cover the program from its
 * start), else on first use (BB_GRECORD, bb_global(), any bb_global_* call), thread-safely.
 * Building it installs the BACKBEAT_SIGNAL handler and, with BACKBEAT_DUMP_ON_CRASH, the crash
 * handlers; the dumper thread runs only while capture is enabled or BACKBEAT_SIGNAL is set.
 * A thread's first use also gives it an alternate signal stack (with BACKBEAT_DUMP_ON_CRASH),
 * and the process's first use puts the handlers back on top once if the program replaced them
 * during its set-up (chaining to the program's). After that, recording through it costs one
 * load of a thread-local pointer and a predictable branch more than into a local recorder.
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

/* Implementation details of bb_global(): the published recorder (NULL until built; read by
 * code built against older headers), the calling thread's copy of it (NULL until the thread's
 * first use) and the slow path that builds the recorder and sets up the thread. */
BB_API extern bb_recorder *bb__global_rec;
BB_API extern __thread bb_recorder *bb__global_tls __attribute__((tls_model("initial-exec")));
BB_API bb_recorder *bb__global_slow(void);

/* The global recorder, built on first call. NULL only when it could not be built (reported
 * once on stderr); every recorder macro accepts NULL and records nothing. The fast path is one
 * load of a thread-local pointer and a branch. A thread's first call takes the slow path (no
 * lock once the recorder exists; with BACKBEAT_DUMP_ON_CRASH it maps the thread's alternate
 * signal stack). Not async-signal-safe until the recorder exists (building allocates and takes
 * a lock). */
static inline bb_recorder *bb_global(void) {
    bb_recorder *r = bb__global_tls;
    if (__builtin_expect(r != NULL, 1)) return r;
    return bb__global_slow();
}

/* BB_GRECORD(ident, .field = v, ...): BB_RECORD into the global recorder. */
#define BB_GRECORD(...) BB_RECORD(bb_global(), __VA_ARGS__)
/* BB_GRECORD_PTR(ident, ptr): BB_RECORD_PTR into the global recorder. */
#define BB_GRECORD_PTR(ident, ptr) BB_RECORD_PTR(bb_global(), ident, ptr)

/* Build the global recorder now (done at load when BACKBEAT_ENABLE, BACKBEAT_DUMP_ON_CRASH or
 * BACKBEAT_SIGNAL is set, else by its first use). Returns BB_OK, or the status that prevented
 * building it (the same every later call). */
BB_API bb_status bb_global_init(void);

/* Arm / disarm capture (BACKBEAT_ENABLE arms it at build time). */
BB_API void bb_global_enable(void);
BB_API void bb_global_disable(void);
BB_API bool bb_global_enabled(void);

/* Ask the dumper thread for a dump and return at once. Async-signal-safe once the global
 * recorder exists; before that it builds it first (not signal-safe). Coalesces with pending and
 * throttled triggers. While no dumper thread runs (capture off and no BACKBEAT_SIGNAL), the
 * trigger waits for bb_global_enable() or the exit. */
BB_API void bb_global_trigger(void);

/* Write a dump now on the calling thread (not throttled; counts against BACKBEAT_MAX_DUMPS).
 * On success the file name is copied to path_out[cap] (when given). Returns BB_OK, BB_ERR_FULL
 * when keep-oldest reached the cap, or the error (also reported once on stderr). */
BB_API bb_status bb_global_dump(char *path_out, size_t cap, bb_error *err);

/* Give the calling thread an alternate signal stack (if it has none), so a stack overflow on
 * this thread still produces a crash dump. With BACKBEAT_DUMP_ON_CRASH every thread gets one at
 * its first use of the global recorder (freed when it exits), the main thread at load; call
 * this only for a thread that must be covered before it records. Returns BB_OK or
 * BB_ERR_NOMEM. */
BB_API bb_status bb_global_thread_init(void);

#ifdef __cplusplus
}
#endif

#endif /* BACKBEAT_GLOBAL_H */
