/* convert/obuf_json.c — JSON values written through an obuf: escaped strings, the golden JSON's
 * large-integer rule, microseconds, a decoded field (see convert/obuf.h). */
/* SPDX-License-Identifier: MIT */
#include "convert/obuf.h"

#include "convert/json.h"

/* bb_text_fn appending to the obuf `ctx`. */
static int buf_piece(void *ctx, const char *text, size_t len) {
    obuf_write(ctx, text, len);
    return 0;
}

void obuf_json_str(obuf *b, const char *s, size_t n) {
    obuf_putc(b, '"');
    (void)bb_json_escape_each(s, n, buf_piece, b);
    obuf_putc(b, '"');
}

void obuf_json_u64(obuf *b, uint64_t v) {
    if (v > BB_JSON_SAFE_MAX) {
        obuf_putc(b, '"');
        obuf_u64(b, v);
        obuf_putc(b, '"');
    } else {
        obuf_u64(b, v);
    }
}

void obuf_json_i64(obuf *b, int64_t v) {
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    if (mag > BB_JSON_SAFE_MAX) {
        obuf_putc(b, '"');
        obuf_i64(b, v);
        obuf_putc(b, '"');
    } else {
        obuf_i64(b, v);
    }
}

void obuf_usec(obuf *b, uint64_t ns) {
    obuf_u64(b, ns / 1000);
    unsigned f = (unsigned)(ns % 1000);
    char tmp[4] = {'.', (char)('0' + f / 100), (char)('0' + f / 10 % 10), (char)('0' + f % 10)};
    obuf_write(b, tmp, 4);
}

void obuf_json_field(obuf *b, const bb_rschema *schema, size_t fi, const uint8_t *fields,
                        const bb_rinstance *inst) {
    bb_value v = bb_decode_field(schema, fi, fields, inst);
    switch (v.kind) {
    case BB_VALUE_ABSENT: obuf_write(b, "null", 4); break;
    case BB_VALUE_UINT: obuf_json_u64(b, v.u); break;
    case BB_VALUE_INT: obuf_json_i64(b, v.i); break;
    case BB_VALUE_BOOL: obuf_puts(b, v.b ? "true" : "false"); break;
    case BB_VALUE_BYTES:
        obuf_putc(b, '"');
        obuf_hexbytes(b, v.bytes, v.bytes_len);
        obuf_putc(b, '"');
        break;
    case BB_VALUE_ENUM:
        if (v.has_label) {
            obuf_json_str(b, v.str.ptr, v.str.len);
        } else {
            obuf_putc(b, '"');
            obuf_u64(b, v.u);
            obuf_putc(b, '"');
        }
        break;
    case BB_VALUE_STRING:
        if (v.has_label) {
            obuf_json_str(b, v.str.ptr, v.str.len);
        } else {
            obuf_write(b, "\"#", 2);
            obuf_u64(b, v.u);
            obuf_putc(b, '"');
        }
        break;
    }
}

