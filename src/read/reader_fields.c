/* reader_fields.c — bb_decode_field: one field of a record as a bb_value, per compat/README.md
 * "JSON conventions"; bb_rfield_is_padding: which fields are padding. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "read/reader_internal.h"
#include "read/reader_priv.h"

/* ---- field decoding ------------------------------------------------------------------------ */

/* Contract: see reader.h. The one place that says what padding is. */
bool bb_rfield_is_padding(const bb_rfield *field) {
    return field && field->role == BB_ROLE_NONE && field->name.len >= 4 &&
           memcmp(field->name.ptr, "_pad", 4) == 0;
}

bb_value bb_decode_field(const bb_rschema *schema, size_t fi, const uint8_t *fields,
                         const bb_rinstance *inst) {
    bb_value v = {.kind = BB_VALUE_ABSENT, .str = {"", 0}};
    if (!schema || fi >= schema->field_count || !fields) return v; /* ABSENT */
    const bb_rfield *f = &schema->fields[fi];
    const uint8_t *p = fields + f->offset;
    size_t w = f->width < 8 ? f->width : 8;
    uint64_t raw;
    switch (w) { /* little-endian image of the field, zero-extended */
    case 1: raw = p[0]; break;
    case 2: raw = bb__le_get_u16(p); break;
    case 4: raw = bb__le_get_u32(p); break;
    case 8: raw = bb__le_get_u64(p); break;
    default: raw = bb__le_get_uw(p, (unsigned)w);
    }
    if (f->has_sentinel && f->width <= 8 && raw == f->sentinel) return v; /* ABSENT */
    switch (f->type) {
    case BB_TYPE_U8:
    case BB_TYPE_U16:
    case BB_TYPE_U32:
    case BB_TYPE_U64:
        v.kind = BB_VALUE_UINT;
        v.u = raw;
        break;
    case BB_TYPE_I8:
    case BB_TYPE_I16:
    case BB_TYPE_I32:
    case BB_TYPE_I64:
        v.kind = BB_VALUE_INT;
        if (w > 0 && w < 8 && (raw >> (8 * w - 1)) & 1) raw |= ~(uint64_t)0 << (8 * w);
        v.i = (int64_t)raw;
        break;
    case BB_TYPE_BOOL:
        v.kind = BB_VALUE_BOOL;
        for (size_t k = 0; k < f->width; k++)
            if (p[k]) v.b = true;
        break;
    case BB_TYPE_BYTES:
        v.kind = BB_VALUE_BYTES;
        v.bytes = p;
        v.bytes_len = f->width;
        break;
    case BB_TYPE_ENUM:
        v.kind = BB_VALUE_ENUM;
        v.u = raw;
        if (f->label_count > LABEL_SCAN) { /* the sorted index after the labels */
            const uint16_t *ix =
                (const uint16_t *)(const void *)f->labels[f->label_count].label.ptr;
            size_t lo = 0, hi = f->label_count;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (f->labels[ix[mid]].value < raw) lo = mid + 1;
                else hi = mid;
            }
            if (lo < f->label_count && f->labels[ix[lo]].value == raw) {
                v.has_label = true;
                v.str = f->labels[ix[lo]].label;
            }
            break;
        }
        for (size_t k = 0; k < f->label_count; k++)
            if (f->labels[k].value == raw) {
                v.has_label = true;
                v.str = f->labels[k].label;
                break;
            }
        break;
    case BB_TYPE_INTERNED:
        v.kind = BB_VALUE_STRING;
        v.u = (uint32_t)raw;
        if (inst) { /* binary search, inline: keeps v out of memory */
            size_t lo = 0, hi = inst->intern_count;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (inst->intern[mid].id < (uint32_t)raw) lo = mid + 1;
                else hi = mid;
            }
            if (lo < inst->intern_count && inst->intern[lo].id == (uint32_t)raw) {
                v.has_label = true;
                v.str = inst->intern[lo].bytes;
            }
        }
        break;
    default: break;
    }
    return v;
}
