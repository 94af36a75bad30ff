/* sections.c — the `.bb` wire encoding of envelope, section table and section bodies
 * (FORMAT.md v1), shared by every writer of `.bb` bytes (see sections.h).
 *
 * Integers are packed little-endian into small stack arrays and handed to the sink; nothing is
 * allocated and no library function other than the sink is called, so the encoders are
 * async-signal-safe whenever the sink is.
 */
/* SPDX-License-Identifier: MIT */
#include "format/sections.h"

#include <errno.h>

#include "backbeat/reader.h"
#include "backbeat/schema.h"
#include "common/le_bytes.h"

/* An encoding in progress: the sink and its first failure (sticky). */
typedef struct enc {
    bb__sink sink;
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

int bb__enc_envelope(bb__sink sink, uint16_t section_count) {
    enc e = {sink, 0};
    put(&e, BB_DUMP_MAGIC, BB_DUMP_MAGIC_SIZE);
    put_u16(&e, BB_DUMP_FORMAT_VERSION);
    put_u16(&e, BB_DUMP_FLAG_LITTLE_ENDIAN);
    put_u16(&e, section_count);
    put_u16(&e, 0); /* reserved */
    return e.rc;
}

int bb__enc_section_entry(bb__sink sink, uint16_t kind, uint64_t offset, uint64_t len) {
    enc e = {sink, 0};
    put_u16(&e, kind);
    put_u16(&e, 0); /* reserved */
    put_u64(&e, offset);
    put_u64(&e, len);
    return e.rc;
}

void bb__table_begin(bb__table *t, bb__sink sink, size_t count) {
    t->sink = sink;
    t->count = count;
    t->added = 0;
    t->next = bb__dump_body_start(count);
    t->rc = 0;
    t->invalid = count > UINT16_MAX;
    if (!t->invalid && sink.write) t->rc = bb__enc_envelope(sink, (uint16_t)count);
}

uint64_t bb__table_add(bb__table *t, uint16_t kind, uint64_t len) {
    uint64_t at = t->next;
    if (t->invalid || t->added == t->count || len > UINT64_MAX - at) {
        t->invalid = 1;
        return at;
    }
    if (t->rc == 0 && t->sink.write) t->rc = bb__enc_section_entry(t->sink, kind, at, len);
    t->added++;
    t->next = at + len;
    return at;
}

uint64_t bb__table_end(const bb__table *t) {
    return t->invalid || t->rc || t->added != t->count ? 0 : t->next;
}

uint64_t bb__sections_layout(bb__section_ref *secs, size_t n) {
    bb__table t;
    bb__table_begin(&t, (bb__sink){NULL, NULL}, n);
    for (size_t i = 0; i < n; i++) secs[i].offset = bb__table_add(&t, secs[i].kind, secs[i].len);
    return bb__table_end(&t);
}

int bb__enc_header(bb__sink sink, const bb__section_ref *secs, size_t n) {
    bb__table t;
    bb__table_begin(&t, sink, n);
    for (size_t i = 0; i < n; i++) bb__table_add(&t, secs[i].kind, secs[i].len);
    return t.rc ? t.rc : t.invalid ? EINVAL : 0;
}

size_t bb__instance_section_count(const bb__instance_shape *s) {
    return 3u + s->view_count + s->shard_count + (s->process_len ? 1u : 0u);
}

void bb__table_instance(bb__table *t, bb__sink sink, const bb__instance_shape *s) {
    bb__table_begin(t, sink, bb__instance_section_count(s));
    bb__table_add(t, BB_SECTION_SCHEMA, s->schema_len);
    if (!s->intern_last) bb__table_add(t, BB_SECTION_INTERN, s->intern_len);
    for (size_t i = 0; i < s->view_count; i++)
        bb__table_add(t, BB_SECTION_VIEWS, s->view_len(s->ctx, i));
    for (uint32_t i = 0; i < s->shard_count; i++) {
        uint64_t cap = s->shard_capacity(s->ctx, i);
        bb__table_add(t, BB_SECTION_SHARD,
                      cap > UINT64_MAX - BB_SHARD_HEADER_SIZE ? UINT64_MAX
                                                              : BB_SHARD_HEADER_SIZE + cap);
    }
    if (s->intern_last) bb__table_add(t, BB_SECTION_INTERN, s->intern_len);
    bb__table_add(t, BB_SECTION_META, s->meta_len);
    if (s->process_len) bb__table_add(t, BB_SECTION_PROCESS, s->process_len);
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

int bb__enc_schema_count(bb__sink sink, uint32_t count) {
    enc e = {sink, 0};
    put_u32(&e, count);
    return e.rc;
}

int bb__enc_schema_event(bb__sink sink, const bb__wire_event *ev) {
    enc e = {sink, 0};
    put_u64(&e, ev->id);
    put_str(&e, ev->name);
    put_opt_str(&e, ev->description);
    put_u16(&e, ev->record_size);
    put_u8(&e, ev->phase);
    put_u16(&e, ev->field_count);
    return e.rc;
}

int bb__enc_schema_field(bb__sink sink, const bb__wire_field *f) {
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

int bb__enc_schema_label(bb__sink sink, uint64_t value, bb__wire_str label) {
    enc e = {sink, 0};
    put_u64(&e, value);
    put_str(&e, label);
    return e.rc;
}

/* A decoded string as a wire string (the reader bounded its length to u16). */
static bb__wire_str wire_view(bb_strview v, int present) {
    bb__wire_str w = {v.ptr, (uint16_t)v.len, present ? 1 : 0};
    return w;
}

/* Field f of a decoded schema entry, without its labels. */
static bb__wire_field wire_rfield(const bb_rfield *f) {
    bb__wire_field w = {.name = wire_view(f->name, 1),
                        .description = wire_view(f->description, f->has_description),
                        .unit = wire_view(f->unit, f->has_unit),
                        .sentinel = f->sentinel,
                        .offset = f->offset,
                        .width = f->width,
                        .label_count = (uint16_t)f->label_count,
                        .type = f->type,
                        .type_arg = f->type_arg,
                        .role = f->role,
                        .has_sentinel = f->has_sentinel ? 1 : 0};
    return w;
}

int bb__enc_schema_decoded(bb__sink sink, const bb_rschema *s) {
    bb__wire_event we = {.id = s->id,
                         .name = wire_view(s->name, 1),
                         .description = wire_view(s->description, s->has_description),
                         .record_size = s->record_size,
                         .phase = s->phase,
                         .field_count = (uint16_t)s->field_count};
    int rc = bb__enc_schema_event(sink, &we);
    for (size_t i = 0; rc == 0 && i < s->field_count; i++) {
        const bb_rfield *f = &s->fields[i];
        bb__wire_field wf = wire_rfield(f);
        rc = bb__enc_schema_field(sink, &wf);
        for (size_t l = 0; rc == 0 && l < f->label_count; l++)
            rc = bb__enc_schema_label(sink, f->labels[l].value, wire_view(f->labels[l].label, 1));
    }
    return rc;
}

/* ---------------------------------------------------------------- Intern, Shard, Meta */

int bb__enc_intern_header(bb__sink sink, uint64_t instance_id, uint32_t count) {
    enc e = {sink, 0};
    put_u64(&e, instance_id);
    put_u32(&e, count);
    return e.rc;
}

int bb__enc_intern_entry(bb__sink sink, uint32_t id, uint32_t len, const void *bytes) {
    enc e = {sink, 0};
    put_u32(&e, id);
    put_u32(&e, len);
    put(&e, bytes, len);
    return e.rc;
}

int bb__enc_shard_header(bb__sink sink, uint64_t instance_id, uint32_t shard_id, uint64_t head,
                         uint64_t capacity) {
    enc e = {sink, 0};
    put_u64(&e, instance_id);
    put_u32(&e, shard_id);
    put_u64(&e, head);
    put_u64(&e, capacity);
    return e.rc;
}

uint64_t bb__wire_meta_size(bb__wire_str host) { return 8u + str_size(host); }

int bb__enc_meta(bb__sink sink, uint64_t instance_id, bb__wire_str host) {
    enc e = {sink, 0};
    put_u64(&e, instance_id);
    put_str(&e, host);
    return e.rc;
}

/* ---------------------------------------------------------------- Process */

uint64_t bb__wire_process_size(const bb__wire_process *p) { return 24u + str_size(p->program); }

int bb__enc_process(bb__sink sink, uint64_t instance_id, const bb__wire_process *p) {
    enc e = {sink, 0};
    put_u64(&e, instance_id);
    put_u64(&e, p->pid);
    put_u64(&e, p->start_ns);
    put_str(&e, p->program);
    return e.rc;
}
