/* cli/tail_json.h — one record of `backbeat tail --format jsonl` as its JSON line, from what a
 * record-level follow delivers (the event's schema, its instance, timestamp, shard and field
 * bytes): a rendering plan per event, instance and shard (the constant members and each field's
 * pre-escaped "name": key, its kind, offset and width), built once and kept until
 * cli_tail_json_reset; integers are written straight into the output buffer. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CLI_TAIL_JSON_H
#define BB_CLI_TAIL_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "backbeat/reader.h"
#include "emit/obuf.h"

typedef struct cli_tail_json cli_tail_json;

/* A renderer with no plan yet; NULL when out of memory. */
cli_tail_json *cli_tail_json_new(void);
void cli_tail_json_free(cli_tail_json *j);

/* Forget every plan: the schemas and instances they were built from are about to go. */
void cli_tail_json_reset(cli_tail_json *j);

/* The JSON line of one record (newline included) appended to b: ts_nanos, event, [phase,]
 * event_id, instance_id, pid, shard, then the event's fields (a log line's level, file, line,
 * function and message first). False when out of memory (b->failed is then set). */
bool cli_tail_json_put(cli_tail_json *j, em_obuf *b, const bb_rschema *s, const bb_rinstance *inst,
                       uint64_t ts, uint32_t shard, const uint8_t *fields);

#endif /* BB_CLI_TAIL_JSON_H */
