/* ctf/ctf_plan.c — per event type, how a record's field bytes become its CTF payload (copied
 * runs of fields, padding left out, interned ids resolved as strings), and the TSDL spelling of
 * a field name (ctf/ctf_internal.h). */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "backbeat/schema.h"
#include "ctf/ctf_internal.h"

bool ct_field_is_string(const bb_rfield *f) { return f->type == BB_TYPE_INTERNED && f->width == 4; }

/* Build the steps of one schema: consecutive fields adjacent in the record merge into one
 * copy; an interned field is a string step. */
static bool plan_event(ct_event *e, const bb_rschema *s, uint32_t id) {
    e->schema = s;
    e->id = id;
    e->nops = 0;
    e->fixed = 0;
    e->ops = calloc(s->field_count ? s->field_count : 1, sizeof *e->ops);
    if (!e->ops) return false;
    for (size_t i = 0; i < s->field_count; i++) {
        const bb_rfield *f = &s->fields[i];
        if (bb_rfield_is_padding(f)) continue;
        bool str = ct_field_is_string(f);
        ct_op *last = e->nops ? &e->ops[e->nops - 1] : NULL;
        if (!str && last && !last->str && last->off + last->len == f->offset) {
            last->len = (uint16_t)(last->len + f->width);
        } else {
            e->ops[e->nops++] = (ct_op){.off = f->offset,
                                        .len = f->width,
                                        .str = str,
                                        .has_sentinel = str && f->has_sentinel,
                                        .sentinel = (uint32_t)f->sentinel};
        }
        if (!str) e->fixed += f->width;
    }
    return true;
}

bool ct_plan_build(ct_plan *p, const bb_model *model) {
    p->n = bb_model_schema_count(model);
    p->ev = calloc(p->n ? p->n : 1, sizeof *p->ev);
    if (!p->ev) return false;
    p->max_str = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (!plan_event(&p->ev[i], bb_model_schema(model, i), (uint32_t)i)) return false;
        size_t k = 0;
        for (size_t j = 0; j < p->ev[i].nops; j++) k += p->ev[i].ops[j].str;
        if (k > p->max_str) p->max_str = k;
    }
    return true;
}

void ct_plan_free(ct_plan *p) {
    for (size_t i = 0; p->ev && i < p->n; i++) free(p->ev[i].ops);
    free(p->ev);
    p->ev = NULL;
    p->n = 0;
}

/* The words of TSDL (babeltrace2's and Trace Compass's lexers) and its boolean literals. */
static const char *const keywords[] = {
    "align",   "callsite", "const",          "char",   "clock",   "double",   "enum",
    "env",     "event",    "floating_point", "float",  "integer", "int",      "long",
    "short",   "signed",   "stream",         "string", "struct",  "trace",    "typealias",
    "typedef", "unsigned", "variant",        "void",   "_Bool",   "_Complex", "_Imaginary",
    "TRUE",    "FALSE",    "true",           "false"};

static bool is_keyword(const char *s) {
    for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
        if (!strcmp(s, keywords[i])) return true;
    return false;
}

static bool ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

void ct_field_ident(const char *name, size_t len, char *out, size_t cap) {
    if (cap < 2) {
        if (cap) out[0] = 0;
        return;
    }
    size_t o = 1; /* out[0] is the escape, dropped below if not needed */
    for (size_t i = 0; i < len && o + 1 < cap; i++) out[o++] = ident_char(name[i]) ? name[i] : '_';
    out[o] = 0;
    bool escape =
        o == 1 || out[1] == '_' || (out[1] >= '0' && out[1] <= '9') || is_keyword(out + 1);
    if (escape) out[0] = '_';
    else memmove(out, out + 1, o);
}
