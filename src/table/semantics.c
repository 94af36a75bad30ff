/* table/semantics.c — the `backbeat.columns` JSON document (see table/semantics.h). */
/* SPDX-License-Identifier: MIT */
#include "table/semantics.h"

#include <string.h>

#include "backbeat/schema.h"
#include "emit/text.h"
#include "format/names.h"

/* A JSON string, or null when absent. */
static void opt_str(pq_buf *b, bool has, bb_strview s)
{
    if (has)
        pq_json_str(b, s.ptr, s.len);
    else
        pq_cstr(b, "null");
}

/* The JSON path array of schema node `node`. */
static void path_of(pq_buf *b, const pq_layout *l, int node)
{
    const pq_node *n = &l->nodes[node];
    pq_buf_byte(b, '[');
    if (n->parent >= 0) {
        pq_json_cstr(b, l->nodes[n->parent].name);
        pq_buf_byte(b, ',');
    }
    pq_json_cstr(b, n->name);
    pq_buf_byte(b, ']');
}

/* An id as a JSON string of 16 hex digits. */
static void hexid(pq_buf *b, uint64_t id)
{
    pq_buf_byte(b, '"');
    pq_hex16(b, id);
    pq_buf_byte(b, '"');
}

static const struct {
    const char *role, *unit, *description;
} DENSE[PQ_DENSE] = {
    {"row", NULL, "0-based row number of this file, in the global record order"},
    {"timestamp", "ns", "record timestamp in nanoseconds (the recorder's clock)"},
    {"event", NULL, "event type: its qualified name (event_id tells its versions apart)"},
    {"event_id", NULL, "content-addressed id of the event's schema"},
    {"instance_id", NULL, "id of the recording process instance"},
    {"time", NULL, "ts_nanos as a TIMESTAMP(NANOS, UTC); NULL past 2^63-1 ns"},
};

/* A group's role, event name, the ids of its versions and description. */
static void group_entry(pq_buf *b, const pq_layout *l, int node)
{
    size_t n = 0;
    for (size_t p = 0; p < l->nplans; p++) {
        if (l->plans[p].group_node != node)
            continue;
        if (n++ == 0) {
            pq_cstr(b, ",\"role\":\"event\",\"event\":");
            pq_json_str(b, l->plans[p].display, l->plans[p].display_len);
            pq_cstr(b, ",\"event_ids\":[");
        } else {
            pq_buf_byte(b, ',');
        }
        hexid(b, l->plans[p].id);
    }
    if (n)
        pq_cstr(b, "],\"description\":\"fields of this event (the union by name of its "
                   "versions' fields); NULL on rows of other events\"");
}

/* The `columns` array: one entry per top-level column. */
static void columns(pq_buf *b, const pq_layout *l)
{
    pq_cstr(b, "\"columns\":[");
    bool first = true;
    for (size_t i = 0; i < l->nnodes; i++) {
        const pq_node *n = &l->nodes[i];
        if (n->parent >= 0)
            continue;
        if (!first)
            pq_buf_byte(b, ',');
        first = false;
        pq_cstr(b, "{\"name\":");
        pq_json_cstr(b, n->name);
        pq_cstr(b, ",\"path\":");
        path_of(b, l, (int)i);
        pq_cstr(b, ",\"type\":");
        pq_json_cstr(b, n->num_children ? "STRUCT" : pq_type_name(n->type));
        pq_cstr(b, n->optional ? ",\"nullable\":true" : ",\"nullable\":false");
        if (i < PQ_DENSE) {
            pq_cstr(b, ",\"role\":");
            pq_json_cstr(b, DENSE[i].role);
            if (DENSE[i].unit) {
                pq_cstr(b, ",\"unit\":");
                pq_json_cstr(b, DENSE[i].unit);
            }
            if (n->logical == PQ_LOGICAL_TIMESTAMP_NS_UTC)
                pq_cstr(b, ",\"logical\":\"TIMESTAMP(NANOS,UTC)\"");
            pq_cstr(b, ",\"description\":");
            pq_json_cstr(b, DENSE[i].description);
        } else if (n->num_children == 0) {
            for (size_t k = 0; k < l->nprom; k++)
                if (l->prom[k].node == (int)i) {
                    pq_cstr(b, ",\"role\":");
                    pq_json_cstr(b, bb__role_name(l->prom[k].role));
                }
            pq_cstr(b, ",\"description\":\"promoted field, unioned by name across events (see "
                       "events[].fields[].path)\"");
        } else {
            group_entry(b, l, (int)i);
        }
        pq_buf_byte(b, '}');
    }
    pq_buf_byte(b, ']');
}

/* The JSON object describing field `f` of event `p`. */
static void field(pq_buf *b, const pq_layout *l, const pq_plan *p, size_t f)
{
    const bb_rfield *fd = &p->schema->fields[f];
    pq_cstr(b, "{\"name\":");
    pq_json_str(b, fd->name.ptr, fd->name.len);
    pq_cstr(b, ",\"path\":");
    path_of(b, l, p->map[f].node);
    pq_cstr(b, ",\"type\":");
    pq_json_cstr(b, pq_field_type_name(fd->type));
    if (fd->type == BB_TYPE_ENUM) {
        pq_cstr(b, ",\"repr\":");
        pq_dec_u64(b, fd->type_arg);
    } else if (fd->type == BB_TYPE_INTERNED) {
        pq_cstr(b, fd->type_arg ? ",\"dynamic\":true" : ",\"dynamic\":false");
    }
    pq_cstr(b, ",\"column_type\":");
    pq_json_cstr(b, pq_type_name(l->leaves[p->map[f].leaf].type));
    pq_cstr(b, ",\"offset\":");
    pq_dec_u64(b, fd->offset);
    pq_cstr(b, ",\"width\":");
    pq_dec_u64(b, fd->width);
    pq_cstr(b, ",\"role\":");
    pq_json_cstr(b, bb__role_name(fd->role));
    pq_cstr(b, p->map[f].promoted ? ",\"promoted\":true" : ",\"promoted\":false");
    pq_cstr(b, ",\"unit\":");
    opt_str(b, fd->has_unit, fd->unit);
    pq_cstr(b, ",\"sentinel\":");
    if (fd->has_sentinel)
        pq_json_u64(b, fd->sentinel);
    else
        pq_cstr(b, "null");
    pq_cstr(b, ",\"description\":");
    opt_str(b, fd->has_description, fd->description);
    pq_cstr(b, ",\"labels\":[");
    for (size_t i = 0; i < fd->label_count; i++) {
        if (i)
            pq_buf_byte(b, ',');
        pq_cstr(b, "{\"value\":");
        pq_json_u64(b, fd->labels[i].value);
        pq_cstr(b, ",\"label\":");
        pq_json_str(b, fd->labels[i].label.ptr, fd->labels[i].label.len);
        pq_buf_byte(b, '}');
    }
    pq_cstr(b, "]}");
}

/* The `events` array. */
static void events(pq_buf *b, const pq_layout *l)
{
    pq_cstr(b, "\"events\":[");
    for (size_t i = 0; i < l->nplans; i++) {
        const pq_plan *p = &l->plans[i];
        const bb_rschema *s = p->schema;
        if (i)
            pq_buf_byte(b, ',');
        pq_cstr(b, "{\"event\":");
        pq_json_str(b, p->display, p->display_len);
        pq_cstr(b, ",\"name\":");
        pq_json_str(b, s->name.ptr, s->name.len);
        pq_cstr(b, ",\"event_id\":");
        hexid(b, p->id);
        pq_cstr(b, ",\"phase\":");
        pq_json_cstr(b, bb__phase_name(s->phase));
        pq_cstr(b, ",\"description\":");
        opt_str(b, s->has_description, s->description);
        pq_cstr(b, ",\"record_size\":");
        pq_dec_u64(b, s->record_size);
        pq_cstr(b, ",\"column\":");
        if (p->group_node >= 0)
            pq_json_cstr(b, l->nodes[p->group_node].name);
        else
            pq_cstr(b, "null");
        pq_cstr(b, ",\"fields\":[");
        bool any = false;
        for (size_t f = 0; f < s->field_count; f++) {
            if (p->map[f].pad)
                continue; /* padding: no column to describe */
            if (any)
                pq_buf_byte(b, ',');
            any = true;
            field(b, l, p, f);
        }
        pq_cstr(b, "]}");
    }
    pq_buf_byte(b, ']');
}

char *pq_semantics_json(const pq_layout *l)
{
    pq_buf b = {0};
    pq_cstr(&b, "{\"version\":1,");
    columns(&b, l);
    pq_buf_byte(&b, ',');
    events(&b, l);
    pq_cstr(&b, "}");
    pq_buf_byte(&b, 0);
    if (b.failed) {
        pq_buf_free(&b);
        return NULL;
    }
    return (char *)b.data;
}
