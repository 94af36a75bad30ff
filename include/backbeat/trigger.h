/* backbeat/trigger.h — condition triggers: dump a window around a slow span, a hung span or a
 * bad value, caught by the process itself.
 *
 *   bb_error err;
 *   if (bb_recorder_trigger_add(rec, "span my_app::Request > 50ms; my_app::Reply status == error",
 *                               &err) != BB_OK)
 *       fprintf(stderr, "%s\n", err.message);
 *
 * Rules (the same grammar as BACKBEAT_TRIGGER and `backbeat watch --when`), separated by ';':
 *   span NS::Name > DURATION   a span whose enter event is NS::Name (enter and exit matched by
 *                              span id; the exit is an exit event of the same name or of the
 *                              enter's namespace) that lasted longer than DURATION, or that is
 *                              still open DURATION after its enter (caught while it hangs). A
 *                              span fires a rule at most once. DURATION: 250us, 50ms, 2s.
 *   NS::Name                   any record of that event.
 *   NS::Name FIELD OP VALUE    OP: == != < <= > >=; VALUE an integer, a float, an enum label,
 *                              true/false, or a "quoted string" for an interned field.
 *   log OP LEVEL               a log line (BB_LOG, BB_GLOG: backbeat/log.h) whose level compares
 *                              so: `log >= error`; LEVEL trace, debug, info, warn, error or
 *                              fatal (any case). The lines before it are in the dump.
 * Names may use '*' as `backbeat convert --event` does (my_app::*).
 *
 * When a rule fires, the recorder records a backbeat::Trigger event (the rule, the matching
 * record's event, timestamp, shard and span id, the after-window) on the firing thread, waits
 * the after-window on a background thread, then calls the firing callback (or writes a dump
 * into the options' directory). Firings while one is pending or within the throttle window are
 * counted, not dumped. Recording costs: an event no rule names pays one load and a branch; a
 * record of a named event is evaluated on the writer's thread (no lock, no allocation; a
 * semaphore post when a rule fires). Rules hold for the recorder's life.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_TRIGGER_H
#define BACKBEAT_TRIGGER_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "recorder.h"
#include "detail/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What fired: valid during the callback only. */
typedef struct bb_trigger_firing {
    const char *rule;     /* the rule as written */
    const char *event;    /* the matching record's event */
    uint64_t ts;          /* the matching record's timestamp (a hung span: its enter's) */
    uint64_t span_id;     /* 0 when the event has no span id */
    uint64_t duration_ns; /* span rules: how long the span lasted (or had been open) */
    bool hung;            /* a span rule caught a span still open */
    uint32_t shard;       /* the matching record's shard (a span rule: its enter's) */
    uint64_t after_ns;    /* the after-window waited before the callback */
    uint64_t suppressed;  /* firings counted, not dumped, since the previous callback */
} bb_trigger_firing;

/* Called on the trigger thread once the after-window has passed. */
typedef void (*bb_trigger_fn)(bb_recorder *rec, const bb_trigger_firing *firing, void *ctx);

typedef struct bb_trigger_options {
    bb_trigger_fn fn; /* NULL: write a dump into `dump_dir` */
    void *ctx;
    const char *dump_dir; /* with fn NULL: dumps there, trigger.<instance>.<n>.bb (copied) */
    uint64_t after_ns;    /* keep recording this long after the firing (default 0) */
    uint64_t throttle_ns; /* firings closer than this to the previous dump are counted only
                                 (0: 1 s) */
} bb_trigger_options;

/* Set how `rec`'s firings are handled (before or after adding rules). BB_OK or BB_ERR_INVALID. */
BB_API bb_status bb_recorder_trigger_options(bb_recorder *rec, const bb_trigger_options *opts,
                                             bb_error *err);

/* Arm the rules of `text` on `rec`. A rule naming an event not (yet) registered is accepted (it
 * is armed when the event registers); if it still names none once `rec` has taken its first
 * record (within about 50 ms of it), one warning says so on stderr. Returns BB_OK, or
 * BB_ERR_INVALID with a one-line message naming the rule and the column of the mistake (a
 * malformed rule, an unknown field of a registered event, a VALUE of the wrong type; no rule
 * of `text` is armed then), or BB_ERR_NOMEM / BB_ERR_FULL (more than 16 rules). */
BB_API bb_status bb_recorder_trigger_add(bb_recorder *rec, const char *text, bb_error *err);

/* Counters: firings that were handed to the callback, and those counted only. */
typedef struct bb_trigger_stats {
    uint64_t fired;
    uint64_t suppressed;
    uint64_t spans_untracked; /* span enters not tracked: the open-span table was full */
} bb_trigger_stats;
BB_API void bb_recorder_trigger_stats(bb_recorder *rec, bb_trigger_stats *out);

/* Stop the trigger thread of `rec` and disarm its rules (bb_recorder_free does it too; call it
 * first when writers may still run). */
BB_API void bb_recorder_trigger_clear(bb_recorder *rec);

#ifdef __cplusplus
}
#endif

#endif /* BACKBEAT_TRIGGER_H */
