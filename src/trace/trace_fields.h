/* trace/trace_fields.h — a record's fields as the trace's JSON object (trace/trace.c), by a
 * plan made once per event: the fields that are not padding, each with its key pre-rendered
 * and, for integers, booleans, short enums (labels pre-rendered) and interned strings, decoded
 * and written without the generic bb_decode_field. The bytes are exactly em_obuf_json_field's.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_TRACE_FIELDS_H
#define BB_CONVERT_TRACE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/reader.h"
#include "emit/obuf.h"

/* One written field: its key ('"name":', after a ',' but for the first) and how to render it. */
/* Pre-rendered JSON text. */
typedef struct tr_text {
    char *p;
    size_t n;
} tr_text;

typedef struct tr_field {
    char *key;
    size_t key_len;
    const bb_rfield *f;
    tr_text *labels; /* TF_ENUM: each label as a JSON string, in f->labels' order */
    uint64_t sentinel;
    uint16_t fi, offset;
    uint8_t kind, width; /* kind: TF_UINT ... TF_OTHER (trace_fields.c) */
    bool has_sentinel;
} tr_field;

typedef struct tr_plan {
    tr_field *v;
    size_t n;
} tr_plan;

/* The plan of schema s. False if out of memory (the plan is then empty and freeable). */
bool tr_plan_make(tr_plan *p, const bb_rschema *s);
void tr_plan_free(tr_plan *p);
/* '{' and "key:value" of each planned field, ',' between, without the closing brace. Returns
 * the number of fields written. */
size_t tr_write_open(em_obuf *b, const tr_plan *p, const bb_rschema *s, const uint8_t *fields,
                     const bb_rinstance *inst);

#endif /* BB_CONVERT_TRACE_FIELDS_H */
