/* emit/json.c — JSON string escaping over the lossy UTF-8 decoder (see emit/json.h). */
/* SPDX-License-Identifier: MIT */
#include "emit/json.h"

typedef struct escape_ctx {
    bb_text_fn fn;
    void *ctx;
} escape_ctx;

/* The escape of ASCII byte c into esc (at least 6 bytes); its length, or 0 if c stands as it
 * is. */
static size_t escape_of(unsigned char c, char *esc) {
    static const char hex[] = "0123456789abcdef";
    if (c >= 0x20 && c != '"' && c != '\\') return 0;
    esc[0] = '\\';
    switch (c) {
    case '"': esc[1] = '"'; return 2;
    case '\\': esc[1] = '\\'; return 2;
    case '\n': esc[1] = 'n'; return 2;
    case '\r': esc[1] = 'r'; return 2;
    case '\t': esc[1] = 't'; return 2;
    default: break;
    }
    esc[1] = 'u';
    esc[2] = '0';
    esc[3] = '0';
    esc[4] = hex[c >> 4];
    esc[5] = hex[c & 15];
    return 6;
}

/* bb_text_fn escaping one piece of decoded text: runs verbatim, each escape in its own piece. */
static int escape_piece(void *vctx, const char *text, size_t len) {
    const escape_ctx *e = vctx;
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        char esc[6];
        size_t n = escape_of((unsigned char)text[i], esc);
        if (!n) continue;
        int rc;
        if (i > run && (rc = e->fn(e->ctx, text + run, i - run)) != 0) return rc;
        if ((rc = e->fn(e->ctx, esc, n)) != 0) return rc;
        run = i + 1;
    }
    return len > run ? e->fn(e->ctx, text + run, len - run) : 0;
}

int em_json_escape_each(const void *data, size_t len, bb_text_fn fn, void *ctx) {
    escape_ctx e = {fn, ctx};
    return bb_utf8_lossy_each(data, len, escape_piece, &e);
}
