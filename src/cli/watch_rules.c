/* watch_rules.c — `backbeat watch`'s rules over followed records: each rule bound once per
 * schema (a reader schema seen as a descriptor; a log call site's level read from its
 * description for `log OP LEVEL` rules; found again by id through a small direct-mapped cache),
 * field conditions evaluated with the ring file's intern table, spans matched by span id, open
 * spans past their DURATION. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/watch_rules.h"

#define MAX_SCHEMAS 1024
#define MAX_OPEN 4096
#define CACHE 256 /* slots of the bound-by-id cache (a power of two) */

/* A schema as a descriptor (names NUL-terminated), with each rule's binding. */
typedef struct bound {
    uint64_t id;
    bb_event_desc desc;
    bb_field_desc *fields;
    char **strs; /* everything allocated for it */
    size_t nstrs;
    uint8_t role[TG_MAX_RULES]; /* 0 none, 1 plain, 2 condition, 3 enter, 4 exit */
    tg_cond cond[TG_MAX_RULES];
} bound;

typedef struct open_span {
    uint64_t sid, enter_ts;
    uint32_t rule, shard;
    char event[TG_NAME_MAX];
} open_span;

struct cli_watch_rules {
    const tg_rule *rules;
    size_t nrules;
    bound *b;
    size_t nb;
    bound *cache[CACHE]; /* by a hash of the schema id: the bound last found there */
    open_span *open;
    size_t nopen;
};

cli_watch_rules *cli_watch_rules_new(const tg_rule *rules, size_t n) {
    cli_watch_rules *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->rules = rules;
    w->nrules = n;
    w->b = calloc(MAX_SCHEMAS, sizeof *w->b);
    w->open = calloc(MAX_OPEN, sizeof *w->open);
    if (!w->b || !w->open) {
        cli_watch_rules_free(w);
        return NULL;
    }
    return w;
}

void cli_watch_rules_free(cli_watch_rules *w) {
    if (!w) return;
    for (size_t i = 0; w->b && i < w->nb; i++) {
        for (size_t k = 0; k < w->b[i].nstrs; k++) free(w->b[i].strs[k]);
        free(w->b[i].strs);
        free(w->b[i].fields);
    }
    free(w->b);
    free(w->open);
    free(w);
}

static const char *keep(bound *b, bb_strview s) {
    char *c = strndup(s.ptr ? s.ptr : "", s.len);
    char **grown = realloc(b->strs, (b->nstrs + 1) * sizeof *grown);
    if (!c || !grown) {
        free(c);
        if (grown) b->strs = grown;
        return "";
    }
    b->strs = grown;
    b->strs[b->nstrs++] = c;
    return c;
}

/* Field i of `s` as a descriptor field (labels copied). */
static void as_field(bound *b, const bb_rfield *rf, bb_field_desc *f) {
    f->name = keep(b, rf->name);
    f->offset = rf->offset;
    f->width = rf->width;
    f->type = rf->type;
    f->type_arg = rf->type_arg;
    f->role = rf->role;
    bb_enum_label *labels = rf->label_count ? calloc(rf->label_count, sizeof *labels) : NULL;
    for (size_t k = 0; labels && k < rf->label_count; k++) {
        labels[k].value = rf->labels[k].value;
        labels[k].label = keep(b, rf->labels[k].label);
    }
    if (labels) {
        char **grown = realloc(b->strs, (b->nstrs + 1) * sizeof *grown);
        if (grown) (b->strs = grown)[b->nstrs++] = (char *)labels;
        f->labels = labels;
        f->label_count = (uint16_t)rf->label_count;
    }
}

static void bind_rules(cli_watch_rules *w, bound *b) {
    char err[8];
    const char *d = b->desc.description;
    int level = tg_log_site_level(b->desc.name, d, d ? strlen(d) : 0);
    for (size_t k = 0; k < w->nrules; k++) {
        const tg_rule *r = &w->rules[k];
        bool named = tg_names(r, b->desc.name);
        if (r->kind == TG_LOG) b->role[k] = tg_log_fires(r, level) ? 1 : 0;
        else if (r->kind == TG_SPAN)
            b->role[k] = named && b->desc.phase == BB_PHASE_ENTER                            ? 3
                         : b->desc.phase == BB_PHASE_EXIT && tg_closes_span(r, b->desc.name) ? 4
                                                                                             : 0;
        else if (named && r->kind == TG_EVENT) b->role[k] = 1;
        else if (named && tg_bind(r, &b->desc, NULL, NULL, &b->cond[k], err, sizeof err))
            b->role[k] = 2;
    }
}

static size_t slot_of(uint64_t id) {
    return (size_t)((id * UINT64_C(0x9E3779B97F4A7C15)) >> 56) & (CACHE - 1);
}

static bound *bind_new(cli_watch_rules *w, const bb_rschema *s) {
    if (w->nb == MAX_SCHEMAS) return NULL;
    bound *b = &w->b[w->nb++];
    memset(b, 0, sizeof *b);
    b->id = s->id;
    b->fields = calloc(s->field_count ? s->field_count : 1, sizeof *b->fields);
    if (!b->fields) return NULL;
    for (size_t i = 0; i < s->field_count; i++) as_field(b, &s->fields[i], &b->fields[i]);
    b->desc.name = keep(b, s->name);
    b->desc.description = s->has_description ? keep(b, s->description) : NULL;
    b->desc.fields = b->fields;
    b->desc.field_count = (uint16_t)s->field_count;
    b->desc.record_size = s->record_size;
    b->desc.phase = s->phase;
    bind_rules(w, b);
    return b;
}

static bound *bound_of(cli_watch_rules *w, const bb_rschema *s) {
    size_t at = slot_of(s->id);
    if (w->cache[at] && w->cache[at]->id == s->id) return w->cache[at];
    bound *b = NULL;
    for (size_t i = 0; i < w->nb && !b; i++)
        if (w->b[i].id == s->id) b = &w->b[i];
    if (!b) b = bind_new(w, s);
    if (b) w->cache[at] = b;
    return b;
}

static const char *resolve(void *ring, uint32_t id) {
    static char buf[TG_STR_MAX + 1];
    bb_strview s;
    if (!bb_ring_intern(ring, id, &s) || s.len > TG_STR_MAX) return NULL;
    memcpy(buf, s.ptr, s.len);
    buf[s.len] = '\0';
    return buf;
}

static void fill(cli_firing *out, const tg_rule *r, const char *event, uint64_t ts, uint64_t sid,
                 uint32_t shard) {
    memset(out, 0, sizeof *out);
    out->rule = r;
    snprintf(out->event, sizeof out->event, "%s", event);
    out->ts = ts;
    out->span_id = sid;
    out->shard = shard;
}

static bool span_exit(cli_watch_rules *w, size_t k, uint64_t sid, const cli_watch_rec *r,
                      cli_firing *out) {
    for (size_t i = 0; i < w->nopen; i++) {
        open_span *o = &w->open[i];
        if (o->sid != sid || o->rule != k) continue;
        uint64_t dur = r->ts > o->enter_ts ? r->ts - o->enter_ts : 0;
        bool fire = dur > w->rules[k].duration_ns;
        if (fire) fill(out, &w->rules[k], o->event, o->enter_ts, sid, o->shard);
        out->duration_ns = dur;
        *o = w->open[--w->nopen];
        return fire;
    }
    return false;
}

bool cli_watch_wants(cli_watch_rules *w, const bb_rschema *s) {
    const bound *b = bound_of(w, s);
    for (size_t k = 0; b && k < w->nrules; k++)
        if (b->role[k]) return true;
    return false;
}

bool cli_watch_record(cli_watch_rules *w, const cli_watch_rec *r, const bb_ring *ring,
                      cli_firing *out) {
    bound *b = bound_of(w, r->schema);
    if (!b) return false;
    for (size_t k = 0; k < w->nrules; k++) {
        uint64_t sid = b->role[k] ? tg_span_id(&b->desc, r->fields) : 0;
        switch (b->role[k]) {
        case 1: fill(out, &w->rules[k], b->desc.name, r->ts, sid, r->shard); return true;
        case 2:
            if (!tg_cond_eval(&b->cond[k], r->fields, resolve, (void *)(uintptr_t)ring)) break;
            fill(out, &w->rules[k], b->desc.name, r->ts, sid, r->shard);
            return true;
        case 3:
            if (sid && w->nopen < MAX_OPEN) {
                open_span *o = &w->open[w->nopen++];
                *o = (open_span){sid, r->ts, (uint32_t)k, r->shard, ""};
                snprintf(o->event, sizeof o->event, "%s", b->desc.name);
            }
            break;
        case 4:
            if (sid && span_exit(w, k, sid, r, out)) return true;
            break;
        default: break;
        }
    }
    return false;
}

bool cli_watch_hung(cli_watch_rules *w, uint64_t now_ns, cli_firing *out) {
    for (size_t i = 0; i < w->nopen; i++) {
        open_span *o = &w->open[i];
        if (now_ns <= o->enter_ts || now_ns - o->enter_ts <= w->rules[o->rule].duration_ns)
            continue;
        fill(out, &w->rules[o->rule], o->event, o->enter_ts, o->sid, o->shard);
        out->duration_ns = now_ns - o->enter_ts;
        out->hung = true;
        *o = w->open[--w->nopen];
        return true;
    }
    return false;
}
