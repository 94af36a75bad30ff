/* catch_event.c — the built-in backbeat::Trigger event: what a triggered dump says about itself
 * (the rule, the matching record, the after-window), recorded into the rings at each firing so
 * that every reader of format v1 decodes it as an ordinary event. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <string.h>

#include "backbeat/event.h"
#include "backbeat/recorder.h"
#include "catch/catch_internal.h"
#include "trigger/trigger_event.h"

static void do_register(void) { bb_registry_add(&tg_trigger_desc); }

/* Contract: see catch_internal.h. */
void tc_event_register(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, do_register);
}

/* Contract: see catch_internal.h. */
bool tc_is_own_event(const bb_event_desc *d) { return !strcmp(d->name, tg_trigger_desc.name); }

/* Contract: see catch_internal.h. */
void tc_event_record(tc_engine *e, const bb_trigger_firing *f, uint32_t rule_id, uint32_t name_id) {
    tg_trigger_rec r = {.ts = f->ts,
                        .span_id = f->span_id,
                        .after_ns = f->after_ns,
                        .duration_ns = f->duration_ns,
                        .rule = rule_id,
                        .event = name_id,
                        .shard = f->shard,
                        .hung = f->hung};
    (void)bb_record_event(e->rec, &tg_trigger_desc, &r, sizeof r);
}
