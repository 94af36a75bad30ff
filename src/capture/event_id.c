/* event_id.c — content-addressed event ids (FORMAT.md "Event ids").
 *
 * The id is FNV-1a 64 folded over a byte stream built from the schema: the qualified name as
 * a str, the phase byte, then per field its name, description, type tag (+ enum repr or
 * interned dynamic byte), offset, width, role, unit, sentinel (only when present) and enum
 * labels. One walker produces that stream; it either hashes it or copies it out (for tests).
 * Nothing here allocates or takes a lock.
 */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "backbeat/event.h"
#include "backbeat/registry.h"
#include "common/le_bytes.h"

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

/* Plain FNV-1a 64 of `len` bytes at `data`. */
uint64_t bb_fnv1a64(const void *data, size_t len) {
    id_stream s = {BB_FNV_OFFSET, NULL, 0, 0};
    put(&s, data, len);
    return s.hash;
}

/* The id of `desc`, computed from its content; does not store it. */
uint64_t bb_event_id_compute(const bb_event_desc *desc) {
    id_stream s = {BB_FNV_OFFSET, NULL, 0, 0};
    walk(desc, &s);
    return s.hash;
}

/* Copy the exact hash input of `desc` into out[0..cap) and return its full length (which may
 * exceed cap; out may be NULL when cap is 0). */
size_t bb_event_id_input(const bb_event_desc *desc, uint8_t *out, size_t cap) {
    id_stream s = {BB_FNV_OFFSET, out, cap, 0};
    walk(desc, &s);
    return s.len;
}

/* Compute and store desc->id if it is still 0; return it. Racing callers store the same
 * value. */
uint64_t bb_event_id_resolve(bb_event_desc *desc) {
    uint64_t id = __atomic_load_n(&desc->id, __ATOMIC_RELAXED);
    if (id == 0) {
        id = bb_event_id_compute(desc);
        __atomic_store_n(&desc->id, id, __ATOMIC_RELAXED);
    }
    return id;
}
