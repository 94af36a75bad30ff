/* trace/trace_fields.c — a record's fields as the trace's JSON object, by a per-event plan
 * (see trace/trace_fields.h). */
/* SPDX-License-Identifier: MIT */
#include "trace/trace_fields.h"

#include <stdlib.h>
#include <string.h>

#include "common/le_bytes.h"

enum { TF_UINT, TF_INT, TF_BOOL, TF_ENUM, TF_INTERNED, TF_OTHER };

/* Enums of at most this many labels are searched linearly, as the reader does (its
 * LABEL_SCAN, src/read/reader_internal.h); longer ones go through bb_decode_field. */
#define TF_ENUM_SCAN 16

/* How field f is rendered: the fields of width 1, 2, 4 or 8 of these kinds directly, the rest
 * by em_obuf_json_field. */
static uint8_t kind_of(const bb_rfield *f) {
    if (f->width != 1 && f->width != 2 && f->width != 4 && f->width != 8) return TF_OTHER;
    if (f->type <= BB_TYPE_U64) return TF_UINT; /* BB_TYPE_U8 is 0 */
    if (f->type >= BB_TYPE_I8 && f->type <= BB_TYPE_I64) return TF_INT;
    if (f->type == BB_TYPE_BOOL) return TF_BOOL;
    if (f->type == BB_TYPE_ENUM && f->label_count <= TF_ENUM_SCAN) return TF_ENUM;
    if (f->type == BB_TYPE_INTERNED) return TF_INTERNED;
    return TF_OTHER;
}

/* Each of f's labels as a JSON string. */
static bool make_labels(tr_field *t, const bb_rfield *f) {
    t->labels = calloc(f->label_count ? f->label_count : 1, sizeof *t->labels);
    if (!t->labels) return false;
    for (size_t k = 0; k < f->label_count; k++) {
        em_obuf cb;
        if (!em_obuf_init(&cb, -1, 6 * f->labels[k].label.len + 8)) return false;
        em_obuf_json_str(&cb, f->labels[k].label.ptr, f->labels[k].label.len);
        t->labels[k] = (tr_text){cb.data, cb.len};
        if (cb.failed) return false;
    }
    return true;
}

/* '"name":' (after ',' when `comma`) as a heap string, escaped as em_obuf_json_str does. */
static bool make_key(tr_field *t, const bb_strview *name, bool comma) {
    em_obuf cb;
    if (!em_obuf_init(&cb, -1, 6 * name->len + 8)) return false;
    if (comma) em_obuf_putc(&cb, ',');
    em_obuf_json_str(&cb, name->ptr, name->len);
    em_obuf_putc(&cb, ':');
    if (cb.failed) {
        free(cb.data);
        return false;
    }
    t->key = cb.data;
    t->key_len = cb.len;
    return true;
}

bool tr_plan_make(tr_plan *p, const bb_rschema *s) {
    p->n = 0;
    p->v = calloc(s->field_count ? s->field_count : 1, sizeof *p->v);
    if (!p->v) return false;
    for (size_t i = 0; i < s->field_count; i++) {
        const bb_rfield *f = &s->fields[i];
        if (bb_rfield_is_padding(f)) continue;
        tr_field *t = &p->v[p->n];
        if (!make_key(t, &f->name, p->n > 0)) return false;
        p->n++;
        t->f = f;
        t->fi = (uint16_t)i;
        t->offset = f->offset;
        t->width = (uint8_t)f->width;
        t->kind = kind_of(f);
        t->has_sentinel = f->has_sentinel;
        t->sentinel = f->sentinel;
        if (t->kind == TF_ENUM && !make_labels(t, f)) return false;
    }
    return true;
}

void tr_plan_free(tr_plan *p) {
    for (size_t i = 0; p->v && i < p->n; i++) {
        free(p->v[i].key);
        for (size_t k = 0; p->v[i].labels && k < p->v[i].f->label_count; k++)
            free(p->v[i].labels[k].p);
        free(p->v[i].labels);
    }
    free(p->v);
    p->v = NULL;
    p->n = 0;
}

/* The little-endian integer of width 1, 2, 4 or 8 at p, zero-extended. */
static inline uint64_t raw_of(const uint8_t *p, unsigned w) {
    switch (w) {
    case 1: return p[0];
    case 2: return bb__le_get_u16(p);
    case 4: return bb__le_get_u32(p);
    default: return bb__le_get_u64(p);
    }
}

/* A planned integer field's value (`raw`, not its sentinel). */
static inline void write_int(em_obuf *b, const tr_field *t, uint64_t raw) {
    if (t->kind == TF_UINT) {
        em_obuf_json_u64(b, raw);
    } else {
        unsigned bits = 8u * t->width;
        if (bits < 64 && (raw >> (bits - 1)) & 1) raw |= ~(uint64_t)0 << bits;
        em_obuf_json_i64(b, (int64_t)raw);
    }
}

/* "<value>" of an enum without a label or an interned id without a string ("#<id>"). */
static void write_quoted(em_obuf *b, const char *pfx, uint64_t v) {
    em_obuf_puts(b, pfx);
    em_obuf_u64(b, v);
    em_obuf_putc(b, '"');
}

static void write_enum(em_obuf *b, const tr_field *t, uint64_t raw) {
    const bb_rfield *f = t->f;
    for (size_t k = 0; k < f->label_count; k++)
        if (f->labels[k].value == raw) {
            em_obuf_write(b, t->labels[k].p, t->labels[k].n);
            return;
        }
    write_quoted(b, "\"", raw);
}

/* The string of interned id `id` in inst's table (sorted by id), or "#<id>". */
static void write_interned(em_obuf *b, uint32_t id, const bb_rinstance *inst) {
    size_t lo = 0, hi = inst ? inst->intern_count : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (inst->intern[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    if (inst && lo < inst->intern_count && inst->intern[lo].id == id)
        em_obuf_json_str(b, inst->intern[lo].bytes.ptr, inst->intern[lo].bytes.len);
    else write_quoted(b, "\"#", id);
}

/* A planned field's value, as em_obuf_json_field writes it from bb_decode_field. */
static inline void write_value(em_obuf *b, const tr_field *t, const bb_rschema *s,
                               const uint8_t *fields, const bb_rinstance *inst) {
    if (t->kind == TF_OTHER) {
        em_obuf_json_field(b, s, t->fi, fields, inst);
        return;
    }
    uint64_t raw = raw_of(fields + t->offset, t->width);
    if (t->has_sentinel && raw == t->sentinel) {
        em_obuf_write(b, "null", 4);
        return;
    }
    switch (t->kind) {
    case TF_BOOL: em_obuf_puts(b, raw ? "true" : "false"); break;
    case TF_ENUM: write_enum(b, t, raw); break;
    case TF_INTERNED: write_interned(b, (uint32_t)raw, inst); break;
    default: write_int(b, t, raw); break;
    }
}

size_t tr_write_open(em_obuf *b, const tr_plan *p, const bb_rschema *s, const uint8_t *fields,
                     const bb_rinstance *inst) {
    em_obuf_putc(b, '{');
    for (size_t j = 0; j < p->n; j++) {
        em_obuf_write(b, p->v[j].key, p->v[j].key_len);
        write_value(b, &p->v[j], s, fields, inst);
    }
    return p->n;
}
