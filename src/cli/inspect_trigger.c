/* inspect_trigger.c — what a triggered dump says about itself, for `backbeat inspect`: its
 * backbeat::Trigger records (the rule that fired, the matching record, the after-window), as
 * text lines or a JSON array; nothing at all for a dump no trigger took. */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "cli/cli_util.h"
#include "cli/inspect_trigger.h"

#define TRIGGER_EVENT "backbeat::Trigger"

typedef struct walk {
    em_obuf *b;
    const bb_rinstance *inst;
    bool json;
    size_t n;
} walk;

static bool is_trigger(const bb_rschema *s) {
    return s->name.len == strlen(TRIGGER_EVENT) && !memcmp(s->name.ptr, TRIGGER_EVENT, s->name.len);
}

static void text_one(walk *w, const bb_record *r) {
    em_obuf_printf(w->b,
                   "  trigger in instance %016llx, shard %u:", (unsigned long long)r->instance_id,
                   r->shard_id);
    for (size_t fi = 0; fi < r->schema->field_count; fi++) {
        const bb_rfield *f = &r->schema->fields[fi];
        if (bb_rfield_is_padding(f)) continue;
        em_obuf_printf(w->b, " %.*s=", (int)f->name.len, f->name.ptr);
        em_obuf_json_field(w->b, r->schema, fi, r->fields, w->inst);
    }
    em_obuf_putc(w->b, '\n');
}

static void json_one(walk *w, const bb_record *r) {
    em_obuf_printf(w->b, "%s{\"instance_id\":\"", w->n ? "," : "");
    em_obuf_hex16(w->b, r->instance_id);
    em_obuf_printf(w->b, "\",\"recorded_in_shard\":%u", r->shard_id);
    for (size_t fi = 0; fi < r->schema->field_count; fi++) {
        const bb_rfield *f = &r->schema->fields[fi];
        if (bb_rfield_is_padding(f)) continue;
        em_obuf_putc(w->b, ',');
        em_obuf_json_str(w->b, f->name.ptr, f->name.len);
        em_obuf_putc(w->b, ':');
        em_obuf_json_field(w->b, r->schema, fi, r->fields, w->inst);
    }
    em_obuf_putc(w->b, '}');
}

static int on_record(const bb_record *r, void *ctx) {
    walk *w = ctx;
    if (!is_trigger(r->schema)) return 0;
    if (w->b && w->json) json_one(w, r);
    else if (w->b) text_one(w, r);
    w->n++;
    return 0;
}

/* Contract: see inspect_trigger.h. */
size_t cli_inspect_triggers(em_obuf *b, const bb_dump *d, bool json) {
    bool any = false;
    for (size_t i = 0; i < bb_dump_schema_count(d); i++) any |= is_trigger(bb_dump_schema(d, i));
    if (!any) return 0;
    walk w = {b, NULL, json, 0};
    for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
        w.inst = bb_dump_instance(d, i);
        for (size_t k = 0; k < w.inst->shard_count; k++)
            bb_shard_walk(d, &w.inst->shards[k], on_record, &w, NULL);
    }
    return w.n;
}
