/* table/semantics.h — the `backbeat.columns` footer document: what every column of the
 * table means, so the Parquet file is self-describing without the dump.
 *
 * A JSON object:
 *   { "version": 1,
 *     "columns": [ { "name", "path": [..], "type": "UINT64|INT64|BOOLEAN|STRING|STRUCT",
 *                    "nullable", "role", "description", "unit"?, "event"?, "event_ids"? } ],
 *     "events":  [ { "event" (display name = the group column and the view name), "name"
 *                    (qualified), "event_id" (16 hex), "phase" ("none|enter|exit"),
 *                    "description", "record_size", "column" (group name or null),
 *                    "fields": [ { "name", "path": [..] (where its values are),
 *                                  "type" (u8..interned), "repr"?, "dynamic"?, "column_type",
 *                                  "role", "promoted", "unit", "sentinel", "description",
 *                                  "labels": [ {"value", "label"} ] } ] } ] }
 * Integers above 2^53 are decimal strings (the golden JSON convention); absent strings are
 * null. Dense column roles: "row" (seq), "timestamp" (ts_nanos, unit "ns"), "event",
 * "event_id", "instance_id"; promoted columns carry their key/span role; groups "event".
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_SEMANTICS_H
#define BB_CONVERT_SEMANTICS_H

#include "table/layout.h"

/* The document for `lay` (built from `model`), malloc'ed and NUL-terminated; NULL on
 * allocation failure. */
char *tw_semantics_json(const tw_layout *lay);

#endif /* BB_CONVERT_SEMANTICS_H */
