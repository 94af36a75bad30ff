/* trigger_event.h — the built-in backbeat::Trigger event: its field bytes and its schema, the
 * one descriptor both the in-process recorder (catch/) and `backbeat watch` (cli/) use, so the
 * two kinds of triggered dump carry the same event (same id) that every format v1 reader
 * decodes as an ordinary record. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_TRIGGER_TRIGGER_EVENT_H
#define BACKBEAT_TRIGGER_TRIGGER_EVENT_H

#include <stdint.h>

#include "backbeat/schema.h"

#define TG_TRIGGER_EVENT "backbeat::Trigger"

/* Its field bytes. `rule` and `event` are interned ids (dynamic strings). */
typedef struct tg_trigger_rec {
    uint64_t ts, span_id, after_ns, duration_ns;
    uint32_t rule, event, shard;
    uint8_t hung, pad[3];
} tg_trigger_rec;

/* Its schema (name TG_TRIGGER_EVENT); its id is cached in it once computed. */
extern bb_event_desc tg_trigger_desc;

/* Field indexes of the interned fields (for readers that add the strings themselves). */
enum { TG_TRIGGER_FIELD_RULE = 4, TG_TRIGGER_FIELD_EVENT = 5 };

#endif /* BACKBEAT_TRIGGER_TRIGGER_EVENT_H */
