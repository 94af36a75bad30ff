/* catch_event.c — the built-in backbeat::Trigger event: what a triggered dump says about itself
 * (the rule, the matching record, the after-window), recorded into the rings at each firing so
 * that every reader of format v1 decodes it as an ordinary event. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <string.h>

#include "backbeat/event.h"
#include "backbeat/recorder.h"
#include "catch/catch_internal.h"

typedef struct tc_trigger_rec {
    uint64_t ts, span_id, after_ns, duration_ns;
    uint32_t rule, event, shard;
    uint8_t hung, pad[3];
} tc_trigger_rec;

static const bb_field_desc fields[] = {
    {.name = "ts",
     .description = "The matching record's timestamp (a hung span: its enter's).",
     .unit = "ns",
     .offset = 0,
     .width = 8,
     .type = BB_TYPE_U64},
    {.name = "span_id",
     .description = "The matching record's span id (0: none).",
     .offset = 8,
     .width = 8,
     .type = BB_TYPE_U64},
    {.name = "after_ns",
     .description = "How long recording went on before the dump.",
     .unit = "ns",
     .offset = 16,
     .width = 8,
     .type = BB_TYPE_U64},
    {.name = "duration_ns",
     .description = "Span rules: how long the span lasted (or was open).",
     .unit = "ns",
     .offset = 24,
     .width = 8,
     .type = BB_TYPE_U64},
    {.name = "rule",
     .description = "The rule that fired.",
     .offset = 32,
     .width = 4,
     .type = BB_TYPE_INTERNED,
     .type_arg = 1},
    {.name = "event",
     .description = "The matching record's event.",
     .offset = 36,
     .width = 4,
     .type = BB_TYPE_INTERNED,
     .type_arg = 1},
    {.name = "shard",
     .description = "The shard the firing thread recorded into.",
     .offset = 40,
     .width = 4,
     .type = BB_TYPE_U32},
    {.name = "hung",
     .description = "A span caught while still open.",
     .offset = 44,
     .width = 1,
     .type = BB_TYPE_BOOL},
    {.name = "_pad", .offset = 45, .width = 3, .type = BB_TYPE_BYTES},
};

static bb_event_desc trigger_desc = {
    .abi = BB__ABI_LAYOUT,
    .name = "backbeat::Trigger",
    .description = "A trigger rule fired: this dump holds the window around the matching record.",
    .fields = fields,
    .field_count = sizeof fields / sizeof fields[0],
    .record_size = sizeof(tc_trigger_rec),
};

_Static_assert(sizeof(tc_trigger_rec) == 48, "backbeat::Trigger is 48 field bytes");

static void do_register(void) { bb_registry_add(&trigger_desc); }

/* Contract: see catch_internal.h. */
void tc_event_register(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, do_register);
}

/* Contract: see catch_internal.h. */
bool tc_is_own_event(const bb_event_desc *d) { return !strcmp(d->name, trigger_desc.name); }

/* Contract: see catch_internal.h. */
void tc_event_record(tc_engine *e, const bb_trigger_firing *f, uint32_t rule_id, uint32_t name_id) {
    tc_trigger_rec r = {.ts = f->ts,
                        .span_id = f->span_id,
                        .after_ns = f->after_ns,
                        .duration_ns = f->duration_ns,
                        .rule = rule_id,
                        .event = name_id,
                        .shard = f->shard,
                        .hung = f->hung};
    (void)bb_record_event(e->rec, &trigger_desc, &r, sizeof r);
}
