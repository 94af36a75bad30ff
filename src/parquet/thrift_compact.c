/* thrift_compact.c — Thrift compact protocol encoder (see thrift_compact.h). */
/* SPDX-License-Identifier: MIT */
#include "parquet/thrift_compact.h"

#include <string.h>

/* Zigzag encoding of a signed integer. */
static uint64_t zigzag64(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }

void pq_tc_init(pq_tc_writer *w, pq_buf *out) {
    memset(w, 0, sizeof *w);
    w->out = out;
}

/* Open a struct context (field ids restart from 0). */
static void push(pq_tc_writer *w) {
    if (w->depth >= TC_MAX_DEPTH) {
        w->overflow = true;
        w->out->failed = true;
        return;
    }
    w->last[w->depth++] = 0;
}

void pq_tc_struct_begin(pq_tc_writer *w) { push(w); }

void pq_tc_struct_end(pq_tc_writer *w) {
    pq_buf_byte(w->out, 0);
    if (w->depth > 0) w->depth--;
}

/* Field header: short form (delta << 4 | type) when the id grows by 1..15. */
static void header(pq_tc_writer *w, int16_t id, uint8_t type) {
    int16_t *last = w->depth > 0 ? &w->last[w->depth - 1] : NULL;
    int delta = last ? id - *last : 0;
    if (delta > 0 && delta <= 15) {
        pq_buf_byte(w->out, (uint8_t)((delta << 4) | type));
    } else {
        pq_buf_byte(w->out, type);
        pq_buf_uvarint(w->out, zigzag64(id));
    }
    if (last) *last = id;
}

void pq_tc_field_bool(pq_tc_writer *w, int16_t id, bool v) {
    header(w, id, v ? TC_BOOL_TRUE : TC_BOOL_FALSE);
}

void pq_tc_field_i8(pq_tc_writer *w, int16_t id, int8_t v) {
    header(w, id, TC_BYTE);
    pq_buf_byte(w->out, (uint8_t)v);
}

void pq_tc_field_i32(pq_tc_writer *w, int16_t id, int32_t v) {
    header(w, id, TC_I32);
    pq_buf_uvarint(w->out, zigzag64(v));
}

void pq_tc_field_i64(pq_tc_writer *w, int16_t id, int64_t v) {
    header(w, id, TC_I64);
    pq_buf_uvarint(w->out, zigzag64(v));
}

void pq_tc_field_binary(pq_tc_writer *w, int16_t id, const void *p, size_t n) {
    header(w, id, TC_BINARY);
    pq_buf_uvarint(w->out, n);
    pq_buf_put(w->out, p, n);
}

void pq_tc_field_string(pq_tc_writer *w, int16_t id, const char *s) {
    pq_tc_field_binary(w, id, s, strlen(s));
}

void pq_tc_field_struct(pq_tc_writer *w, int16_t id) {
    header(w, id, TC_STRUCT);
    push(w);
}

void pq_tc_field_list(pq_tc_writer *w, int16_t id, uint8_t elem, size_t n) {
    header(w, id, TC_LIST);
    if (n < 15) {
        pq_buf_byte(w->out, (uint8_t)((n << 4) | elem));
    } else {
        pq_buf_byte(w->out, (uint8_t)(0xF0 | elem));
        pq_buf_uvarint(w->out, n);
    }
}

void pq_tc_elem_i32(pq_tc_writer *w, int32_t v) { pq_buf_uvarint(w->out, zigzag64(v)); }

void pq_tc_elem_binary(pq_tc_writer *w, const void *p, size_t n) {
    pq_buf_uvarint(w->out, n);
    pq_buf_put(w->out, p, n);
}

void pq_tc_elem_struct(pq_tc_writer *w) { push(w); }
