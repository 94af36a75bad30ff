/* dump_sections.c — the `.bb` wire encoding of envelope, section table and section bodies
 * (FORMAT.md v1), shared by the dump writer and `backbeat merge` (see dump_sections.h).
 *
 * Integers are packed little-endian into small stack arrays and handed to the sink; nothing is
 * allocated and no library function other than the sink is called, so the encoders are
 * async-signal-safe whenever the sink is.
 */
/* SPDX-License-Identifier: MIT */
#include "format/sections.h"

#include "backbeat/schema.h"
#include "common/le_bytes.h"

/* An encoding in progress: the sink and its first failure (sticky). */
typedef struct enc {
    bb_sink sink;
    int rc;
} enc;

/* Hand n bytes to the sink unless an earlier write failed. */
static void put(enc *e, const void *p, size_t n) {
    if (e->rc == 0 && n) e->rc = e->sink.write(e->sink.ctx, p, n);
}

static void put_u8(enc *e, uint8_t v) { put(e, &v, 1); }

static void put_u16(enc *e, uint16_t v) {
    uint8_t b[2];
    bb__le_put_u16(b, v);
    put(e, b, sizeof b);
}

static void put_u32(enc *e, uint32_t v) {
    uint8_t b[4];
    bb__le_put_u32(b, v);
    put(e, b, sizeof b);
}

static void put_u64(enc *e, uint64_t v) {
    uint8_t b[8];
    bb__le_put_u64(b, v);
    put(e, b, sizeof b);
}

/* `str`: u16 length, then the bytes. */
static void put_str(enc *e, bb__wire_str s) {
    put_u16(e, s.len);
    put(e, s.ptr, s.len);
}

/* `opt_str`: byte 0 when absent, else byte 1 and the `str`. */
static void put_opt_str(enc *e, bb__wire_str s) {
    put_u8(e, s.present ? 1 : 0);
    if (s.present) put_str(e, s);
}

/* Encoded sizes of `str` and `opt_str`. */
static uint64_t str_size(bb__wire_str s) { return 2u + s.len; }
static uint64_t opt_str_size(bb__wire_str s) { return s.present ? 1u + str_size(s) : 1u; }

/* Whether a field of type `type` carries the type-argument byte. */
static int has_type_arg(uint8_t type) { return type == BB_TYPE_ENUM || type == BB_TYPE_INTERNED; }

/* ---------------------------------------------------------------- envelope, section table */

uint64_t bb__dump_body_start(size_t section_count) {
    return BB_DUMP_ENVELOPE_SIZE + (uint64_t)BB_DUMP_TABLE_ENTRY_SIZE * section_count;
}

uint64_t bb__sections_layout(bb__section_ref *secs, size_t n) {
    uint64_t off = bb__dump_body_start(n);
    for (size_t i = 0; i < n; i++) {
        secs[i].offset = off;
        off += secs[i].len;
    }
    return off;
}

int bb__enc_envelope(bb_sink sink, uint16_t section_count) {
    enc e = {sink, 0};
    put(&e, BB_DUMP_MAGIC, BB_DUMP_MAGIC_SIZE);
    put_u16(&e, BB_DUMP_FORMAT_VERSION);
    put_u16(&e, BB_DUMP_FLAG_LITTLE_ENDIAN);
    put_u16(&e, section_count);
    put_u16(&e, 0); /* reserved */
    return e.rc;
}

int bb__enc_section_entry(bb_sink sink, uint16_t kind, uint64_t offset, uint64_t len) {
    enc e = {sink, 0};
    put_u16(&e, kind);
    put_u16(&e, 0); /* reserved */
    put_u64(&e, offset);
    put_u64(&e, len);
    return e.rc;
}

int bb__enc_header(bb_sink sink, const bb__section_ref *secs, size_t n) {
    int rc = bb__enc_envelope(sink, (uint16_t)n);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = bb__enc_section_entry(sink, secs[i].kind, secs[i].offset, secs[i].len);
    return rc;
}

/* ---------------------------------------------------------------- Schema */

uint64_t bb__wire_event_size(const bb__wire_event *ev) {
    /* id, name, description, record_size, phase, field_count */
    return 8u + str_size(ev->name) + opt_str_size(ev->description) + 2u + 1u + 2u;
}

uint64_t bb__wire_field_size(const bb__wire_field *f) {
    return str_size(f->name) + opt_str_size(f->description) + 1u /* type */ +
           (has_type_arg(f->type) ? 1u : 0u) + 2u + 2u + 1u /* offset, width, role */ +
           opt_str_size(f->unit) + (f->has_sentinel ? 9u : 1u) + 2u /* label_count */;
}

uint64_t bb__wire_label_size(bb__wire_str label) { return 8u + str_size(label); }

int bb__enc_schema_count(bb_sink sink, uint32_t count) {
    enc e = {sink, 0};
    put_u32(&e, count);
    return e.rc;
}

int bb__enc_schema_event(bb_sink sink, const bb__wire_event *ev) {
    enc e = {sink, 0};
    put_u64(&e, ev->id);
    put_str(&e, ev->name);
    put_opt_str(&e, ev->description);
    put_u16(&e, ev->record_size);
    put_u8(&e, ev->phase);
    put_u16(&e, ev->field_count);
    return e.rc;
}

int bb__enc_schema_field(bb_sink sink, const bb__wire_field *f) {
    enc e = {sink, 0};
    put_str(&e, f->name);
    put_opt_str(&e, f->description);
    put_u8(&e, f->type);
    if (has_type_arg(f->type)) put_u8(&e, f->type_arg);
    put_u16(&e, f->offset);
    put_u16(&e, f->width);
    put_u8(&e, f->role);
    put_opt_str(&e, f->unit);
    put_u8(&e, f->has_sentinel ? 1 : 0);
    if (f->has_sentinel) put_u64(&e, f->sentinel);
    put_u16(&e, f->label_count);
    return e.rc;
}

int bb__enc_schema_label(bb_sink sink, uint64_t value, bb__wire_str label) {
    enc e = {sink, 0};
    put_u64(&e, value);
    put_str(&e, label);
    return e.rc;
}

/* ---------------------------------------------------------------- Intern, Shard, Meta */

int bb__enc_intern_header(bb_sink sink, uint64_t instance_id, uint32_t count) {
    enc e = {sink, 0};
    put_u64(&e, instance_id);
    put_u32(&e, count);
    return e.rc;
}

int bb__enc_intern_entry(bb_sink sink, uint32_t id, uint32_t len, const void *bytes) {
    enc e = {sink, 0};
    put_u32(&e, id);
    put_u32(&e, len);
    put(&e, bytes, len);
    return e.rc;
}

int bb__enc_shard_header(bb_sink sink, uint64_t instance_id, uint32_t shard_id, uint64_t head,
                         uint64_t capacity) {
    enc e = {sink, 0};
    put_u64(&e, instance_id);
    put_u32(&e, shard_id);
    put_u64(&e, head);
    put_u64(&e, capacity);
    return e.rc;
}

uint64_t bb__wire_meta_size(bb__wire_str host) { return 8u + str_size(host); }

int bb__enc_meta(bb_sink sink, uint64_t instance_id, bb__wire_str host) {
    enc e = {sink, 0};
    put_u64(&e, instance_id);
    put_str(&e, host);
    return e.rc;
}
