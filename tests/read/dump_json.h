/* dump_json.h — render what the reader and the model recover as JSON in the shape of the golden
 * files (compat/README.md "expected.json shape"), so tests can compare structurally.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_TEST_DUMP_JSON_H
#define BB_TEST_DUMP_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "backbeat/model.h"
#include "backbeat/reader.h"

/* A growing text buffer (aborts the test on allocation failure). */
typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

void sb_free(sbuf *b);
void sb_putn(sbuf *b, const char *s, size_t n);
void sb_puts(sbuf *b, const char *s);
/* A JSON string of raw bytes, lossily decoded (U+FFFD per maximal invalid subpart). */
void sb_jstr(sbuf *b, const char *s, size_t n);
/* Integers per the golden rule: magnitude above 2^53 is a decimal string. */
void sb_ju64(sbuf *b, uint64_t v);
void sb_ji64(sbuf *b, int64_t v);
void sb_hex16(sbuf *b, uint64_t id); /* "0123456789abcdef" */

/* The value of one field, as the golden files render it. */
void sb_value(sbuf *b, const bb_rschema *ev, size_t fi, const uint8_t *fields,
              const bb_rinstance *inst);
/* {name: value, ...} for a record. */
void sb_fields(sbuf *b, const bb_rschema *ev, const uint8_t *fields, const bb_rinstance *inst);

/* The whole NAME.expected.json document for one dump, from the reader alone (records collected
 * with bb_shard_walk and sorted by the test). */
void dump_to_json(sbuf *b, const bb_dump *d);

/* The multi_*.expected.json document for a model over inputs named `names`. */
void model_to_json(sbuf *b, const bb_model *m, const char *const *names, size_t n);

#endif /* BB_TEST_DUMP_JSON_H */
