/* reader_registry.c — the dump reader's registry phase: the Schema section decoded into events, fields and labels,
 * every count bounded by the bytes left, and the id index (see reader_internal.h). */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "common/error_set.h"

#include "read/reader_internal.h"
#include "read/reader_priv.h"

/* ---- schema registry ----------------------------------------------------------------------- */

/* Home slot of an event id in a table of mask+1 slots (ids are hashes already; mix anyway). */
static size_t hash_slot(uint64_t id, size_t mask) {
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdull;
    id ^= id >> 33;
    return (size_t)id & mask;
}

const bb_rschema *bb_dump_find_schema(const bb_dump *d, uint64_t id) {
    if (!d || !d->htab) return NULL;
    for (size_t s = hash_slot(id, d->hmask);; s = (s + 1) & d->hmask) {
        uint32_t v = d->htab[s];
        if (v == 0) return NULL;
        if (d->schemas[v - 1].id == id) return &d->schemas[v - 1];
    }
}

/* Build the id -> schema table (open addressing, at most half full); first of a duplicate id
 * wins. Also run for an absent Schema section, giving an empty table. */
bb_status bb__rd_schema_index(ctx *c) {
    bb_dump *d = c->d;
    size_t cap = 8;
    while (cap < d->nschemas * 2) cap <<= 1;
    d->htab = bb__rd_array(d, cap, sizeof *d->htab);
    if (!d->htab) return bb__rd_fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (schema index)");
    d->hmask = cap - 1;
    for (size_t i = 0; i < d->nschemas; i++) {
        size_t s = hash_slot(d->schemas[i].id, d->hmask);
        for (;; s = (s + 1) & d->hmask) {
            uint32_t v = d->htab[s];
            if (v == 0) {
                d->htab[s] = (uint32_t)(i + 1);
                break;
            }
            if (d->schemas[v - 1].id == d->schemas[i].id) break; /* duplicate id: first wins */
        }
    }
    return BB_OK;
}

/* Build the sorted index of `n` labels (n > LABEL_SCAN) into labels[n]. */
static bool index_labels(ctx *c, bb_rlabel *labels, size_t n) {
    uint16_t *ix = bb__rd_array(c->d, n, sizeof *ix);
    if (!ix) {
        bb__rd_fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (labels)");
        return false;
    }
    for (size_t k = 0; k < n; k++) ix[k] = (uint16_t)k;
    /* stable bottom-up merge sort by value: ties keep index order */
    uint16_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp) {
        bb__rd_fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (labels)");
        return false;
    }
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                tmp[o++] = labels[ix[j]].value < labels[ix[i]].value ? ix[j++] : ix[i++];
            while (i < mid) tmp[o++] = ix[i++];
            while (j < hi) tmp[o++] = ix[j++];
        }
        memcpy(ix, tmp, n * sizeof *ix);
    }
    free(tmp);
    labels[n].value = n;
    labels[n].label.ptr = (const char *)ix;
    labels[n].label.len = n * sizeof *ix;
    return true;
}

/* Decode one field of event `ev` from the Schema section `si`; rejects unknown type tags, label
 * counts larger than the bytes left, and a field lying outside the event's record. */
static bb_status read_field(ctx *c, size_t si, bb__read_cursor *cur, const bb_rschema *ev,
                            bb_rfield *f) {
    bb_status st;
    uint64_t at = bb__cursor_abs(cur);
    if ((st = bb__rd_str(c, si, cur, true, "a field name", &f->name))) return st;
    if ((st = bb__rd_opt_str(c, si, cur, "a field description", &f->has_description,
                             &f->description)))
        return st;
    f->type = bb__cursor_u8(cur);
    if (!cur->ok) return bb__rd_truncated_in(c, si, cur);
    if (f->type > BB_TYPE_INTERNED)
        return bb__rd_fail(c, BB_ERR_CORRUPT, bb__cursor_abs(cur) - 1,
                           "section %zu (schema): unknown type tag %u for field '%.*s' of '%.*s'",
                           si, f->type, (int)f->name.len, f->name.ptr, (int)ev->name.len,
                           ev->name.ptr);
    if (f->type == BB_TYPE_ENUM || f->type == BB_TYPE_INTERNED) f->type_arg = bb__cursor_u8(cur);
    f->offset = bb__cursor_u16(cur);
    f->width = bb__cursor_u16(cur);
    f->role = bb__cursor_u8(cur);
    if (!cur->ok) return bb__rd_truncated_in(c, si, cur);
    if (f->role > BB_ROLE_PARENT_SPAN_ID) f->role = BB_ROLE_NONE;
    if ((st = bb__rd_opt_str(c, si, cur, "a unit", &f->has_unit, &f->unit))) return st;
    uint8_t has_sentinel = bb__cursor_u8(cur);
    f->has_sentinel = has_sentinel != 0;
    if (f->has_sentinel) f->sentinel = bb__cursor_u64(cur);
    uint16_t nlabels = bb__cursor_u16(cur);
    if (!cur->ok) return bb__rd_truncated_in(c, si, cur);
    if (nlabels > bb__cursor_left(cur) / MIN_LABEL)
        return bb__rd_fail(
            c, BB_ERR_BOUNDS, bb__cursor_abs(cur) - 2,
            "section %zu (schema): label count %u of field '%.*s' exceeds the %zu bytes "
            "left",
            si, nlabels, (int)f->name.len, f->name.ptr, bb__cursor_left(cur));
    if (nlabels) {
        /* Past LABEL_SCAN labels the array is followed by its value-sorted index (below). */
        size_t room = nlabels > LABEL_SCAN ? nlabels + 1 : nlabels;
        bb_rlabel *labels = bb__rd_array(c->d, room, sizeof *labels);
        if (!labels) return bb__rd_fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (labels)");
        for (size_t k = 0; k < nlabels; k++) {
            labels[k].value = bb__cursor_u64(cur);
            if ((st = bb__rd_str(c, si, cur, true, "an enum label", &labels[k].label))) return st;
        }
        if (nlabels > LABEL_SCAN && !index_labels(c, labels, nlabels)) return BB_ERR_NOMEM;
        f->labels = labels;
    }
    f->label_count = nlabels;
    if ((uint32_t)f->offset + f->width > ev->record_size)
        return bb__rd_fail(
            c, BB_ERR_CORRUPT, at,
            "section %zu (schema): field '%.*s' of '%.*s' (offset %u, width %u) lies "
            "outside its %u-byte record",
            si, (int)f->name.len, f->name.ptr, (int)ev->name.len, ev->name.ptr, f->offset, f->width,
            ev->record_size);
    return BB_OK;
}

/* Decode Schema section `si` (the first one) into d->schemas and index it. */
bb_status bb__rd_schema_section(ctx *c, size_t si) {
    bb_dump *d = c->d;
    const section *s = &d->secs[si];
    bb__read_cursor cur = bb__cursor_make(d->data + s->offset, (size_t)s->len, s->offset);
    uint32_t count = bb__cursor_u32(&cur);
    if (!cur.ok) return bb__rd_truncated_in(c, si, &cur);
    if (count > bb__cursor_left(&cur) / MIN_SCHEMA)
        return bb__rd_fail(c, BB_ERR_BOUNDS, s->offset,
                           "section %zu (schema): event count %u exceeds the %zu bytes left", si,
                           count, bb__cursor_left(&cur));
    d->schemas = bb__rd_array(d, count, sizeof *d->schemas);
    if (!d->schemas) return bb__rd_fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (schemas)");
    bb_status st;
    for (uint32_t i = 0; i < count; i++) {
        bb_rschema *ev = &d->schemas[i];
        ev->id = bb__cursor_u64(&cur);
        if ((st = bb__rd_str(c, si, &cur, true, "an event name", &ev->name))) return st;
        if ((st = bb__rd_opt_str(c, si, &cur, "an event description", &ev->has_description,
                                 &ev->description)))
            return st;
        ev->record_size = bb__cursor_u16(&cur);
        ev->phase = bb__cursor_u8(&cur);
        if (ev->phase > BB_PHASE_EXIT) ev->phase = BB_PHASE_NONE;
        uint16_t nfields = bb__cursor_u16(&cur);
        if (!cur.ok) return bb__rd_truncated_in(c, si, &cur);
        if (nfields > bb__cursor_left(&cur) / MIN_FIELD)
            return bb__rd_fail(
                c, BB_ERR_BOUNDS, bb__cursor_abs(&cur) - 2,
                "section %zu (schema): field count %u of '%.*s' exceeds the %zu bytes "
                "left",
                si, nfields, (int)ev->name.len, ev->name.ptr, bb__cursor_left(&cur));
        bb_rfield *fields = bb__rd_array(d, nfields, sizeof *fields);
        if (!fields) return bb__rd_fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (fields)");
        for (uint16_t k = 0; k < nfields; k++)
            if ((st = read_field(c, si, &cur, ev, &fields[k]))) return st;
        ev->fields = fields;
        ev->field_count = nfields;
        d->nschemas = i + 1;
    }
    return bb__rd_schema_index(c);
}

size_t bb_dump_schema_count(const bb_dump *d) { return d->nschemas; }
const bb_rschema *bb_dump_schema(const bb_dump *d, size_t i) {
    return i < d->nschemas ? &d->schemas[i] : NULL;
}
