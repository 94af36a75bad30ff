/* format.c — a log record's message: the call site's format with each conversion replaced by its
 * recorded argument, formatted by snprintf one conversion spec at a time (so every flag, width,
 * precision and length modifier means what C's printf makes of it). */
/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <wchar.h>

#include "logfmt/logfmt.h"

/* Widths and precisions above this are clamped (a format read from a dump is input too). */
#define LF_MAX_WIDTH 4096
/* Interned strings longer than this are cut for formatting. */
#define LF_MAX_STR 4096

enum arg_kind { A_NONE, A_INT, A_UINT, A_DBL, A_PTR, A_STR, A_BAD };

typedef struct arg {
    enum arg_kind kind;
    int64_t i;
    uint64_t u;
    double d;
    const char *s;    /* A_STR: NUL-terminated (in `text`, or a literal) */
    size_t kept;      /* A_STR cut by the recorder: its bytes before the "..." marker, else 0 */
    bb_strview label; /* a BB_E enum's label (A_INT/A_UINT), ptr NULL if none */
} arg;

typedef struct out {
    char *p;
    size_t len, cap; /* len < cap */
} out;

static void put(out *o, const char *s, size_t n) {
    size_t room = o->cap - 1 - o->len;
    if (n > room) n = room;
    memcpy(o->p + o->len, s, n);
    o->len += n;
    o->p[o->len] = '\0';
}

/* A `string` field as its text (args.c): cut ones end in "...", NULL is "(null)". */
static void string_arg(const bb_rfield *f, const uint8_t *fields, char *text, arg *a) {
    bb_strview v;
    bool cut, null;
    if (!lf_arg_string(f, fields, &v, &cut, &null)) {
        a->kind = A_BAD;
        return;
    }
    a->kind = A_STR;
    if (null) {
        a->s = "(null)";
        return;
    }
    memcpy(text, v.ptr, v.len);
    memcpy(text + v.len, cut ? "..." : "", cut ? 4 : 1);
    a->kept = cut ? v.len : 0;
    for (size_t k = 0; k < v.len; k++)
        if (!text[k]) text[k] = ' '; /* a NUL inside would end the text early */
    a->s = text;
}

/* A BB_E enum (description "enum <repr>"): its label if it has one, and the number with the
 * repr's sign (the record holds it zero-extended from the repr width). */
static void enum_arg(const bb_rfield *f, const bb_value *v, arg *a) {
    static const char *const signed_reprs[] = {"enum int8", "enum int16", "enum int32",
                                               "enum int64"};
    a->kind = A_UINT, a->u = v->u;
    if (v->has_label) a->label = v->str;
    for (int k = 0; k < 4; k++) {
        if (!lf_desc_is(f, signed_reprs[k])) continue;
        unsigned bits = 8u << k;
        uint64_t u = v->u, m = bits == 64 ? 0 : (uint64_t)1 << (bits - 1);
        a->kind = A_INT;
        a->i = bits == 64 ? (int64_t)u : (int64_t)((u ^ m) - m); /* sign-extend */
        a->u = (uint64_t)a->i;
    }
}

/* Argument `i` of the record. `text` holds a string argument's bytes (LF_MAX_STR + 4). */
static arg get_arg(const bb_rschema *s, size_t i, const uint8_t *fields, const bb_rinstance *inst,
                   char *text) {
    arg a = {.kind = A_NONE};
    if (i >= s->field_count) return a;
    const bb_rfield *f = &s->fields[i];
    if ((size_t)f->offset + f->width > s->record_size) return a.kind = A_BAD, a;
    if (f->type == BB_TYPE_BYTES) {
        string_arg(f, fields, text, &a);
        return a;
    }
    if (lf_arg_is_double(f)) {
        a.d = lf_arg_double(f, fields);
        return a.kind = A_DBL, a;
    }
    bb_value v = bb_decode_field(s, i, fields, inst);
    switch (v.kind) {
    case BB_VALUE_UINT: a.kind = lf_desc_is(f, "pointer") ? A_PTR : A_UINT, a.u = v.u; break;
    case BB_VALUE_INT: a.kind = A_INT, a.i = v.i; break;
    case BB_VALUE_BOOL: a.kind = A_UINT, a.u = v.b; break;
    case BB_VALUE_ENUM: enum_arg(f, &v, &a); break;
    case BB_VALUE_STRING:
        a.kind = A_STR;
        if (v.has_label) {
            size_t n = v.str.len < LF_MAX_STR ? v.str.len : LF_MAX_STR;
            memcpy(text, v.str.ptr, n);
            text[n] = '\0';
            for (size_t k = 0; k < n; k++)
                if (!text[k]) text[k] = ' ';
        } else {
            snprintf(text, LF_MAX_STR, "#%llu", (unsigned long long)v.u);
        }
        a.s = text;
        break;
    default: a.kind = A_BAD; break;
    }
    return a;
}

/* One conversion spec, parsed. */
typedef struct spec {
    char flags[8];
    int nflags;
    int width, prec; /* -1: none; after '*' resolved */
    char len[3];     /* "", "hh", "h", "l", "ll", "j", "z", "t", "L" */
    char conv;
    int pos; /* POSIX "%n$": the argument's number (1 the first), 0 none */
} spec;

static int64_t as_int(const arg *a) {
    return a->kind == A_INT ? a->i : a->kind == A_DBL ? (int64_t)a->d : (int64_t)a->u;
}
static uint64_t as_uint(const arg *a) { return a->kind == A_INT ? (uint64_t)a->i : a->u; }

/* A decimal int (0..LF_MAX_WIDTH) at buf; the bytes written. */
static int decimal(char *buf, int v) {
    char t[12];
    int n = 0, k = 0;
    do t[n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    while (n) buf[k++] = t[--n];
    return k;
}

static void conv_text(const spec *sp, char *buf) {
    int n = 0;
    buf[n++] = '%';
    for (int k = 0; k < sp->nflags; k++) buf[n++] = sp->flags[k];
    if (sp->width >= 0) n += decimal(buf + n, sp->width);
    if (sp->prec >= 0) buf[n++] = '.', n += decimal(buf + n, sp->prec);
    for (int k = 0; sp->len[k]; k++) buf[n++] = sp->len[k];
    buf[n++] = sp->conv;
    buf[n] = '\0';
}

static bool has_flag(const spec *sp, char f) {
    return memchr(sp->flags, f, (size_t)sp->nflags) != NULL;
}

/* An integer conversion without snprintf (number.c), unless a flag asks for the locale (' I). */
static bool emit_number(out *o, const spec *sp, bool neg, uint64_t mag) {
    if (has_flag(sp, '\'') || has_flag(sp, 'I') || sp->conv == 'b' || sp->conv == 'B') return false;
    lf_numspec ns = {has_flag(sp, '-'), has_flag(sp, '+'), has_flag(sp, ' '), has_flag(sp, '#'),
                     has_flag(sp, '0'), sp->width,         sp->prec,          sp->conv};
    o->len += lf_number(&ns, neg, mag, o->p + o->len, o->cap - 1 - o->len);
    o->p[o->len] = '\0';
    return true;
}

/* The value a signed conversion's length modifier makes of v. */
static int64_t signed_len(const spec *sp, int64_t v) {
    switch (sp->len[0]) {
    case 'h': return sp->len[1] == 'h' ? (signed char)v : (short)v;
    case 'l':
    case 'j':
    case 'z':
    case 't': return v;
    default: return (int)v;
    }
}

/* The value an unsigned conversion's length modifier makes of v. */
static uint64_t unsigned_len(const spec *sp, uint64_t v) {
    switch (sp->len[0]) {
    case 'h': return sp->len[1] == 'h' ? (unsigned char)v : (unsigned short)v;
    case 'l':
    case 'j':
    case 'z':
    case 't': return v;
    default: return (unsigned)v;
    }
}

static void emit_signed(out *o, const char *f, const spec *sp, int64_t v) {
    int64_t w = signed_len(sp, v);
    if (emit_number(o, sp, w < 0, w < 0 ? 0 - (uint64_t)w : (uint64_t)w)) return;
    size_t room = o->cap - o->len;
    char *d = o->p + o->len;
    int n;
    if (!strcmp(sp->len, "hh")) n = snprintf(d, room, f, (int)(signed char)v);
    else if (!strcmp(sp->len, "h")) n = snprintf(d, room, f, (int)(short)v);
    else if (!strcmp(sp->len, "l")) n = snprintf(d, room, f, (long)v);
    else if (!strcmp(sp->len, "ll")) n = snprintf(d, room, f, (long long)v);
    else if (!strcmp(sp->len, "j")) n = snprintf(d, room, f, (intmax_t)v);
    else if (!strcmp(sp->len, "z")) n = snprintf(d, room, f, (ssize_t)v);
    else if (!strcmp(sp->len, "t")) n = snprintf(d, room, f, (ptrdiff_t)v);
    else n = snprintf(d, room, f, (int)v);
    if (n > 0) o->len += (size_t)n < room ? (size_t)n : room - 1;
}

static void emit_unsigned(out *o, const char *f, const spec *sp, uint64_t v) {
    if (emit_number(o, sp, false, unsigned_len(sp, v))) return;
    size_t room = o->cap - o->len;
    char *d = o->p + o->len;
    int n;
    if (!strcmp(sp->len, "hh")) n = snprintf(d, room, f, (unsigned)(unsigned char)v);
    else if (!strcmp(sp->len, "h")) n = snprintf(d, room, f, (unsigned)(unsigned short)v);
    else if (!strcmp(sp->len, "l")) n = snprintf(d, room, f, (unsigned long)v);
    else if (!strcmp(sp->len, "ll")) n = snprintf(d, room, f, (unsigned long long)v);
    else if (!strcmp(sp->len, "j")) n = snprintf(d, room, f, (uintmax_t)v);
    else if (!strcmp(sp->len, "z")) n = snprintf(d, room, f, (size_t)v);
    else if (!strcmp(sp->len, "t")) n = snprintf(d, room, f, (ptrdiff_t)v);
    else n = snprintf(d, room, f, (unsigned)v);
    if (n > 0) o->len += (size_t)n < room ? (size_t)n : room - 1;
}

/* Text padded to the spec's width (left-justified with '-'), as %s prints it. */
static void emit_text(out *o, const spec *sp, const char *text, size_t n) {
    size_t pad = sp->width > 0 && (size_t)sp->width > n ? (size_t)sp->width - n : 0;
    bool left = has_flag(sp, '-');
    static const char spaces[] = "                                ";
    for (size_t k = 0; !left && k < pad; k += sizeof spaces - 1)
        put(o, spaces, pad - k < sizeof spaces - 1 ? pad - k : sizeof spaces - 1);
    put(o, text, n);
    for (size_t k = 0; left && k < pad; k += sizeof spaces - 1)
        put(o, spaces, pad - k < sizeof spaces - 1 ? pad - k : sizeof spaces - 1);
}

/* The UTF-8 bytes of code point c (U+FFFD for a surrogate or a value past U+10FFFF): %lc
 * prints what a UTF-8 locale's printf prints, whatever the reader's locale. */
static size_t utf8_of(uint64_t c, char *u) {
    if (c >= 0xD800 && (c < 0xE000 || c > 0x10FFFF)) c = 0xFFFD;
    if (c < 0x80) return u[0] = (char)c, 1;
    if (c < 0x800) return u[0] = (char)(0xC0 | c >> 6), u[1] = (char)(0x80 | (c & 0x3F)), 2;
    if (c < 0x10000) {
        u[0] = (char)(0xE0 | c >> 12), u[1] = (char)(0x80 | (c >> 6 & 0x3F));
        return u[2] = (char)(0x80 | (c & 0x3F)), 3;
    }
    u[0] = (char)(0xF0 | c >> 18), u[1] = (char)(0x80 | (c >> 12 & 0x3F));
    u[2] = (char)(0x80 | (c >> 6 & 0x3F)), u[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* Format one conversion with its argument. */
static void emit(out *o, const spec *sp, const arg *a) {
    char f[64];
    conv_text(sp, f); /* for snprintf */
    size_t room = o->cap - o->len;
    char *d = o->p + o->len;
    int n = -1;
    if (a->kind == A_NONE) {
        put(o, "(missing)", 9);
        return;
    }
    if (a->label.ptr && strchr("diu", sp->conv)) { /* a BB_E enum's label; no precision */
        emit_text(o, sp, a->label.ptr, a->label.len < LF_MAX_STR ? a->label.len : LF_MAX_STR);
        return;
    }
    switch (sp->conv) {
    case 'd':
    case 'i':
        if (a->kind == A_STR || a->kind == A_BAD) break;
        emit_signed(o, f, sp, as_int(a));
        return;
    case 'o':
    case 'u':
    case 'x':
    case 'X':
    case 'b': /* C23, glibc 2.35 */
    case 'B':
        if (a->kind == A_STR || a->kind == A_BAD || a->kind == A_DBL) break;
        emit_unsigned(o, f, sp, as_uint(a));
        return;
    case 'c':
    case 'C':
        if (a->kind != A_INT && a->kind != A_UINT) break;
        if (sp->conv == 'C' || !strcmp(sp->len, "l")) { /* a wide character, as UTF-8 */
            char u8[4];
            emit_text(o, sp, u8, utf8_of(as_uint(a), u8));
        } else {
            char ch = (char)(unsigned char)as_int(a);
            emit_text(o, sp, &ch, 1);
        }
        return;
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
    case 'a':
    case 'A':
        if (a->kind != A_DBL) break;
        if (!strcmp(sp->len, "L")) n = snprintf(d, room, f, (long double)a->d);
        else n = snprintf(d, room, f, a->d);
        break;
    case 's':
        if (a->kind != A_STR || sp->len[0]) break;
        /* a precision within a cut string's kept bytes cuts as printf would; past them the
         * marker stays whole (the text went on) */
        emit_text(o, sp, a->s,
                  sp->prec >= 0 && (!a->kept || (size_t)sp->prec <= a->kept)
                      ? strnlen(a->s, (size_t)sp->prec)
                      : strlen(a->s));
        return;
    case 'p':
        if (a->kind != A_PTR && a->kind != A_UINT) break;
        if (sp->nflags == 0 && sp->width < 0 && sp->prec < 0) { /* glibc's plain %p */
            if (a->u == 0) {
                put(o, "(nil)", 5);
                return;
            }
            lf_numspec ns = {false, false, false, true, false, -1, -1, 'x'};
            o->len += lf_number(&ns, false, a->u, o->p + o->len, o->cap - 1 - o->len);
            o->p[o->len] = '\0';
            return;
        }
        n = snprintf(d, room, f, (void *)(uintptr_t)a->u);
        break;
    default: break;
    }
    if (n < 0) {
        put(o, "(invalid)", 9);
        return;
    }
    o->len += (size_t)n < room ? (size_t)n : room - 1;
}

/* A decimal number of the format, clamped. */
static int number(const char **p, const char *end) {
    long v = 0;
    while (*p < end && **p >= '0' && **p <= '9') {
        v = v * 10 + (**p - '0');
        if (v > LF_MAX_WIDTH) v = LF_MAX_WIDTH;
        (*p)++;
    }
    return (int)v;
}

/* An int argument for '*' (width or precision). */
/* POSIX's "n$" at *q (n >= 1, passed over): n; else 0 and *q unmoved. */
static int position(const char **q, const char *end) {
    const char *d = *q;
    while (d < end && *d >= '0' && *d <= '9') d++;
    if (d == *q || d >= end || *d != '$' || **q == '0') return 0;
    const char *p = *q;
    int n = number(&p, end);
    *q = d + 1;
    return n;
}

/* The value of a '*' (the next argument, or argument `at` when "*n$" named it). */
static int star(const bb_rschema *s, size_t *ai, int at, const uint8_t *fields,
                const bb_rinstance *inst, char *text) {
    arg a = get_arg(s, at > 0 ? (size_t)at - 1 : (*ai)++, fields, inst, text);
    int64_t v = a.kind == A_INT || a.kind == A_UINT ? as_int(&a) : 0;
    if (v > LF_MAX_WIDTH) v = LF_MAX_WIDTH;
    if (v < -LF_MAX_WIDTH) v = -LF_MAX_WIDTH;
    return (int)v;
}

/* Parse the spec after '%' at *p; false (and *p unmoved) if it is no conversion. */
static bool parse_spec(const char **p, const char *end, spec *sp, const bb_rschema *s, size_t *ai,
                       const uint8_t *fields, const bb_rinstance *inst, char *text) {
    const char *q = *p;
    memset(sp, 0, sizeof *sp);
    sp->width = sp->prec = -1;
    sp->pos = position(&q, end);
    while (q < end && strchr("-+ #0'I", *q) && *q) {
        if (sp->nflags < 7) sp->flags[sp->nflags++] = *q;
        q++;
    }
    if (q < end && *q == '*') {
        q++;
        int at = position(&q, end);
        int w = star(s, ai, at, fields, inst, text);
        if (w < 0) {
            if (sp->nflags < 7) sp->flags[sp->nflags++] = '-';
            w = -w;
        }
        sp->width = w;
    } else if (q < end && *q >= '0' && *q <= '9') {
        sp->width = number(&q, end);
    }
    if (q < end && *q == '.') {
        q++;
        if (q < end && *q == '*') {
            q++;
            int at = position(&q, end);
            int pr = star(s, ai, at, fields, inst, text);
            sp->prec = pr < 0 ? -1 : pr;
        } else {
            sp->prec = number(&q, end);
        }
    }
    int n = 0;
    while (q < end && n < 2 && strchr("hlLjztq", *q) && *q) sp->len[n++] = *q++;
    if (!strcmp(sp->len, "q")) strcpy(sp->len, "ll");
    if (q >= end) return false;
    sp->conv = *q++;
    *p = q;
    return true;
}

size_t lf_format(const lf_site *site, const bb_rschema *s, const uint8_t *fields,
                 const bb_rinstance *inst, char *buf, size_t cap) {
    if (!cap) return 0;
    out o = {buf, 0, cap};
    buf[0] = '\0';
    char text[LF_MAX_STR + 4];
    const char *p = site->format.ptr, *end = p + site->format.len;
    size_t ai = 0;
    while (p < end) {
        const char *pct = memchr(p, '%', (size_t)(end - p));
        if (!pct) pct = end;
        put(&o, p, (size_t)(pct - p));
        if (pct == end) break;
        p = pct + 1;
        spec sp;
        if (!parse_spec(&p, end, &sp, s, &ai, fields, inst, text)) {
            put(&o, pct, (size_t)(end - pct));
            break;
        }
        if (sp.conv == '%') put(&o, "%", 1);
        else if (sp.conv == 'n') ai++;
        else if (sp.conv == 'm') put(&o, "(errno)", 7);
        else if (!strchr("diouxXbBcCeEfFgGaAsp", sp.conv)) put(&o, pct, (size_t)(p - pct));
        else {
            arg a = get_arg(s, sp.pos > 0 ? (size_t)sp.pos - 1 : ai++, fields, inst, text);
            emit(&o, &sp, &a);
        }
    }
    return o.len;
}
