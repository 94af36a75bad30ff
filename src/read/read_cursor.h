/* read_cursor.h — a bounds-checked little-endian cursor over an immutable byte range.
 *
 * Private to the reader. A cursor covers [base, base+len) of a larger input whose absolute
 * start offset is `origin` (so errors can name absolute byte offsets). Every read checks the
 * bytes left first; a failed read leaves the cursor "failed" (`ok` false, `fail_at` = the
 * absolute offset where the missing bytes begin) and returns zero, and every later read also
 * fails, so callers may chain reads and test `ok` once.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_READ_CURSOR_H
#define BB_READ_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/le_bytes.h"

typedef struct bb__read_cursor {
    const uint8_t *base;
    size_t len;
    size_t pos;
    uint64_t origin; /* absolute offset of base[0] in the input */
    bool ok;
    uint64_t fail_at; /* absolute offset of the first byte a failed read needed */
} bb__read_cursor;

/* A cursor over `len` bytes at `base`, which sit at absolute offset `origin`. */
static inline bb__read_cursor bb__cursor_make(const uint8_t *base, size_t len, uint64_t origin) {
    bb__read_cursor c = {base, len, 0, origin, true, 0};
    return c;
}

/* Bytes left (0 once failed). */
static inline size_t bb__cursor_left(const bb__read_cursor *c) {
    return c->ok ? c->len - c->pos : 0;
}

/* Absolute offset of the next byte. */
static inline uint64_t bb__cursor_abs(const bb__read_cursor *c) { return c->origin + c->pos; }

/* Consume `n` bytes and return a pointer to them, or NULL (cursor failed) if fewer are left. */
static inline const uint8_t *bb__cursor_take(bb__read_cursor *c, size_t n) {
    if (!c->ok) return NULL;
    if (n > c->len - c->pos) {
        c->ok = false;
        c->fail_at = c->origin + c->len;
        return NULL;
    }
    const uint8_t *p = c->base + c->pos;
    c->pos += n;
    return p;
}

static inline uint8_t bb__cursor_u8(bb__read_cursor *c) {
    const uint8_t *p = bb__cursor_take(c, 1);
    return p ? p[0] : 0;
}
static inline uint16_t bb__cursor_u16(bb__read_cursor *c) {
    const uint8_t *p = bb__cursor_take(c, 2);
    return p ? bb__le_get_u16(p) : 0;
}
static inline uint32_t bb__cursor_u32(bb__read_cursor *c) {
    const uint8_t *p = bb__cursor_take(c, 4);
    return p ? bb__le_get_u32(p) : 0;
}
static inline uint64_t bb__cursor_u64(bb__read_cursor *c) {
    const uint8_t *p = bb__cursor_take(c, 8);
    return p ? bb__le_get_u64(p) : 0;
}

#endif /* BB_READ_CURSOR_H */
