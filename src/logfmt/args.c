/* args.c — the arguments of a log record as readers show them outside its message: a `double`
 * argument as a number, a `string` argument as its text (docs/LOG_LINES.md, argument kinds). */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "logfmt/logfmt.h"

/* Contract: see logfmt.h. */
bool lf_desc_is(const bb_rfield *f, const char *what) {
    size_t n = strlen(what);
    return f->has_description && f->description.len == n &&
           memcmp(f->description.ptr, what, n) == 0;
}

bool lf_arg_is_double(const bb_rfield *f) {
    return f->type == BB_TYPE_U64 && f->width == 8 &&
           (lf_desc_is(f, "double") || lf_desc_is(f, "long double"));
}

double lf_arg_double(const bb_rfield *f, const uint8_t *fields) {
    const uint8_t *p = fields + f->offset;
    uint64_t bits = 0;
    for (int k = 7; k >= 0; k--) bits = bits << 8 | p[k];
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* n, less the bytes of a UTF-8 sequence that the cut at s[n] left incomplete (a cut string
 * ends where the recorder stopped copying, possibly inside a character). */
static size_t utf8_whole(const uint8_t *s, size_t n) {
    for (size_t back = 1; back <= 3 && back <= n; back++) {
        uint8_t c = s[n - back];
        if ((c & 0xC0) == 0x80) continue; /* a continuation byte: look further back */
        size_t need = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
        return need > back ? n - back : n;
    }
    return n;
}

/* Byte 0 the length 0 .. width - 1, 255 cut (width - 1 bytes kept), 254 NULL; then the bytes. */
bool lf_arg_string(const bb_rfield *f, const uint8_t *fields, bb_strview *text, bool *cut,
                   bool *null) {
    if (f->type != BB_TYPE_BYTES || !lf_desc_is(f, "string") || f->width < 1) return false;
    const uint8_t *p = fields + f->offset;
    size_t n = p[0];
    *null = n == 254;
    *cut = n == 255;
    if (*null) n = 0;
    else if (*cut) n = utf8_whole(p + 1, f->width - 1u);
    else if (n > f->width - 1u) return false;
    *text = (bb_strview){(const char *)p + 1, n};
    return true;
}
