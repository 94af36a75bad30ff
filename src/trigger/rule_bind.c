/* rule_bind.c — a field rule bound to an event's schema, and its evaluation on a record. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "trigger/rule.h"

static bool bind_fail(const tg_rule *r, size_t col, char *err, size_t cap, const char *what,
                      const char *arg) {
    char m[256];
    snprintf(m, sizeof m, what, arg);
    snprintf(err, cap, "rule '%s': column %zu: %s", r->text, col, m);
    return false;
}

static const bb_field_desc *find_field(const bb_event_desc *ev, const char *name) {
    for (uint16_t i = 0; i < ev->field_count; i++)
        if (ev->fields[i].name && !strcmp(ev->fields[i].name, name)) return &ev->fields[i];
    return NULL;
}

static bool is_signed(uint8_t t) { return t >= BB_TYPE_I8 && t <= BB_TYPE_I64; }

/* An integer or float VALUE against an integer field. */
static bool bind_number(const tg_rule *r, tg_cond *c) {
    if (r->vkind == TG_V_FLOAT) {
        c->cmp = TG_CMP_FLOAT;
        c->f = r->fval;
    } else if (is_signed(c->type)) {
        c->cmp = TG_CMP_SIGNED;
        c->i = r->neg ? (int64_t)(0 - r->mag) : (int64_t)r->mag;
        if (!r->neg && r->mag > INT64_MAX) {
            c->cmp = TG_CMP_FLOAT;
            c->f = r->fval;
        }
    } else if (r->neg) {
        c->cmp = TG_CMP_FLOAT; /* a negative bound on an unsigned field */
        c->f = r->fval;
    } else {
        c->cmp = TG_CMP_UNSIGNED;
        c->u = r->mag;
    }
    return true;
}

static bool bind_label(const tg_rule *r, const bb_field_desc *f, tg_cond *c, char *err,
                       size_t cap) {
    for (uint16_t k = 0; k < f->label_count; k++)
        if (f->labels[k].label && !strcmp(f->labels[k].label, r->str)) {
            c->cmp = TG_CMP_UNSIGNED;
            c->u = f->labels[k].value;
            return true;
        }
    char known[160] = "";
    size_t n = 0;
    for (uint16_t k = 0; k < f->label_count && n + 2 < sizeof known; k++)
        n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", k ? ", " : "",
                              f->labels[k].label ? f->labels[k].label : "?");
    char m[200];
    snprintf(m, sizeof m, "field '%s' has no label '%%s' (labels: %s)", f->name, known);
    return bind_fail(r, r->value_col, err, cap, m, r->str);
}

static bool bind_value(const tg_rule *r, const bb_field_desc *f,
                       uint32_t (*intern)(void *, const char *), void *ictx, tg_cond *c, char *err,
                       size_t cap) {
    if (f->type == BB_TYPE_INTERNED) {
        if (r->vkind != TG_V_STRING)
            return bind_fail(r, r->value_col, err, cap,
                             "field '%s' is an interned string: compare it with a \"string\"",
                             f->name);
        if (r->op != TG_EQ && r->op != TG_NE)
            return bind_fail(r, r->value_col, err, cap,
                             "field '%s' is a string: only == and != compare it", f->name);
        c->cmp = TG_CMP_STRING;
        c->str = r->str;
        if (intern) {
            c->cmp = TG_CMP_UNSIGNED;
            c->u = intern(ictx, r->str);
        }
        return true;
    }
    if (f->type == BB_TYPE_BYTES)
        return bind_fail(r, r->field_col, err, cap, "field '%s' holds bytes: no comparison",
                         f->name);
    if (r->vkind == TG_V_STRING)
        return bind_fail(r, r->value_col, err, cap,
                         "field '%s' is not a string: compare it with a number", f->name);
    if (r->vkind == TG_V_LABEL) {
        if (f->type == BB_TYPE_BOOL && (!strcmp(r->str, "true") || !strcmp(r->str, "false"))) {
            c->cmp = TG_CMP_UNSIGNED;
            c->u = !strcmp(r->str, "true");
            return true;
        }
        if (f->type != BB_TYPE_ENUM)
            return bind_fail(r, r->value_col, err, cap,
                             "field '%s' is a number, not an enum: the value must be a number",
                             f->name);
        return bind_label(r, f, c, err, cap);
    }
    return bind_number(r, c);
}

bool tg_bind(const tg_rule *r, const bb_event_desc *ev, uint32_t (*intern)(void *, const char *),
             void *intern_ctx, tg_cond *out, char *err, size_t errcap) {
    memset(out, 0, sizeof *out);
    const bb_field_desc *f = find_field(ev, r->field);
    if (!f) {
        char m[TG_NAME_MAX + 64];
        snprintf(m, sizeof m, "event '%s' has no field '%%s'", ev->name);
        return bind_fail(r, r->field_col, err, errcap, m, r->field);
    }
    out->offset = f->offset;
    out->width = f->width;
    out->type = f->type;
    out->op = r->op;
    return bind_value(r, f, intern, intern_ctx, out, err, errcap);
}

/* The field's bytes as a zero-extended unsigned value. */
static uint64_t load_u(const uint8_t *p, uint16_t w) {
    uint64_t v = 0;
    memcpy(&v, p, w > 8 ? 8 : w); /* little-endian (frame.h) */
    return v;
}

static int64_t load_i(const uint8_t *p, uint16_t w) {
    uint64_t v = load_u(p, w);
    if (w < 8 && (v >> (8 * w - 1)) & 1) v |= ~0ull << (8 * w);
    return (int64_t)v;
}

static bool cmp3(int sign, tg_op op) {
    switch (op) {
    case TG_EQ: return sign == 0;
    case TG_NE: return sign != 0;
    case TG_LT: return sign < 0;
    case TG_LE: return sign <= 0;
    case TG_GT: return sign > 0;
    default: return sign >= 0;
    }
}

bool tg_cond_eval(const tg_cond *c, const uint8_t *fields, const char *(*resolve)(void *, uint32_t),
                  void *resolve_ctx) {
    const uint8_t *p = fields + c->offset;
    switch (c->cmp) {
    case TG_CMP_UNSIGNED: {
        uint64_t v = load_u(p, c->width);
        return cmp3(v < c->u ? -1 : v > c->u, c->op);
    }
    case TG_CMP_SIGNED: {
        int64_t v = load_i(p, c->width);
        return cmp3(v < c->i ? -1 : v > c->i, c->op);
    }
    case TG_CMP_FLOAT: {
        double v = c->type >= BB_TYPE_I8 && c->type <= BB_TYPE_I64 ? (double)load_i(p, c->width)
                                                                   : (double)load_u(p, c->width);
        return cmp3(v < c->f ? -1 : v > c->f, c->op);
    }
    case TG_CMP_STRING: {
        const char *s = resolve ? resolve(resolve_ctx, (uint32_t)load_u(p, 4)) : NULL;
        bool eq = s && !strcmp(s, c->str);
        return c->op == TG_EQ ? eq : !eq;
    }
    default: return false;
    }
}

uint64_t tg_span_id(const bb_event_desc *ev, const uint8_t *fields) {
    for (uint16_t i = 0; i < ev->field_count; i++)
        if (ev->fields[i].role == BB_ROLE_SPAN_ID && ev->fields[i].width == 8)
            return load_u(fields + ev->fields[i].offset, 8);
    return 0;
}
