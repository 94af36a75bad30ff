/* convert/trigger_notes.c — the inputs' backbeat::Trigger records (what an in-process trigger
 * or `backbeat watch` recorded when a rule fired), decoded by field name, each once, in firing
 * order, for the table's key-value metadata and the trace's trigger instants. Only dumps whose
 * registry holds the event are walked. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "common/error_set.h"
#include "convert/trigger_notes.h"

#define TRIGGER_EVENT "backbeat::Trigger"

typedef struct walk {
    cv_triggers *out;
    const bb_rinstance *inst;
    bool oom;
} walk;

static bool named(bb_strview s, const char *name) {
    return s.len == strlen(name) && !memcmp(s.ptr, name, s.len);
}

static bool is_trigger(const bb_rschema *s) { return named(s->name, TRIGGER_EVENT); }

/* Field `name` of r as an unsigned integer (0 when absent). */
static uint64_t u(const bb_record *r, const char *name) {
    for (size_t i = 0; i < r->schema->field_count; i++) {
        const bb_rfield *f = &r->schema->fields[i];
        if (!named(f->name, name) || (size_t)f->offset + f->width > r->schema->record_size)
            continue;
        uint64_t v = 0;
        for (unsigned k = 0; k < f->width && k < 8; k++)
            v |= (uint64_t)r->fields[f->offset + k] << (8 * k);
        return v;
    }
    return 0;
}

/* Interned field `name` of r as a string (a copy; "" when unresolved). */
static char *str(const bb_record *r, const bb_rinstance *inst, const char *name) {
    bb_strview s = {"", 0};
    if (!bb_rinstance_intern(inst, (uint32_t)u(r, name), &s)) s = (bb_strview){"", 0};
    return strndup(s.ptr ? s.ptr : "", s.len);
}

static int on_record(const bb_record *r, void *ctx) {
    walk *w = ctx;
    if (!is_trigger(r->schema) || w->oom) return 0;
    cv_triggers *o = w->out;
    if (cv_trigger_find(o->notes, o->n, r->instance_id, r->ts, r->shard_id)) return 0;
    convert_trigger *g = realloc(o->notes, (o->n + 1) * sizeof *g);
    if (!g) {
        w->oom = true;
        return 0;
    }
    o->notes = g;
    convert_trigger t = {.instance_id = r->instance_id,
                         .rec_ts = r->ts,
                         .rec_shard = r->shard_id,
                         .ts = u(r, "ts"),
                         .span_id = u(r, "span_id"),
                         .after_ns = u(r, "after_ns"),
                         .duration_ns = u(r, "duration_ns"),
                         .shard = (uint32_t)u(r, "shard"),
                         .hung = u(r, "hung") != 0,
                         .rule = str(r, w->inst, "rule"),
                         .event = str(r, w->inst, "event")};
    if (!t.rule || !t.event) {
        free((char *)(uintptr_t)t.rule);
        free((char *)(uintptr_t)t.event);
        w->oom = true;
        return 0;
    }
    o->notes[o->n++] = t;
    return 0;
}

static int by_firing(const void *a, const void *b) {
    const convert_trigger *x = a, *y = b;
    if (x->rec_ts != y->rec_ts) return x->rec_ts < y->rec_ts ? -1 : 1;
    return x->instance_id < y->instance_id ? -1 : x->instance_id > y->instance_id;
}

bool cv_triggers_open(bb_dump *const *dumps, size_t n, cv_triggers *out, bb_error *err) {
    memset(out, 0, sizeof *out);
    walk w = {out, NULL, false};
    for (size_t i = 0; i < n && !w.oom; i++) {
        const bb_dump *d = dumps[i];
        bool any = false;
        for (size_t k = 0; k < bb_dump_schema_count(d); k++)
            any |= is_trigger(bb_dump_schema(d, k));
        for (size_t k = 0; any && k < bb_dump_instance_count(d); k++) {
            w.inst = bb_dump_instance(d, k);
            for (size_t j = 0; j < w.inst->shard_count; j++)
                bb_shard_walk(d, &w.inst->shards[j], on_record, &w, NULL);
        }
    }
    if (w.oom) {
        cv_triggers_close(out);
        bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "out of memory reading triggers");
        return false;
    }
    if (out->n > 1) qsort(out->notes, out->n, sizeof *out->notes, by_firing);
    return true;
}

void cv_triggers_close(cv_triggers *t) {
    for (size_t i = 0; i < t->n; i++) {
        free((char *)(uintptr_t)t->notes[i].rule);
        free((char *)(uintptr_t)t->notes[i].event);
    }
    free(t->notes);
    memset(t, 0, sizeof *t);
}

const convert_trigger *cv_trigger_find(const convert_trigger *t, size_t n, uint64_t instance_id,
                                       uint64_t ts, uint32_t shard) {
    for (size_t i = 0; i < n; i++)
        if (t[i].instance_id == instance_id && t[i].rec_ts == ts && t[i].rec_shard == shard)
            return &t[i];
    return NULL;
}
