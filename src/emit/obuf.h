/* emit/obuf.h — a buffered writer over a file descriptor, or over growing memory, with the
 * JSON rendering the text outputs share (the trace writer, `backbeat inspect --json`).
 * Internal to backbeat's tools.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_OBUF_H
#define BB_CONVERT_OBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backbeat/reader.h"
#include "emit/json.h"

/* Buffered output to a file descriptor. Errors are sticky: check em_obuf_flush's result. */
typedef struct em_obuf {
    int fd;
    int failed; /* errno of the first failed write, or 0 */
    size_t len;
    size_t cap;
    char *data;
    uint64_t written; /* bytes handed to write(2) so far */
} em_obuf;

/* Initialise over `fd` with a heap buffer of `cap` bytes. Returns false on allocation failure.
 * With fd -1 the buffer is memory only: it grows as needed and em_obuf_flush writes nothing
 * (out of memory, `failed` is ENOMEM and what was buffered is dropped). */
bool em_obuf_init(em_obuf *b, int fd, size_t cap);
/* Write out everything buffered. Returns 0, or the errno of the first failure. */
int em_obuf_flush(em_obuf *b);
/* Flush and free the buffer (the fd is not closed). Returns as em_obuf_flush. */
int em_obuf_finish(em_obuf *b);
/* The slow paths of em_obuf_write / em_obuf_putc (the buffer is full or too short). */
void em_obuf_write_slow(em_obuf *b, const void *data, size_t len);
void em_obuf_putc_slow(em_obuf *b, char c);
/* Inline: the text writers call these a few times a field. */
static inline void em_obuf_write(em_obuf *b, const void *data, size_t len) {
    if (len <= b->cap - b->len) {
        memcpy(b->data + b->len, data, len);
        b->len += len;
    } else {
        em_obuf_write_slow(b, data, len);
    }
}
static inline void em_obuf_putc(em_obuf *b, char c) {
    if (b->len < b->cap) b->data[b->len++] = c;
    else em_obuf_putc_slow(b, c);
}
/* The slow path of em_obuf_room: drain (or grow) until n bytes fit; NULL if they cannot. */
char *em_obuf_room_slow(em_obuf *b, size_t n);
/* Room for n more bytes (n well below the capacity) at the end of the buffer, to be written
 * in place and committed by adding to b->len; NULL (b->failed set) if there is none. */
static inline char *em_obuf_room(em_obuf *b, size_t n) {
    if (n <= b->cap - b->len) return b->data + b->len;
    return em_obuf_room_slow(b, n);
}
/* Inline so that a literal's length is known at compile time. */
static inline void em_obuf_puts(em_obuf *b, const char *s) { em_obuf_write(b, s, strlen(s)); }
void em_obuf_printf(em_obuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "00" .. "99". */
extern const char em_digit_pairs[201];
/* v (< 10^8) as exactly 8 decimal digits (leading zeros) at p: on a little-endian machine the
 * digits are split in the lanes of one 64-bit word (4 + 4 digits in 32-bit lanes, then 2 + 2 in
 * 16-bit lanes, then 1 + 1 in bytes; each division a multiply and shift exact in its range: x / 100
 * as x * 10486 >> 20 for x < 10^4, y / 10 as y * 103 >> 10 for y < 100), stored in one go. */
static inline void em_put8(char *p, uint32_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    uint32_t hi = v / 10000, lo = v % 10000;
    memcpy(p, em_digit_pairs + (hi / 100) * 2, 2);
    memcpy(p + 2, em_digit_pairs + (hi % 100) * 2, 2);
    memcpy(p + 4, em_digit_pairs + (lo / 100) * 2, 2);
    memcpy(p + 6, em_digit_pairs + (lo % 100) * 2, 2);
#else
    uint64_t a = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32;
    uint64_t h = ((a * 10486) >> 20) & 0x0000007F0000007Full; /* per lane: x / 100 */
    uint64_t b = h | (a - h * 100) << 16;
    uint64_t t = ((b * 103) >> 10) & 0x000F000F000F000Full; /* per lane: y / 10 */
    uint64_t c = (t | (b - t * 10) << 8) | 0x3030303030303030ull;
    memcpy(p, &c, 8);
#endif
}
/* v (< 10^8) in decimal at p, its 8 digits written and the leading zeros shifted out in one
 * 8-byte store: p needs 8 bytes of room whatever v's length. Returns the end of the digits. */
static inline char *em_put_short(char *p, uint32_t v) {
    if (v < 10) { /* a shard, a flag, a small count */
        *p = (char)('0' + v);
        return p + 1;
    }
    char t[8];
    uint64_t x;
    em_put8(t, v);
    memcpy(&x, t, 8);
    uint64_t z = x ^ 0x3030303030303030ull; /* the leading '0's become zero bytes */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    unsigned lead = z ? (unsigned)__builtin_clzll(z) / 8 : 7;
    lead = lead < 7 ? lead : 7;
    x <<= 8 * lead;
#else
    unsigned lead = z ? (unsigned)__builtin_ctzll(z) / 8 : 7;
    lead = lead < 7 ? lead : 7;
    x >>= 8 * lead;
#endif
    memcpy(p, &x, 8);
    return p + 8 - lead;
}
/* v in decimal at p, in blocks of 8 digits: p needs 24 bytes of room (bytes past the digits
 * may be written). Returns the end of the digits. */
static inline char *em_put_u64(char *p, uint64_t v) {
    if (v < 100000000u) return em_put_short(p, (uint32_t)v);
    uint64_t hi = v / 100000000u;
    uint32_t lo = (uint32_t)(v - hi * 100000000u);
    if (hi < 100000000u) {
        p = em_put_short(p, (uint32_t)hi);
    } else {
        p = em_put_short(p, (uint32_t)(hi / 100000000u));
        em_put8(p, (uint32_t)(hi % 100000000u));
        p += 8;
    }
    em_put8(p, lo);
    return p + 8;
}
void em_obuf_u64(em_obuf *b, uint64_t v);
void em_obuf_i64(em_obuf *b, int64_t v);
/* 16 lower-case hex digits. */
void em_obuf_hex16(em_obuf *b, uint64_t v);
/* Lower-case hex of a byte string. */
void em_obuf_hexbytes(em_obuf *b, const uint8_t *p, size_t n);
/* A JSON string literal (quotes included), escaped by emit/json.h's em_json_escape_each:
 * invalid UTF-8 becomes U+FFFD, one per maximal invalid subpart (Unicode's recommended
 * practice, as the golden vectors expect). */
void em_obuf_json_str(em_obuf *b, const char *s, size_t n);
/* A JSON number for values up to 2^53, else a decimal string (BB_JSON_SAFE_MAX). */
static inline void em_obuf_json_u64(em_obuf *b, uint64_t v) {
    if (v > BB_JSON_SAFE_MAX) {
        em_obuf_putc(b, '"');
        em_obuf_u64(b, v);
        em_obuf_putc(b, '"');
    } else {
        em_obuf_u64(b, v);
    }
}
static inline void em_obuf_json_i64(em_obuf *b, int64_t v) {
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (mag > BB_JSON_SAFE_MAX) {
        em_obuf_putc(b, '"');
        em_obuf_i64(b, v);
        em_obuf_putc(b, '"');
    } else {
        em_obuf_i64(b, v);
    }
}
/* Microseconds with three decimals, from nanoseconds: 1234567 -> "1234.567". */
void em_obuf_usec(em_obuf *b, uint64_t ns);
/* The decoded value of field `fi` as JSON (null, number / string per the golden conventions,
 * bool, hex string for bytes, label or decimal string for enums, string or "#id" for
 * interned). */
void em_obuf_json_field(em_obuf *b, const bb_rschema *schema, size_t fi, const uint8_t *fields,
                        const bb_rinstance *inst);

#endif /* BB_CONVERT_OBUF_H */
