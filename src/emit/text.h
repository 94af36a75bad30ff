/* emit/text.h — text rendering used by the Parquet writer: lossy UTF-8 repair of interned
 * strings, hex and decimal rendering of field values, and quoting for the JSON and SQL the
 * footer and the views carry. Everything appends to a pq_buf.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_TEXT_H
#define BB_CONVERT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet/buf.h"

/* Append (p, n) with every maximal invalid subpart replaced by U+FFFD (Unicode's recommended
 * practice, as the reference reader does: ff fe 78 → U+FFFD U+FFFD "x"); the reader's
 * bb_utf8_lossy_each does the decoding. */
void em_utf8_lossy(pq_buf *b, const uint8_t *p, size_t n);

/* Append lower-case hex of (p, n). */
void em_hex(pq_buf *b, const uint8_t *p, size_t n);
/* Append the decimal rendering of v. */
void em_dec_u64(pq_buf *b, uint64_t v);
void em_dec_i64(pq_buf *b, int64_t v);
/* Append v as 16 lower-case hex digits. */
void em_hex16(pq_buf *b, uint64_t v);

/* Append (p, n) as a JSON string literal, quotes included (emit/json.h's em_json_escape_each,
 * so invalid UTF-8 is repaired as em_utf8_lossy does). */
void em_json_str(pq_buf *b, const char *p, size_t n);
/* Append a NUL-terminated string with em_json_str. */
void em_json_cstr(pq_buf *b, const char *s);
/* Append a u64 the way the golden JSON does: a number up to 2^53, a decimal string above
 * (BB_JSON_SAFE_MAX). */
void em_json_u64(pq_buf *b, uint64_t v);

/* Append a SQL string literal ('...' with ' doubled) / a quoted identifier ("..." with "
 * doubled). */
void em_sql_str(pq_buf *b, const char *p, size_t n);
void em_sql_ident(pq_buf *b, const char *p, size_t n);

/* Append a NUL-terminated string verbatim. */
void em_cstr(pq_buf *b, const char *s);

#endif /* BB_CONVERT_TEXT_H */
