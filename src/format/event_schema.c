/* event_schema.c — a program's event descriptor as the format sees it: its content-addressed id
 * (FORMAT.md "Event ids": FNV-1a 64 over the qualified name as a str, the phase byte, then per
 * field its name, description, type tag (+ enum repr or interned dynamic byte), offset, width,
 * role, unit, sentinel (only when present) and enum labels) and its schema entry for the
 * encoder. One walker produces the id's byte stream; it hashes it and may copy it out. */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "common/le_bytes.h"
#include "format/event_schema.h"

#define BB_FNV_OFFSET 0xcbf29ce484222325ull
#define BB_FNV_PRIME 0x100000001b3ull

/* Where the walker puts bytes: always into the hash, and into `out` while there is room. */
typedef struct id_stream {
    uint64_t hash;
    uint8_t *out;
    size_t cap;
    size_t len; /* total bytes produced (may exceed cap) */
} id_stream;

static void put(id_stream *s, const void *data, size_t n) {
    const uint8_t *p = (const uint8_t *)data;
    for (size_t i = 0; i < n; i++) {
        s->hash ^= p[i];
        s->hash *= BB_FNV_PRIME;
        if (s->out && s->len + i < s->cap) s->out[s->len + i] = p[i];
    }
    s->len += n;
}

static void put_u8(id_stream *s, uint8_t v) { put(s, &v, 1); }

static void put_u16(id_stream *s, uint16_t v) {
    uint8_t b[2];
    bb__le_put_u16(b, v);
    put(s, b, 2);
}

static void put_u64(id_stream *s, uint64_t v) {
    uint8_t b[8];
    bb__le_put_u64(b, v);
    put(s, b, 8);
}

/* A str: u16 length then the bytes. A string longer than 65535 bytes cannot be encoded by
 * the format at all; it is folded truncated (the dump writer rejects such a schema). */
static void put_str(id_stream *s, const char *str) {
    size_t n = strlen(str);
    if (n > 0xFFFF) n = 0xFFFF;
    put_u16(s, (uint16_t)n);
    put(s, str, n);
}

static void put_opt_str(id_stream *s, const char *str) {
    if (!str) {
        put_u8(s, 0);
        return;
    }
    put_u8(s, 1);
    put_str(s, str);
}

/* Produce the whole hash input of `d` into `s`. */
static void walk(const bb_event_desc *d, id_stream *s) {
    put_str(s, d->name ? d->name : "");
    put_u8(s, d->phase);
    for (uint16_t i = 0; i < d->field_count; i++) {
        const bb_field_desc *f = &d->fields[i];
        put_str(s, f->name ? f->name : "");
        put_opt_str(s, f->description);
        put_u8(s, f->type);
        if (f->type == BB_TYPE_ENUM || f->type == BB_TYPE_INTERNED) put_u8(s, f->type_arg);
        put_u16(s, f->offset);
        put_u16(s, f->width);
        put_u8(s, f->role);
        put_opt_str(s, f->unit);
        if (f->has_sentinel) {
            put_u8(s, 1);
            put_u64(s, f->sentinel);
        }
        for (uint16_t j = 0; j < f->label_count; j++) {
            put_u64(s, f->labels[j].value);
            put_str(s, f->labels[j].label ? f->labels[j].label : "");
        }
    }
}

/* Contract: see event_schema.h. */
uint64_t bb__event_hash(const bb_event_desc *desc, uint8_t *out, size_t cap, size_t *len) {
    id_stream s = {BB_FNV_OFFSET, out, out ? cap : 0, 0};
    walk(desc, &s);
    if (len) *len = s.len;
    return s.hash;
}

/* Contract: see event_schema.h. */
bb__wire_str bb__wire_cstr(const char *s) {
    bb__wire_str w = {s, 0, 0};
    if (s) {
        size_t n = strlen(s);
        w.len = (uint16_t)(n > 0xFFFF ? 0xFFFF : n);
        w.present = 1;
    }
    return w;
}

/* Contract: see event_schema.h. */
bb__wire_event bb__wire_event_of(const bb_event_desc *ev, uint64_t id) {
    bb__wire_event w;
    w.id = id;
    w.name = bb__wire_cstr(ev->name);
    w.description = bb__wire_cstr(ev->description);
    w.record_size = ev->record_size;
    w.phase = ev->phase;
    w.field_count = ev->field_count;
    return w;
}

/* Contract: see event_schema.h. */
bb__wire_field bb__wire_field_of(const bb_field_desc *f) {
    bb__wire_field w;
    w.name = bb__wire_cstr(f->name);
    w.description = bb__wire_cstr(f->description);
    w.unit = bb__wire_cstr(f->unit);
    w.sentinel = f->sentinel;
    w.offset = f->offset;
    w.width = f->width;
    w.label_count = f->label_count;
    w.type = f->type;
    w.type_arg = f->type_arg;
    w.role = f->role;
    w.has_sentinel = f->has_sentinel ? 1 : 0;
    return w;
}

/* Contract: see event_schema.h. */
int bb__enc_event_desc(bb__sink sink, const bb_event_desc *desc, uint64_t id) {
    bb__wire_event we = bb__wire_event_of(desc, id);
    int rc = bb__enc_schema_event(sink, &we);
    for (uint16_t i = 0; !rc && i < desc->field_count; i++) {
        const bb_field_desc *f = &desc->fields[i];
        bb__wire_field wf = bb__wire_field_of(f);
        rc = bb__enc_schema_field(sink, &wf);
        for (uint16_t k = 0; !rc && k < f->label_count; k++)
            rc = bb__enc_schema_label(sink, f->labels[k].value, bb__wire_cstr(f->labels[k].label));
    }
    return rc;
}

/* Contract: see event_schema.h. */
uint64_t bb__event_schema_size(const bb_event_desc *desc) {
    bb__wire_event we = bb__wire_event_of(desc, 0);
    uint64_t n = bb__wire_event_size(&we);
    for (uint16_t i = 0; i < desc->field_count; i++) {
        const bb_field_desc *f = &desc->fields[i];
        bb__wire_field wf = bb__wire_field_of(f);
        n += bb__wire_field_size(&wf);
        for (uint16_t k = 0; k < f->label_count; k++)
            n += bb__wire_label_size(bb__wire_cstr(f->labels[k].label));
    }
    return n;
}
