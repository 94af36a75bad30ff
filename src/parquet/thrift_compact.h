/* thrift_compact.h — a writer of the Thrift compact protocol, just enough for Parquet's
 * metadata structures (FileMetaData, PageHeader and what they contain).
 *
 * Usage: pq_tc_struct_begin(w) for the outermost struct, then fields; a nested struct field is
 * pq_tc_field_struct(w, id) ... pq_tc_struct_end(w); a list field is pq_tc_field_list(w, id, elem, n)
 * followed by exactly n elements (pq_tc_elem_* or, for structs, pq_tc_elem_struct ... pq_tc_struct_end).
 * Field ids within one struct must be written in increasing order (deltas of 1..15 use the
 * short header; anything else the long form). Output goes to a pq_buf (sticky failure).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_THRIFT_COMPACT_H
#define BB_THRIFT_COMPACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet/buf.h"

/* Compact-protocol type codes. */
enum {
    TC_BOOL_TRUE = 1,
    TC_BOOL_FALSE = 2,
    TC_BYTE = 3,
    TC_I16 = 4,
    TC_I32 = 5,
    TC_I64 = 6,
    TC_DOUBLE = 7,
    TC_BINARY = 8,
    TC_LIST = 9,
    TC_SET = 10,
    TC_MAP = 11,
    TC_STRUCT = 12
};

#define TC_MAX_DEPTH 16

typedef struct pq_tc_writer {
    pq_buf *out;
    int depth;
    int16_t last[TC_MAX_DEPTH]; /* last field id written, per open struct */
    bool overflow;              /* nesting deeper than TC_MAX_DEPTH (a programming error) */
} pq_tc_writer;

/* Start writing into `out` (appends). */
void pq_tc_init(pq_tc_writer *w, pq_buf *out);

/* Open the outermost struct (or a struct element of a list: use pq_tc_elem_struct). */
void pq_tc_struct_begin(pq_tc_writer *w);
/* Close the innermost open struct (writes the stop byte). */
void pq_tc_struct_end(pq_tc_writer *w);

void pq_tc_field_bool(pq_tc_writer *w, int16_t id, bool v);
void pq_tc_field_i8(pq_tc_writer *w, int16_t id, int8_t v);
void pq_tc_field_i32(pq_tc_writer *w, int16_t id, int32_t v);
void pq_tc_field_i64(pq_tc_writer *w, int16_t id, int64_t v);
void pq_tc_field_binary(pq_tc_writer *w, int16_t id, const void *p, size_t n);
void pq_tc_field_string(pq_tc_writer *w, int16_t id, const char *s); /* NUL-terminated */
/* A struct-valued field: opens it; close with pq_tc_struct_end. */
void pq_tc_field_struct(pq_tc_writer *w, int16_t id);
/* A list-valued field of `n` elements of compact type `elem`. */
void pq_tc_field_list(pq_tc_writer *w, int16_t id, uint8_t elem, size_t n);

/* List elements. */
void pq_tc_elem_i32(pq_tc_writer *w, int32_t v);
void pq_tc_elem_binary(pq_tc_writer *w, const void *p, size_t n);
void pq_tc_elem_struct(pq_tc_writer *w); /* opens it; close with pq_tc_struct_end */

#endif /* BB_THRIFT_COMPACT_H */
