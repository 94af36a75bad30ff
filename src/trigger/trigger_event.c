/* trigger_event.c — the built-in backbeat::Trigger event's schema: what a triggered dump says
 * about itself (the rule, the matching record, the after-window). One home for the recorder
 * that records it at a firing (catch/catch_event.c) and for `backbeat watch`, which adds it to
 * the dumps it writes from ring files (cli/cmd_watch.c). */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
#include "trigger/trigger_event.h"

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
     .description =
         "The matching record's shard (a span rule: its enter's): its thread in the trace.",
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

bb_event_desc tg_trigger_desc = {
    .abi = BB__ABI_LAYOUT,
    .name = "backbeat::Trigger",
    .description = "A trigger rule fired: this dump holds the window around the matching record.",
    .fields = fields,
    .field_count = sizeof fields / sizeof fields[0],
    .record_size = sizeof(tg_trigger_rec),
};

_Static_assert(sizeof(tg_trigger_rec) == 48, "backbeat::Trigger is 48 field bytes");
