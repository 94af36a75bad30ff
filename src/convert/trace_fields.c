/* convert/trace_fields.c — a record's fields as the trace's JSON object, by a per-event plan
 * (see convert/trace_fields.h). */
/* SPDX-License-Identifier: MIT */
#include "convert/trace_fields.h"

#include <stdlib.h>
#include <string.h>

#include "common/le_bytes.h"

enum { TF_UINT, TF_INT, TF_OTHER };

/* How field f is rendered: the integers of width 1, 2, 4 or 8 directly, the rest by
 * obuf_json_field. */
static uint8_t kind_of(const bb_rfield *f) {
    if (f->width != 1 && f->width != 2 && f->width != 4 && f->width != 8) return TF_OTHER;
    if (f->type <= BB_TYPE_U64) return TF_UINT; /* BB_TYPE_U8 is 0 */
    if (f->type >= BB_TYPE_I8 && f->type <= BB_TYPE_I64) return TF_INT;
    return TF_OTHER;
}

/* '"name":' (after ',' when `comma`) as a heap string, escaped as obuf_json_str does. */
static bool make_key(tf_field *t, const bb_strview *name, bool comma) {
    obuf cb;
    if (!obuf_init(&cb, -1, 6 * name->len + 8)) return false;
    if (comma) obuf_putc(&cb, ',');
    obuf_json_str(&cb, name->ptr, name->len);
    obuf_putc(&cb, ':');
    if (cb.failed) {
        free(cb.data);
        return false;
    }
    t->key = cb.data;
    t->key_len = cb.len;
    return true;
}

bool tf_plan_make(tf_plan *p, const bb_rschema *s) {
    p->n = 0;
    p->v = calloc(s->field_count ? s->field_count : 1, sizeof *p->v);
    if (!p->v) return false;
    for (size_t i = 0; i < s->field_count; i++) {
        const bb_rfield *f = &s->fields[i];
        if (bb_rfield_is_padding(f)) continue;
        tf_field *t = &p->v[p->n];
        if (!make_key(t, &f->name, p->n > 0)) return false;
        p->n++;
        t->fi = (uint16_t)i;
        t->offset = f->offset;
        t->width = (uint8_t)f->width;
        t->kind = kind_of(f);
        t->has_sentinel = f->has_sentinel;
        t->sentinel = f->sentinel;
    }
    return true;
}

void tf_plan_free(tf_plan *p) {
    for (size_t i = 0; p->v && i < p->n; i++) free(p->v[i].key);
    free(p->v);
    p->v = NULL;
    p->n = 0;
}

/* The little-endian integer of width 1, 2, 4 or 8 at p, zero-extended. */
static inline uint64_t raw_of(const uint8_t *p, unsigned w) {
    switch (w) {
    case 1: return p[0];
    case 2: return bb_le_get_u16(p);
    case 4: return bb_le_get_u32(p);
    default: return bb_le_get_u64(p);
    }
}

/* A planned integer field's value, as obuf_json_field writes it from bb_decode_field. */
static inline void write_int(obuf *b, const tf_field *t, const uint8_t *fields) {
    uint64_t raw = raw_of(fields + t->offset, t->width);
    if (t->has_sentinel && raw == t->sentinel) {
        obuf_write(b, "null", 4);
    } else if (t->kind == TF_UINT) {
        obuf_json_u64(b, raw);
    } else {
        unsigned bits = 8u * t->width;
        if (bits < 64 && (raw >> (bits - 1)) & 1) raw |= ~(uint64_t)0 << bits;
        obuf_json_i64(b, (int64_t)raw);
    }
}

size_t tf_write_open(obuf *b, const tf_plan *p, const bb_rschema *s, const uint8_t *fields,
                     const bb_rinstance *inst) {
    obuf_putc(b, '{');
    for (size_t j = 0; j < p->n; j++) {
        const tf_field *t = &p->v[j];
        obuf_write(b, t->key, t->key_len);
        if (t->kind != TF_OTHER)
            write_int(b, t, fields);
        else
            obuf_json_field(b, s, t->fi, fields, inst);
    }
    return p->n;
}
