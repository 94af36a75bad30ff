/* utf8.c — strict UTF-8 validation and lossy decoding (U+FFFD per maximal invalid subpart).
 *
 * Schema strings must be valid UTF-8 (FORMAT.md); intern bytes are raw and rendered lossily
 * following the Unicode "maximal subpart" practice (compat/README.md "JSON conventions"):
 * `ff fe 78` becomes U+FFFD U+FFFD "x", and a truncated multi-byte sequence is one U+FFFD.
 */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "backbeat/reader.h"

/* Length of the well-formed UTF-8 sequence starting at s[0] (1..4), or 0 if it is invalid; in
 * the invalid case *bad is set to the length of the maximal invalid subpart (>= 1). */
static size_t seq_len(const uint8_t *s, size_t left, size_t *bad) {
    uint8_t b = s[0];
    if (b < 0x80) return 1;
    size_t need;
    uint8_t lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (b >= 0xC2 && b <= 0xDF) {
        need = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
        need = 3;
        if (b == 0xE0) lo = 0xA0;
        if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        need = 4;
        if (b == 0xF0) lo = 0x90;
        if (b == 0xF4) hi = 0x8F;
    } else {
        *bad = 1;
        return 0;
    }
    for (size_t k = 1; k < need; k++) {
        if (k >= left) {
            *bad = k;
            return 0;
        }
        uint8_t c = s[k];
        uint8_t l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
        if (c < l || c > h) {
            *bad = k;
            return 0;
        }
    }
    return need;
}

bool bb_utf8_valid(const void *data, size_t len) {
    const uint8_t *s = data;
    size_t i = 0;
    while (i < len) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        size_t bad = 0, n = seq_len(s + i, len - i, &bad);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

int bb_utf8_lossy_each(const void *data, size_t len, bb_text_fn fn, void *ctx) {
    static const char repl[3] = {(char)0xEF, (char)0xBF, (char)0xBD};
    const uint8_t *s = data;
    size_t run = 0, i = 0;
    while (i < len) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        size_t bad = 0, n = seq_len(s + i, len - i, &bad);
        if (n) {
            i += n;
            continue;
        }
        int rc;
        if (i > run && (rc = fn(ctx, (const char *)s + run, i - run)) != 0) return rc;
        if ((rc = fn(ctx, repl, sizeof repl)) != 0) return rc;
        i += bad;
        run = i;
    }
    if (len > run) return fn(ctx, (const char *)s + run, len - run);
    return 0;
}

typedef struct lossy_buf {
    char *out;
    size_t cap;
    size_t len;
} lossy_buf;

/* bb_text_fn appending into a lossy_buf, counting what does not fit. */
static int lossy_append(void *ctx, const char *text, size_t len) {
    lossy_buf *b = ctx;
    if (b->len < b->cap) {
        size_t n = b->cap - b->len < len ? b->cap - b->len : len;
        memcpy(b->out + b->len, text, n);
    }
    b->len += len;
    return 0;
}

size_t bb_utf8_lossy(const void *data, size_t len, char *out, size_t cap) {
    lossy_buf b = {out, out ? cap : 0, 0};
    bb_utf8_lossy_each(data, len, lossy_append, &b);
    return b.len;
}
