/* json.c — the test-only JSON parser declared in json.h (recursive descent over a buffer). */
/* SPDX-License-Identifier: MIT */
#include "json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct json_value {
    json_kind kind;
    bool b;
    char *text; /* string contents or number source text */
    size_t text_len;
    size_t count; /* array elements / object members */
    char **keys;  /* object keys */
    json_value **items;
};

typedef struct parser {
    const char *p, *end;
    char *err;
    size_t errlen;
    int depth;
} parser;

static void fail(parser *ps, const char *what) {
    if (ps->err && ps->errlen && !ps->err[0]) snprintf(ps->err, ps->errlen, "json: %s", what);
}

static void skip_ws(parser *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
        ps->p++;
}

static json_value *new_value(json_kind k) {
    json_value *v = calloc(1, sizeof *v);
    if (v) v->kind = k;
    return v;
}

static bool push(json_value *v, char *key, json_value *item) {
    char **nk = v->keys;
    if (v->kind == JSON_OBJECT) {
        nk = realloc(v->keys, (v->count + 1) * sizeof *nk);
        if (!nk) return false;
        v->keys = nk;
    }
    json_value **ni = realloc(v->items, (v->count + 1) * sizeof *ni);
    if (!ni) return false;
    v->items = ni;
    if (v->kind == JSON_OBJECT) v->keys[v->count] = key;
    v->items[v->count++] = item;
    return true;
}

static void put_utf8(char *out, size_t *n, uint32_t cp) {
    if (cp < 0x80) out[(*n)++] = (char)cp;
    else if (cp < 0x800) {
        out[(*n)++] = (char)(0xC0 | (cp >> 6));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out[(*n)++] = (char)(0xE0 | (cp >> 12));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*n)++] = (char)(0xF0 | (cp >> 18));
        out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    }
}

static bool hex4(parser *ps, uint32_t *out) {
    if (ps->end - ps->p < 4) return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = *ps->p++;
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (uint32_t)(c - 'A' + 10);
        else return false;
    }
    *out = v;
    return true;
}

/* Parse a string starting after the opening quote; returns malloc'ed text. */
static char *parse_string(parser *ps, size_t *len_out) {
    /* Escapes never expand: output is at most as long as the input span. */
    const char *start = ps->p;
    while (ps->p < ps->end && *ps->p != '"') {
        if (*ps->p == '\\') ps->p++;
        ps->p++;
    }
    if (ps->p >= ps->end) {
        fail(ps, "unterminated string");
        return NULL;
    }
    size_t span = (size_t)(ps->p - start);
    ps->p = start;
    char *out = malloc(span + 4);
    if (!out) {
        fail(ps, "out of memory");
        return NULL;
    }
    size_t n = 0;
    while (*ps->p != '"') {
        char c = *ps->p++;
        if (c != '\\') {
            out[n++] = c;
            continue;
        }
        c = *ps->p++;
        switch (c) {
        case '"': out[n++] = '"'; break;
        case '\\': out[n++] = '\\'; break;
        case '/': out[n++] = '/'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'u': {
            uint32_t cp;
            if (!hex4(ps, &cp)) {
                fail(ps, "bad \\u escape");
                free(out);
                return NULL;
            }
            if (cp >= 0xD800 && cp < 0xDC00 && ps->end - ps->p >= 6 && ps->p[0] == '\\' &&
                ps->p[1] == 'u') {
                const char *save = ps->p;
                uint32_t lo;
                ps->p += 2;
                if (hex4(ps, &lo) && lo >= 0xDC00 && lo < 0xE000)
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                else ps->p = save;
            }
            put_utf8(out, &n, cp);
            break;
        }
        default:
            fail(ps, "bad escape");
            free(out);
            return NULL;
        }
    }
    ps->p++; /* closing quote */
    out[n] = 0;
    *len_out = n;
    return out;
}

static json_value *parse_value(parser *ps);

static json_value *parse_container(parser *ps, bool object) {
    json_value *v = new_value(object ? JSON_OBJECT : JSON_ARRAY);
    if (!v) return NULL;
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == (object ? '}' : ']')) {
        ps->p++;
        return v;
    }
    for (;;) {
        char *key = NULL;
        skip_ws(ps);
        if (object) {
            size_t kl;
            if (ps->p >= ps->end || *ps->p != '"') {
                fail(ps, "expected key");
                goto bad;
            }
            ps->p++;
            if (!(key = parse_string(ps, &kl))) goto bad;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                free(key);
                fail(ps, "expected ':'");
                goto bad;
            }
            ps->p++;
        }
        json_value *item = parse_value(ps);
        if (!item || !push(v, key, item)) {
            free(key);
            json_free(item);
            goto bad;
        }
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == (object ? '}' : ']')) {
            ps->p++;
            return v;
        }
        fail(ps, "expected ',' or closing bracket");
        goto bad;
    }
bad:
    json_free(v);
    return NULL;
}

static json_value *parse_value(parser *ps) {
    skip_ws(ps);
    if (ps->p >= ps->end) {
        fail(ps, "unexpected end");
        return NULL;
    }
    if (++ps->depth > 200) {
        fail(ps, "nesting too deep");
        return NULL;
    }
    json_value *v = NULL;
    char c = *ps->p;
    if (c == '{' || c == '[') {
        v = parse_container(ps, c == '{');
    } else if (c == '"') {
        ps->p++;
        size_t n;
        char *s = parse_string(ps, &n);
        if (s && (v = new_value(JSON_STRING))) {
            v->text = s;
            v->text_len = n;
        } else free(s);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        const char *s = ps->p;
        while (ps->p < ps->end && strchr("+-0123456789.eE", *ps->p)) ps->p++;
        size_t n = (size_t)(ps->p - s);
        if ((v = new_value(JSON_NUMBER)) && (v->text = malloc(n + 1))) {
            memcpy(v->text, s, n);
            v->text[n] = 0;
            v->text_len = n;
        } else {
            json_free(v);
            v = NULL;
            fail(ps, "out of memory");
        }
    } else if (ps->end - ps->p >= 4 && !memcmp(ps->p, "true", 4)) {
        ps->p += 4;
        if ((v = new_value(JSON_BOOL))) v->b = true;
    } else if (ps->end - ps->p >= 5 && !memcmp(ps->p, "false", 5)) {
        ps->p += 5;
        v = new_value(JSON_BOOL);
    } else if (ps->end - ps->p >= 4 && !memcmp(ps->p, "null", 4)) {
        ps->p += 4;
        v = new_value(JSON_NULL);
    } else {
        fail(ps, "unexpected character");
    }
    ps->depth--;
    return v;
}

json_value *json_parse(const char *text, size_t len, char *err, size_t errlen) {
    parser ps = {text, text + len, err, errlen, 0};
    if (err && errlen) err[0] = 0;
    json_value *v = parse_value(&ps);
    skip_ws(&ps);
    if (v && ps.p != ps.end) {
        fail(&ps, "trailing characters");
        json_free(v);
        v = NULL;
    }
    return v;
}

json_value *json_parse_file(const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err) snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    do {
        if (cap - len < 65536) {
            char *nb = realloc(buf, cap = cap * 2 + 65536);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        n = fread(buf + len, 1, cap - len, f);
        len += n;
    } while (n > 0);
    fclose(f);
    json_value *v = json_parse(buf, len, err, errlen);
    if (!v && err) {
        char inner[200];
        snprintf(inner, sizeof inner, "%s", err);
        snprintf(err, errlen, "%s: %s", path, inner);
    }
    free(buf);
    return v;
}

void json_free(json_value *v) {
    if (!v) return;
    for (size_t i = 0; i < v->count; i++) {
        if (v->keys) free(v->keys[i]);
        json_free(v->items[i]);
    }
    free(v->keys);
    free(v->items);
    free(v->text);
    free(v);
}

json_kind json_kind_of(const json_value *v) { return v ? v->kind : JSON_NULL; }
bool json_is_null(const json_value *v) { return !v || v->kind == JSON_NULL; }

const json_value *json_get(const json_value *obj, const char *key) {
    if (!obj || obj->kind != JSON_OBJECT) return NULL;
    for (size_t i = 0; i < obj->count; i++)
        if (!strcmp(obj->keys[i], key)) return obj->items[i];
    return NULL;
}

size_t json_len(const json_value *v) {
    return v && (v->kind == JSON_ARRAY || v->kind == JSON_OBJECT) ? v->count : 0;
}

const json_value *json_at(const json_value *v, size_t i) {
    return i < json_len(v) ? v->items[i] : NULL;
}

const char *json_key_at(const json_value *obj, size_t i) {
    return obj && obj->kind == JSON_OBJECT && i < obj->count ? obj->keys[i] : NULL;
}

const char *json_str(const json_value *v) { return v && v->kind == JSON_STRING ? v->text : NULL; }
size_t json_str_len(const json_value *v) { return v && v->kind == JSON_STRING ? v->text_len : 0; }
bool json_bool(const json_value *v) { return v && v->kind == JSON_BOOL && v->b; }
const char *json_num_text(const json_value *v) {
    return v && v->kind == JSON_NUMBER ? v->text : NULL;
}
double json_num(const json_value *v) {
    return v && v->kind == JSON_NUMBER ? strtod(v->text, NULL) : 0;
}

/* Digits-only text (after an optional '-') to magnitude; false on overflow or junk. */
static bool digits_u64(const char *s, uint64_t *out) {
    if (!*s) return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9') return false;
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

static const char *int_text(const json_value *v) {
    if (!v || (v->kind != JSON_NUMBER && v->kind != JSON_STRING)) return NULL;
    return v->text;
}

bool json_u64(const json_value *v, uint64_t *out) {
    const char *t = int_text(v);
    return t && *t != '-' && digits_u64(t, out);
}

bool json_i64(const json_value *v, int64_t *out) {
    const char *t = int_text(v);
    uint64_t m;
    if (!t) return false;
    bool neg = *t == '-';
    if (!digits_u64(t + neg, &m)) return false;
    if (neg ? m > (uint64_t)INT64_MAX + 1 : m > (uint64_t)INT64_MAX) return false;
    *out = neg ? (int64_t)(0 - m) : (int64_t)m;
    return true;
}

bool json_hex_u64(const json_value *v, uint64_t *out) {
    const char *t = json_str(v);
    if (!t || strlen(t) == 0 || strlen(t) > 16) return false;
    uint64_t x = 0;
    for (; *t; t++) {
        int d;
        if (*t >= '0' && *t <= '9') d = *t - '0';
        else if (*t >= 'a' && *t <= 'f') d = *t - 'a' + 10;
        else if (*t >= 'A' && *t <= 'F') d = *t - 'A' + 10;
        else return false;
        x = x << 4 | (uint64_t)d;
    }
    *out = x;
    return true;
}

static bool where_fmt(char *where, size_t wl, const char *path, const char *why) {
    if (where && wl) snprintf(where, wl, "%s: %s", path, why);
    return false;
}

static bool equal_at(const json_value *a, const json_value *b, char *path, size_t plen, char *where,
                     size_t wl) {
    if (json_kind_of(a) != json_kind_of(b)) return where_fmt(where, wl, path, "kinds differ");
    switch (json_kind_of(a)) {
    case JSON_NULL: return true;
    case JSON_BOOL: return a->b == b->b ? true : where_fmt(where, wl, path, "booleans differ");
    case JSON_STRING:
        return a->text_len == b->text_len && !memcmp(a->text, b->text, a->text_len)
                   ? true
                   : where_fmt(where, wl, path, "strings differ");
    case JSON_NUMBER: {
        int64_t ia, ib;
        uint64_t ua, ub;
        if (json_i64(a, &ia) && json_i64(b, &ib))
            return ia == ib ? true : where_fmt(where, wl, path, "numbers differ");
        if (json_u64(a, &ua) && json_u64(b, &ub))
            return ua == ub ? true : where_fmt(where, wl, path, "numbers differ");
        return json_num(a) == json_num(b) ? true : where_fmt(where, wl, path, "numbers differ");
    }
    case JSON_ARRAY:
    case JSON_OBJECT: break;
    }
    if (a->count != b->count) return where_fmt(where, wl, path, "lengths differ");
    size_t base = strlen(path);
    for (size_t i = 0; i < a->count; i++) {
        const json_value *bi;
        if (a->kind == JSON_ARRAY) {
            bi = b->items[i];
            snprintf(path + base, plen - base, "[%zu]", i);
        } else {
            bi = json_get(b, a->keys[i]);
            snprintf(path + base, plen - base, ".%s", a->keys[i]);
            if (!bi) return where_fmt(where, wl, path, "member missing");
        }
        if (!equal_at(a->items[i], bi, path, plen, where, wl)) return false;
        path[base] = 0;
    }
    return true;
}

bool json_equal(const json_value *a, const json_value *b, char *where, size_t wherelen) {
    char path[512] = "$";
    return equal_at(a, b, path, sizeof path, where, wherelen);
}

static bool append(char **buf, size_t *len, size_t *cap, const char *s, size_t n) {
    if (*len + n + 1 > *cap) {
        size_t nc = (*cap ? *cap : 256);
        while (nc < *len + n + 1) nc *= 2;
        char *nb = realloc(*buf, nc);
        if (!nb) return false;
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = 0;
    return true;
}

static bool write_string(const char *s, size_t n, char **buf, size_t *len, size_t *cap) {
    if (!append(buf, len, cap, "\"", 1)) return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            if (!append(buf, len, cap, esc, 2)) return false;
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            if (!append(buf, len, cap, esc, 6)) return false;
        } else if (!append(buf, len, cap, (const char *)&s[i], 1)) return false;
    }
    return append(buf, len, cap, "\"", 1);
}

bool json_write(const json_value *v, char **buf, size_t *len, size_t *cap) {
    switch (json_kind_of(v)) {
    case JSON_NULL: return append(buf, len, cap, "null", 4);
    case JSON_BOOL:
        return v->b ? append(buf, len, cap, "true", 4) : append(buf, len, cap, "false", 5);
    case JSON_NUMBER: return append(buf, len, cap, v->text, v->text_len);
    case JSON_STRING: return write_string(v->text, v->text_len, buf, len, cap);
    case JSON_ARRAY:
    case JSON_OBJECT: break;
    }
    bool obj = v->kind == JSON_OBJECT;
    if (!append(buf, len, cap, obj ? "{" : "[", 1)) return false;
    for (size_t i = 0; i < v->count; i++) {
        if (i && !append(buf, len, cap, ",", 1)) return false;
        if (obj && (!write_string(v->keys[i], strlen(v->keys[i]), buf, len, cap) ||
                    !append(buf, len, cap, ":", 1)))
            return false;
        if (!json_write(v->items[i], buf, len, cap)) return false;
    }
    return append(buf, len, cap, obj ? "}" : "]", 1);
}
