/* emit/obuf_json.c — JSON values written through an em_obuf: escaped strings, the golden JSON's
 * large-integer rule, a decoded field (see emit/obuf.h). */
/* SPDX-License-Identifier: MIT */
#include "emit/obuf.h"

#include "emit/json.h"

/* bb_text_fn appending to the em_obuf `ctx`. */
static int buf_piece(void *ctx, const char *text, size_t len) {
    em_obuf_write(ctx, text, len);
    return 0;
}

/* True if every byte of s stands as it is in a JSON string: printable ASCII but '"' and '\\'
 * (what the lossy UTF-8 decoder and the escaper both leave alone). */
static bool plain_ascii(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return false;
    }
    return true;
}

void em_obuf_json_str(em_obuf *b, const char *s, size_t n) {
    char *p;
    if (n <= 256 && plain_ascii(s, n) && (p = em_obuf_room(b, n + 2)) != NULL) {
        p[0] = '"';
        memcpy(p + 1, s, n);
        p[n + 1] = '"';
        b->len += n + 2;
        return;
    }
    em_obuf_putc(b, '"');
    (void)em_json_escape_each(s, n, buf_piece, b);
    em_obuf_putc(b, '"');
}

void em_obuf_json_field(em_obuf *b, const bb_rschema *schema, size_t fi, const uint8_t *fields,
                        const bb_rinstance *inst) {
    bb_value v = bb_decode_field(schema, fi, fields, inst);
    switch (v.kind) {
    case BB_VALUE_ABSENT: em_obuf_write(b, "null", 4); break;
    case BB_VALUE_UINT: em_obuf_json_u64(b, v.u); break;
    case BB_VALUE_INT: em_obuf_json_i64(b, v.i); break;
    case BB_VALUE_BOOL: em_obuf_puts(b, v.b ? "true" : "false"); break;
    case BB_VALUE_BYTES:
        em_obuf_putc(b, '"');
        em_obuf_hexbytes(b, v.bytes, v.bytes_len);
        em_obuf_putc(b, '"');
        break;
    case BB_VALUE_ENUM:
        if (v.has_label) {
            em_obuf_json_str(b, v.str.ptr, v.str.len);
        } else {
            em_obuf_putc(b, '"');
            em_obuf_u64(b, v.u);
            em_obuf_putc(b, '"');
        }
        break;
    case BB_VALUE_STRING:
        if (v.has_label) {
            em_obuf_json_str(b, v.str.ptr, v.str.len);
        } else {
            em_obuf_write(b, "\"#", 2);
            em_obuf_u64(b, v.u);
            em_obuf_putc(b, '"');
        }
        break;
    }
}
