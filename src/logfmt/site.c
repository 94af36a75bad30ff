/* site.c — which schema is a log call site, and its level, file, line, function and format read
 * from the description (docs/LOG_LINES.md); a cache of them by schema. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "logfmt/logfmt.h"

static const char *const levels[] = {"trace", "debug", "info", "warn", "error", "fatal"};
static const char prefix[] = "backbeat.log::";
static const char magic[] = "backbeat-log 1\n";

const char *lf_level_name(int level) { return level >= 0 && level <= 5 ? levels[level] : "?"; }

bool lf_level_parse(const char *name, int *out) {
    for (int i = 0; name && i < 6; i++)
        if (!strcasecmp(name, levels[i])) return *out = i, true;
    if (name && !strcasecmp(name, "warning")) return *out = 3, true;
    return false;
}

/* The value of line `key: value` at *p (which it passes); false when the line is not that. */
static bool take(const char **p, const char *end, const char *key, bb_strview *out, bool rest) {
    size_t k = strlen(key);
    if ((size_t)(end - *p) < k + 2 || memcmp(*p, key, k) != 0 || memcmp(*p + k, ": ", 2) != 0)
        return false;
    const char *v = *p + k + 2;
    const char *nl = rest ? end : memchr(v, '\n', (size_t)(end - v));
    if (!nl) return false;
    *out = (bb_strview){v, (size_t)(nl - v)};
    *p = rest ? end : nl + 1;
    return true;
}

static bool parse_uint(bb_strview s, uint32_t *out) {
    uint64_t n = 0;
    if (s.len == 0 || s.len > 10) return false;
    for (size_t i = 0; i < s.len; i++) {
        if (s.ptr[i] < '0' || s.ptr[i] > '9') return false;
        n = n * 10 + (uint64_t)(s.ptr[i] - '0');
    }
    if (n > UINT32_MAX) return false;
    *out = (uint32_t)n;
    return true;
}

bb_strview lf_file_shown(bb_strview p) {
    if (p.len && p.ptr[0] == '/') {
        size_t k = p.len;
        while (k > 0 && p.ptr[k - 1] != '/') k--;
        return k < p.len ? (bb_strview){p.ptr + k, p.len - k} : p;
    }
    for (;;) {
        size_t k = p.len >= 2 && !memcmp(p.ptr, "./", 2)    ? 2
                   : p.len >= 3 && !memcmp(p.ptr, "../", 3) ? 3
                                                            : 0;
        if (!k || k == p.len) return p;
        p.ptr += k, p.len -= k;
    }
}

bool lf_site_parse(const bb_rschema *schema, lf_site *out) {
    if (!schema || !schema->has_description || schema->name.len < sizeof prefix - 1 ||
        memcmp(schema->name.ptr, prefix, sizeof prefix - 1) != 0)
        return false;
    const char *p = schema->description.ptr, *end = p + schema->description.len;
    if ((size_t)(end - p) < sizeof magic - 1 || memcmp(p, magic, sizeof magic - 1) != 0)
        return false;
    p += sizeof magic - 1;
    bb_strview level, line;
    lf_site s;
    if (!take(&p, end, "level", &level, false) || !take(&p, end, "file", &s.file, false) ||
        !take(&p, end, "line", &line, false) || !take(&p, end, "function", &s.function, false) ||
        !take(&p, end, "format", &s.format, true) || !parse_uint(line, &s.line))
        return false;
    s.path = s.file;
    s.file = lf_file_shown(s.path);
    s.level = -1;
    for (int i = 0; i < 6; i++) {
        if (level.len == strlen(levels[i]) && memcmp(level.ptr, levels[i], level.len) == 0)
            s.level = i;
    }
    if (s.level < 0) return false;
    *out = s;
    return true;
}

struct lf_cache_slot {
    const bb_rschema *schema; /* NULL: empty */
    bool is_log;
    lf_site site;
};

struct lf_cache {
    struct lf_cache_slot *slots;
    size_t cap, used; /* cap a power of two */
};

lf_cache *lf_cache_new(void) { return calloc(1, sizeof(lf_cache)); }

void lf_cache_free(lf_cache *c) {
    if (!c) return;
    free(c->slots);
    free(c);
}

static size_t slot_of(const lf_cache *c, const bb_rschema *s) {
    size_t h = (size_t)(((uintptr_t)s >> 4) * 0x9E3779B97F4A7C15ull);
    size_t i = h & (c->cap - 1);
    while (c->slots[i].schema && c->slots[i].schema != s) i = (i + 1) & (c->cap - 1);
    return i;
}

static bool grow(lf_cache *c) {
    size_t ncap = c->cap ? c->cap * 2 : 64;
    struct lf_cache_slot *old = c->slots;
    size_t ocap = c->cap;
    c->slots = calloc(ncap, sizeof *c->slots);
    if (!c->slots) return c->slots = old, false;
    c->cap = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].schema) c->slots[slot_of(c, old[i].schema)] = old[i];
    free(old);
    return true;
}

const lf_site *lf_cache_get(lf_cache *c, const bb_rschema *schema) {
    if (!c || !schema) return NULL;
    if ((c->used + 1) * 2 > c->cap && !grow(c)) return NULL;
    struct lf_cache_slot *s = &c->slots[slot_of(c, schema)];
    if (!s->schema) {
        s->schema = schema;
        s->is_log = lf_site_parse(schema, &s->site);
        c->used++;
    }
    return s->is_log ? &s->site : NULL;
}
