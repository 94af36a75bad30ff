/* watch_rules.h — `backbeat watch`'s rules over the records it follows: each rule bound to the
 * schemas of a ring file (trigger/rule.h over bb_rschema), spans opened and closed by span id,
 * open spans past their DURATION. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_WATCH_RULES_H
#define BACKBEAT_CLI_WATCH_RULES_H

#include <stdbool.h>
#include <stdint.h>

#include "backbeat/reader.h"
#include "backbeat/ring_reader.h"
#include "trigger/rule.h"

/* What fired. */
typedef struct cli_firing {
    const tg_rule *rule;
    char event[TG_NAME_MAX];
    uint64_t ts, span_id, duration_ns;
    uint32_t shard;
    bool hung;
} cli_firing;

typedef struct cli_watch_rules cli_watch_rules;

/* The rules (kept by pointer). NULL when out of memory. */
cli_watch_rules *cli_watch_rules_new(const tg_rule *rules, size_t n);
void cli_watch_rules_free(cli_watch_rules *w);
/* Whether some rule looks at records of schema `s` (cli_watch_record ignores the others, so a
 * caller need not hold them). False when out of memory (the record cannot be looked at). */
bool cli_watch_wants(cli_watch_rules *w, const bb_rschema *s);
/* A record as the rules look at it. */
typedef struct cli_watch_rec {
    uint64_t ts;
    const bb_rschema *schema;
    const uint8_t *fields; /* schema->record_size bytes */
    uint32_t shard;
} cli_watch_rec;

/* Look at record `r` of the ring file `ring` (its interned strings): true and *out when a rule
 * fired. */
bool cli_watch_record(cli_watch_rules *w, const cli_watch_rec *r, const bb_ring *ring,
                      cli_firing *out);
/* An open span older than its rule's DURATION at `now_ns` (Unix ns): true and *out (the span
 * is forgotten: it fires once). */
bool cli_watch_hung(cli_watch_rules *w, uint64_t now_ns, cli_firing *out);

#endif /* BACKBEAT_CLI_WATCH_RULES_H */
