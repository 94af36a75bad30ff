/* global_trigger.c — BACKBEAT_TRIGGER on the global recorder: its rules armed one at a time (a
 * bad one is reported once, naming the variable, the rule and the column, and left out), each
 * firing written as one dump through the dumper (naming, BACKBEAT_MAX_DUMPS and the limit
 * policy apply; BACKBEAT_THROTTLE_MS spaces firings) and announced on one line of stderr. */
/* SPDX-License-Identifier: MIT */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "backbeat/trigger.h"
#include "global/global_internal.h"

static void on_firing(bb_recorder *rec, const bb_trigger_firing *f, void *ctx) {
    (void)rec;
    bb__g_dumper *d = ctx;
    char name[PATH_MAX], msg[PATH_MAX + 512];
    bb_error err;
    bb_status st = bb__g_dumper_dump_now(d, name, sizeof name, &err);
    if (st != BB_OK) return; /* reported by the dumper (once for the cap) */
    snprintf(msg, sizeof msg,
             "trigger '%s' fired on %s (ts %llu, span %llx%s%s), %llu more counted: dump %s",
             f->rule, f->event, (unsigned long long)f->ts, (unsigned long long)f->span_id,
             f->hung ? ", still open" : "", f->after_ns ? ", after-window waited" : "",
             (unsigned long long)f->suppressed, name);
    bb__g_stderr_line(msg);
}

/* Contract: see global_internal.h. bb_recorder_trigger_clear stops the trigger thread, which
 * cuts the after-window of a pending firing short and delivers it (on_firing: a dump). */
void bb__g_trigger_flush(bb_recorder *rec) { bb_recorder_trigger_clear(rec); }

/* `text` with everything but [a, b) blanked: one rule, its columns those of the variable. */
static void one_rule(char *out, const char *text, size_t a, size_t b) {
    size_t n = strlen(text);
    memset(out, ' ', n);
    memcpy(out + a, text + a, b - a);
    out[n] = '\0';
}

/* Contract: see global_internal.h. */
void bb__g_trigger_arm(bb_recorder *rec, bb__g_dumper *d, const bb__g_config *cfg) {
    if (!cfg->trigger[0] || !d) return;
    bb_trigger_options o = {.fn = on_firing,
                            .ctx = d,
                            .after_ns = cfg->trigger_after_ns,
                            .throttle_ns = cfg->throttle_ms ? cfg->throttle_ms * 1000000u : 1};
    bb_error err;
    if (bb_recorder_trigger_options(rec, &o, &err) != BB_OK) return;
    static char rule[sizeof cfg->trigger];
    const char *t = cfg->trigger;
    for (size_t a = 0; t[a];) {
        size_t b = a + strcspn(t + a, ";");
        one_rule(rule, t, a, b);
        if (bb_recorder_trigger_add(rec, rule, &err) != BB_OK) {
            char msg[512];
            snprintf(msg, sizeof msg, "BACKBEAT_TRIGGER: %s; the program runs on without it",
                     err.message);
            bb__g_stderr_line(msg);
        }
        a = t[b] ? b + 1 : b;
    }
}
