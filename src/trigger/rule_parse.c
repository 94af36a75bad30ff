/* rule_parse.c — the grammar of trigger rules (rule.h): text to tg_rule, errors with columns. */
/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "trigger/rule.h"

/* A cursor over one rule: [p, end) of the whole text `base` (for columns). */
typedef struct cur {
    const char *base, *p, *end;
    const char *rule; /* the rule's first character */
    size_t rule_len;
    char *err;
    size_t errcap;
} cur;

static size_t col_of(const cur *c, const char *at) { return (size_t)(at - c->base) + 1; }

static bool fail(cur *c, const char *at, const char *what) {
    snprintf(c->err, c->errcap, "rule '%.*s': column %zu: %s", (int)c->rule_len, c->rule,
             col_of(c, at), what);
    return false;
}

static void skip_ws(cur *c) {
    while (c->p < c->end && isspace((unsigned char)*c->p)) c->p++;
}

/* A word: everything up to white space or an operator character. */
static size_t word(cur *c, const char **start) {
    skip_ws(c);
    *start = c->p;
    while (c->p < c->end && !isspace((unsigned char)*c->p) && !strchr("=!<>\"", *c->p)) c->p++;
    return (size_t)(c->p - *start);
}

static bool copy_word(cur *c, const char *s, size_t n, char *out, size_t cap, const char *what) {
    if (n == 0) {
        char m[96];
        snprintf(m, sizeof m, "expected %s", what);
        return fail(c, s, m);
    }
    if (n >= cap) {
        char m[96];
        snprintf(m, sizeof m, "%s longer than %zu bytes", what, cap - 1);
        return fail(c, s, m);
    }
    memcpy(out, s, n);
    out[n] = '\0';
    return true;
}

bool tg_parse_duration(const char *s, uint64_t *ns) {
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s)) return false;
    double v = strtod(s, &end);
    if (errno || end == s || !(v >= 0 && v < 1e300)) return false;
    double mult;
    if (!strcmp(end, "ns")) mult = 1;
    else if (!strcmp(end, "us")) mult = 1e3;
    else if (!strcmp(end, "ms")) mult = 1e6;
    else if (!strcmp(end, "s")) mult = 1e9;
    else if (!*end && v == 0) mult = 0;
    else return false;
    if (v * mult >= 1.8e19) return false;
    *ns = (uint64_t)(v * mult + 0.5);
    return true;
}

static bool parse_op(cur *c, tg_op *op) {
    static const struct {
        const char *s;
        tg_op op;
    } ops[] = {{"==", TG_EQ}, {"!=", TG_NE}, {"<=", TG_LE},
               {">=", TG_GE}, {"<", TG_LT},  {">", TG_GT}};
    skip_ws(c);
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        size_t n = strlen(ops[k].s);
        if ((size_t)(c->end - c->p) >= n && !memcmp(c->p, ops[k].s, n)) {
            c->p += n;
            *op = ops[k].op;
            return true;
        }
    }
    return fail(c, c->p,
                c->p < c->end ? "expected an operator (== != < <= > >=)"
                              : "expected an operator (== != < <= > >=) after the field");
}

static bool parse_string(cur *c, tg_rule *r) {
    const char *q = c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != '"') {
        if (*c->p == '\\' && c->p + 1 < c->end) c->p++;
        if (n + 1 >= sizeof r->str) return fail(c, q, "string longer than 127 bytes");
        r->str[n++] = *c->p++;
    }
    if (c->p >= c->end) return fail(c, q, "unterminated string (missing '\"')");
    c->p++;
    r->str[n] = '\0';
    r->vkind = TG_V_STRING;
    return true;
}

/* An integer, a float or a label. */
static bool parse_scalar(cur *c, tg_rule *r, const char *s, size_t n) {
    char buf[64];
    if (n >= sizeof buf) return fail(c, s, "value too long");
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (isalpha((unsigned char)buf[0]) || buf[0] == '_') {
        for (size_t k = 0; k < n; k++)
            if (!isalnum((unsigned char)buf[k]) && buf[k] != '_' && buf[k] != '-' && buf[k] != '.')
                return fail(c, s + k, "a label is letters, digits, '_', '-' and '.'");
        memcpy(r->str, buf, n + 1);
        r->vkind = TG_V_LABEL;
        return true;
    }
    const char *d = buf[0] == '-' || buf[0] == '+' ? buf + 1 : buf;
    char *end;
    errno = 0;
    unsigned long long m = strtoull(d, &end, 0);
    if (isdigit((unsigned char)*d) && !*end && !errno) {
        r->vkind = TG_V_INT;
        r->neg = buf[0] == '-' && m != 0;
        r->mag = m;
        r->fval = r->neg ? -(double)m : (double)m;
        if (r->neg && m > (1ull << 63)) return fail(c, s, "integer out of range");
        return true;
    }
    errno = 0;
    double f = strtod(buf, &end);
    if (end == buf || *end || errno || !(f > -1e300 && f < 1e300))
        return fail(c, s, "expected a number, a label or a \"string\"");
    r->vkind = TG_V_FLOAT;
    r->fval = f;
    return true;
}

static bool parse_value(cur *c, tg_rule *r) {
    skip_ws(c);
    r->value_col = col_of(c, c->p);
    if (c->p < c->end && *c->p == '"') return parse_string(c, r);
    const char *s;
    size_t n = word(c, &s);
    if (!n) return fail(c, s, "expected a value after the operator");
    return parse_scalar(c, r, s, n);
}

static bool parse_span(cur *c, tg_rule *r) {
    const char *s;
    size_t n = word(c, &s);
    if (!copy_word(c, s, n, r->pattern, sizeof r->pattern, "a span event name after 'span'"))
        return false;
    skip_ws(c);
    if (c->p >= c->end || *c->p != '>' || (c->p + 1 < c->end && c->p[1] == '='))
        return fail(c, c->p, "expected '>' DURATION after the span's name");
    c->p++;
    n = word(c, &s);
    char d[32];
    if (!n) return fail(c, s, "expected a duration (250us, 50ms, 2s)");
    if (n >= sizeof d || (memcpy(d, s, n), d[n] = '\0', !tg_parse_duration(d, &r->duration_ns)))
        return fail(c, s, "bad duration (a number with ns, us, ms or s: 250us, 50ms, 2s)");
    r->kind = TG_SPAN;
    return true;
}

/* The level names, lowest first (as BACKBEAT_LOG_LEVEL and docs/LOG_LINES.md spell them). */
static const char *const levels[] = {"trace", "debug", "info", "warn", "error", "fatal"};

static int level_of(const char *s, size_t n) {
    for (int k = 0; k < 6; k++)
        if (strlen(levels[k]) == n && !strncasecmp(s, levels[k], n)) return k;
    return n == 7 && !strncasecmp(s, "warning", 7) ? 3 : -1;
}

/* 'log' OP LEVEL (after 'log'). */
static bool parse_log(cur *c, tg_rule *r) {
    if (!parse_op(c, &r->op)) return false;
    const char *s;
    size_t n = word(c, &s);
    r->value_col = col_of(c, s);
    if (!n) return fail(c, s, "expected a log level (trace, debug, info, warn, error, fatal)");
    if ((r->level = level_of(s, n)) < 0)
        return fail(c, s, "bad log level (trace, debug, info, warn, error or fatal)");
    r->kind = TG_LOG;
    return true;
}

static bool parse_one(cur *c, tg_rule *r) {
    const char *s;
    size_t n = word(c, &s);
    r->column = col_of(c, s);
    if (n == 4 && !memcmp(s, "span", 4)) {
        if (!parse_span(c, r)) return false;
    } else if (n == 3 && !memcmp(s, "log", 3)) {
        if (!parse_log(c, r)) return false;
    } else {
        if (!copy_word(c, s, n, r->pattern, sizeof r->pattern, "an event name")) return false;
        if (!strstr(r->pattern, "::") && !strchr(r->pattern, '*'))
            return fail(c, s, "expected a qualified event name (namespace::Name)");
        r->kind = TG_EVENT;
        skip_ws(c);
        if (c->p < c->end) {
            n = word(c, &s);
            r->field_col = col_of(c, s);
            if (!copy_word(c, s, n, r->field, sizeof r->field, "a field name")) return false;
            if (!parse_op(c, &r->op) || !parse_value(c, r)) return false;
            r->kind = TG_FIELD;
        }
    }
    skip_ws(c);
    if (c->p < c->end) return fail(c, c->p, "unexpected text after the rule");
    return true;
}

bool tg_parse(const char *text, tg_rule *out, size_t cap, size_t *n, char *err, size_t errcap) {
    *n = 0;
    const char *p = text;
    for (;;) {
        const char *semi = strchr(p, ';');
        const char *end = semi ? semi : p + strlen(p);
        const char *a = p, *b = end;
        while (a < b && isspace((unsigned char)*a)) a++;
        while (b > a && isspace((unsigned char)b[-1])) b--;
        if (a < b) {
            cur c = {text, a, b, a, (size_t)(b - a), err, errcap};
            if (*n == cap) {
                snprintf(err, errcap, "rule '%.*s': column %zu: more than %zu rules",
                         (int)c.rule_len, a, col_of(&c, a), cap);
                return false;
            }
            tg_rule *r = &out[*n];
            memset(r, 0, sizeof *r);
            if ((size_t)(b - a) >= sizeof r->text) return fail(&c, a, "rule longer than 255 bytes");
            memcpy(r->text, a, (size_t)(b - a));
            if (!parse_one(&c, r)) return false;
            (*n)++;
        }
        if (!semi) break;
        p = semi + 1;
    }
    return true;
}

bool tg_names(const tg_rule *r, const char *name) {
    return r->kind != TG_LOG && fnmatch(r->pattern, name, 0) == 0;
}

int tg_log_site_level(const char *name, const char *desc, size_t desc_len) {
    static const char ns[] = "backbeat.log::", head[] = "backbeat-log 1\nlevel: ";
    if (!name || !desc || strncmp(name, ns, sizeof ns - 1) != 0 || desc_len < sizeof head - 1 ||
        memcmp(desc, head, sizeof head - 1) != 0)
        return -1;
    const char *l = desc + sizeof head - 1, *e = l;
    while (e < desc + desc_len && *e != '\n') e++;
    return level_of(l, (size_t)(e - l));
}

bool tg_log_fires(const tg_rule *r, int level) {
    if (r->kind != TG_LOG || level < 0) return false;
    switch (r->op) {
    case TG_EQ: return level == r->level;
    case TG_NE: return level != r->level;
    case TG_LT: return level < r->level;
    case TG_LE: return level <= r->level;
    case TG_GT: return level > r->level;
    case TG_GE: return level >= r->level;
    }
    return false;
}

bool tg_closes_span(const tg_rule *r, const char *name) {
    if (tg_names(r, name)) return true;
    const char *last = NULL;
    for (const char *p = strstr(r->pattern, "::"); p; p = strstr(p + 2, "::")) last = p;
    if (!last) return false;
    char ns[TG_NAME_MAX + 4];
    size_t n = (size_t)(last - r->pattern);
    memcpy(ns, r->pattern, n);
    memcpy(ns + n, "::*", 4);
    return fnmatch(ns, name, 0) == 0;
}
