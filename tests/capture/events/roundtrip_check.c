/* roundtrip_check.c — see roundtrip_check.h. */
/* SPDX-License-Identifier: MIT */
#include "roundtrip_check.h"

int rt_failures;

bb_event_desc *const rt_descs[7] = {BB_DESC(rt_scalars),   BB_DESC(rt_enums), BB_DESC(rt_strings),
                                    BB_DESC(rt_begin),     BB_DESC(rt_end),   BB_DESC(rt_mark),
                                    BB_DESC(rt_unrecorded)};

static int sv_eq(bb_strview v, const char *s) {
    return s && v.len == strlen(s) && memcmp(v.ptr, s, v.len) == 0;
}

static int opt_eq(bool has, bb_strview v, const char *s) { return has ? sv_eq(v, s) : s == NULL; }

void rt_check_schema(const bb_rschema *s, const bb_event_desc *d) {
    const char *n = d->name;
    RT_CHECK(s->id == d->id && sv_eq(s->name, n), "%s: id/name", n);
    RT_CHECK(opt_eq(s->has_description, s->description, d->description), "%s: desc", n);
    RT_CHECK(s->record_size == d->record_size && s->phase == d->phase, "%s: size/phase", n);
    RT_CHECK(s->field_count == d->field_count, "%s: field count", n);
    for (size_t i = 0; i < s->field_count && i < d->field_count; i++) {
        const bb_rfield *r = &s->fields[i];
        const bb_field_desc *f = &d->fields[i];
        RT_CHECK(sv_eq(r->name, f->name), "%s.%s: name", n, f->name);
        RT_CHECK(opt_eq(r->has_description, r->description, f->description), "%s.%s: desc", n,
                 f->name);
        RT_CHECK(opt_eq(r->has_unit, r->unit, f->unit), "%s.%s: unit", n, f->name);
        RT_CHECK(r->type == f->type && r->type_arg == f->type_arg && r->role == f->role,
                 "%s.%s: type/arg/role", n, f->name);
        RT_CHECK(r->offset == f->offset && r->width == f->width, "%s.%s: offset/width", n, f->name);
        RT_CHECK(r->has_sentinel == (f->has_sentinel != 0) &&
                     (!r->has_sentinel || r->sentinel == f->sentinel),
                 "%s.%s: sentinel", n, f->name);
        RT_CHECK(r->label_count == f->label_count, "%s.%s: label count", n, f->name);
        for (size_t j = 0; j < r->label_count && j < f->label_count; j++)
            RT_CHECK(r->labels[j].value == f->labels[j].value &&
                         sv_eq(r->labels[j].label, f->labels[j].label),
                     "%s.%s: label %zu", n, f->name, j);
    }
}

/* Decode the field called `name`. */
static bb_value field(const bb_record *rec, const bb_rinstance *inst, const char *name) {
    for (size_t i = 0; i < rec->schema->field_count; i++)
        if (sv_eq(rec->schema->fields[i].name, name))
            return bb_decode_field(rec->schema, i, rec->fields, inst);
    RT_CHECK(0, "no field %s", name);
    bb_value none;
    memset(&none, 0, sizeof none);
    none.kind = (bb_value_kind)-1;
    return none;
}

#define U(name, want)                                                                        \
    do {                                                                                     \
        bb_value v_ = field(rec, inst, #name);                                               \
        RT_CHECK(v_.kind == BB_VALUE_UINT && v_.u == (uint64_t)(want), "%s: %s", ev, #name); \
    } while (0)
#define I(name, want)                                                                      \
    do {                                                                                   \
        bb_value v_ = field(rec, inst, #name);                                             \
        RT_CHECK(v_.kind == BB_VALUE_INT && v_.i == (int64_t)(want), "%s: %s", ev, #name); \
    } while (0)
#define ABSENT(name) \
    RT_CHECK(field(rec, inst, #name).kind == BB_VALUE_ABSENT, "%s: %s absent", ev, #name)
/* Integer field with a sentinel: absent exactly when equal to it. */
#define U_S(name, want, sentinel)               \
    do {                                        \
        if ((want) == (sentinel)) ABSENT(name); \
        else U(name, want);                     \
    } while (0)
#define I_S(name, want, sentinel)               \
    do {                                        \
        if ((want) == (sentinel)) ABSENT(name); \
        else I(name, want);                     \
    } while (0)
/* Enum field: raw value, and its label (NULL = unlabelled). */
#define E(name, want, label)                                                                   \
    do {                                                                                       \
        bb_value v_ = field(rec, inst, #name);                                                 \
        const char *l_ = (label);                                                              \
        RT_CHECK(v_.kind == BB_VALUE_ENUM && v_.u == (want) && v_.has_label == (l_ != NULL) && \
                     (!l_ || sv_eq(v_.str, l_)),                                               \
                 "%s: %s = %llu", ev, #name, (unsigned long long)v_.u);                        \
    } while (0)
/* Interned field: its string, or NULL for an id missing from the table. */
#define S(name, id_, text_)                                                                     \
    do {                                                                                        \
        bb_value v_ = field(rec, inst, #name);                                                  \
        const char *s_ = (text_);                                                               \
        RT_CHECK(v_.kind == BB_VALUE_STRING && v_.u == (id_) && v_.has_label == (s_ != NULL) && \
                     (!s_ || sv_eq(v_.str, s_)),                                                \
                 "%s: %s", ev, #name);                                                          \
    } while (0)
#define BYTES(name, want)                                                     \
    do {                                                                      \
        bb_value v_ = field(rec, inst, #name);                                \
        RT_CHECK(v_.kind == BB_VALUE_BYTES && v_.bytes_len == sizeof(want) && \
                     memcmp(v_.bytes, (want), sizeof(want)) == 0,             \
                 "%s: %s", ev, #name);                                        \
    } while (0)

const char *const rt_intern_text[4] = {"alpha", "/var/log/x", "h\xc3\xa9llo", ""};
uint32_t rt_intern_id[4] = {1, 2, 3, 4};

/* The string an intern id stands for in the test's intern table (NULL = missing). */
static const char *interned(uint32_t id) {
    for (int i = 0; i < 4; i++)
        if (rt_intern_id[i] == id) return rt_intern_text[i];
    return NULL;
}

static const char *label_e8(uint64_t v) { return v == 0 ? "zero" : v == UINT64_MAX ? "max" : NULL; }
static const char *label_e4(int32_t v) {
    return v == -5 ? "minus five" : v == 70000 ? "big" : NULL;
}
static const char *label_e2(uint16_t v) { return v == 300 ? "on" : NULL; }
static const char *label_e1(int8_t v) { return v == -1 ? "back" : v == 1 ? "fwd" : NULL; }

/* Descriptors are per translation unit: compare events by id. */
#define SAME(ident) (want->desc->id == bb_event_id(BB_DESC(ident)))

void rt_check_record(const bb_record *rec, const bb_rinstance *inst, const rt_value *want) {
    const char *ev = want->desc->name;
    RT_CHECK(rec->event_id == want->desc->id && rec->schema != NULL, "%s: event id", ev);
    if (!rec->schema) return;
    RT_CHECK(rec->schema->record_size == want->desc->record_size, "%s: record size", ev);
    if (SAME(rt_scalars)) {
        const rt_scalars *w = &want->u.scalars;
        U(a, w->a);
        I_S(e, w->e, INT64_MIN);
        U_S(b, w->b, 0u);
        I_S(f, w->f, -1);
        U(c, w->c);
        I(g, w->g);
        U(d, w->d);
        I_S(h, w->h, -128);
        bb_value v = field(rec, inst, "i");
        RT_CHECK(v.kind == BB_VALUE_BOOL && v.b == w->i, "%s: i", ev);
        BYTES(j, w->j);
    } else if (SAME(rt_enums)) {
        const rt_enums *w = &want->u.enums;
        E(e8, w->e8, label_e8(w->e8));
        E(e4, (uint32_t)w->e4, label_e4(w->e4));
        if (w->e2 == RT_E2_NONE) ABSENT(e2);
        else E(e2, w->e2, label_e2(w->e2));
        E(e1, (uint8_t)w->e1, label_e1(w->e1));
        BYTES(pad, w->pad);
    } else if (SAME(rt_strings)) {
        const rt_strings *w = &want->u.strings;
        U(parent, w->parent);
        S(name, w->name, interned(w->name));
        S(path, w->path, interned(w->path));
        U_S(k, w->k, 7u);
    } else if (SAME(rt_begin)) {
        const rt_begin *w = &want->u.begin;
        U(span, w->span);
        U(parent, w->parent);
        U(work, w->work);
        RT_CHECK(rec->schema->phase == BB_PHASE_ENTER, "%s: phase", ev);
    } else if (SAME(rt_end)) {
        const rt_end *w = &want->u.end;
        U(span, w->span);
        U(bytes, w->bytes);
        RT_CHECK(rec->schema->phase == BB_PHASE_EXIT, "%s: phase", ev);
    } else if (SAME(rt_mark)) {
        RT_CHECK(rec->schema->field_count == 0 && rec->schema->record_size == 0, "%s", ev);
    } else {
        RT_CHECK(0, "unexpected event %s", ev);
    }
}
