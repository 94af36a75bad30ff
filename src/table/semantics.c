/* table/semantics.c — the `backbeat.columns` JSON document (see table/semantics.h). */
/* SPDX-License-Identifier: MIT */
#include "table/semantics.h"

#include <string.h>

#include "backbeat/schema.h"
#include "emit/text.h"
#include "format/names.h"

/* A JSON string, or null when absent. */
static void opt_str(pq_buf *b, bool has, bb_strview s) {
    if (has) em_json_str(b, s.ptr, s.len);
    else em_cstr(b, "null");
}

/* The JSON path array of schema node `node`. */
static void path_of(pq_buf *b, const tw_layout *l, int node) {
    const pq_node *n = &l->nodes[node];
    pq_buf_byte(b, '[');
    if (n->parent >= 0) {
        em_json_cstr(b, l->nodes[n->parent].name);
        pq_buf_byte(b, ',');
    }
    em_json_cstr(b, n->name);
    pq_buf_byte(b, ']');
}

/* An id as a JSON string of 16 hex digits. */
static void hexid(pq_buf *b, uint64_t id) {
    pq_buf_byte(b, '"');
    em_hex16(b, id);
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
    {"pid", NULL, "OS process id of the instance (its dump's process section); NULL when unknown"},
};

/* A group's role, event name, the ids of its versions and description. */
static void group_entry(pq_buf *b, const tw_layout *l, int node) {
    size_t n = 0;
    for (size_t p = 0; p < l->nplans; p++) {
        if (l->plans[p].group_node != node) continue;
        if (n++ == 0) {
            em_cstr(b, ",\"role\":\"event\",\"event\":");
            em_json_str(b, l->plans[p].display, l->plans[p].display_len);
            em_cstr(b, ",\"event_ids\":[");
        } else {
            pq_buf_byte(b, ',');
        }
        hexid(b, l->plans[p].id);
    }
    if (n)
        em_cstr(b, "],\"description\":\"fields of this event (the union by name of its "
                   "versions' fields); NULL on rows of other events\"");
}

/* The `columns` array: one entry per top-level column. */
static void columns(pq_buf *b, const tw_layout *l) {
    em_cstr(b, "\"columns\":[");
    bool first = true;
    for (size_t i = 0; i < l->nnodes; i++) {
        const pq_node *n = &l->nodes[i];
        if (n->parent >= 0) continue;
        if (!first) pq_buf_byte(b, ',');
        first = false;
        em_cstr(b, "{\"name\":");
        em_json_cstr(b, n->name);
        em_cstr(b, ",\"path\":");
        path_of(b, l, (int)i);
        em_cstr(b, ",\"type\":");
        em_json_cstr(b, n->num_children ? "STRUCT" : tw_type_name(n->type));
        em_cstr(b, n->optional ? ",\"nullable\":true" : ",\"nullable\":false");
        if (i < PQ_DENSE) {
            em_cstr(b, ",\"role\":");
            em_json_cstr(b, DENSE[i].role);
            if (DENSE[i].unit) {
                em_cstr(b, ",\"unit\":");
                em_json_cstr(b, DENSE[i].unit);
            }
            if (n->logical == PQ_LOGICAL_TIMESTAMP_NS_UTC)
                em_cstr(b, ",\"logical\":\"TIMESTAMP(NANOS,UTC)\"");
            em_cstr(b, ",\"description\":");
            em_json_cstr(b, DENSE[i].description);
        } else if (l->log_leaf >= 0 && (int)i == l->leaves[l->log_leaf].node) {
            em_cstr(b, ",\"role\":\"log_message\",\"description\":\"the message of a log "
                       "record (docs/LOG_LINES.md), formatted as C's printf would; NULL on other "
                       "rows (view `log`)\"");
        } else if (n->num_children == 0) {
            for (size_t k = 0; k < l->nprom; k++)
                if (l->prom[k].node == (int)i) {
                    em_cstr(b, ",\"role\":");
                    em_json_cstr(b, bb__role_name(l->prom[k].role));
                }
            em_cstr(b, ",\"description\":\"promoted field, unioned by name across events (see "
                       "events[].fields[].path)\"");
        } else {
            group_entry(b, l, (int)i);
        }
        pq_buf_byte(b, '}');
    }
    pq_buf_byte(b, ']');
}

/* The JSON object describing field `f` of event `p`. */
static void field(pq_buf *b, const tw_layout *l, const tw_plan *p, size_t f) {
    const bb_rfield *fd = &p->schema->fields[f];
    em_cstr(b, "{\"name\":");
    em_json_str(b, fd->name.ptr, fd->name.len);
    em_cstr(b, ",\"path\":");
    path_of(b, l, p->map[f].node);
    em_cstr(b, ",\"type\":");
    em_json_cstr(b, tw_field_type_name(fd->type));
    if (fd->type == BB_TYPE_ENUM) {
        em_cstr(b, ",\"repr\":");
        em_dec_u64(b, fd->type_arg);
    } else if (fd->type == BB_TYPE_INTERNED) {
        em_cstr(b, fd->type_arg ? ",\"dynamic\":true" : ",\"dynamic\":false");
    }
    em_cstr(b, ",\"column_type\":");
    em_json_cstr(b, tw_type_name(l->leaves[p->map[f].leaf].type));
    em_cstr(b, ",\"offset\":");
    em_dec_u64(b, fd->offset);
    em_cstr(b, ",\"width\":");
    em_dec_u64(b, fd->width);
    em_cstr(b, ",\"role\":");
    em_json_cstr(b, bb__role_name(fd->role));
    em_cstr(b, p->map[f].promoted ? ",\"promoted\":true" : ",\"promoted\":false");
    em_cstr(b, ",\"unit\":");
    opt_str(b, fd->has_unit, fd->unit);
    em_cstr(b, ",\"sentinel\":");
    if (fd->has_sentinel) em_json_u64(b, fd->sentinel);
    else em_cstr(b, "null");
    em_cstr(b, ",\"description\":");
    opt_str(b, fd->has_description, fd->description);
    em_cstr(b, ",\"labels\":[");
    for (size_t i = 0; i < fd->label_count; i++) {
        if (i) pq_buf_byte(b, ',');
        em_cstr(b, "{\"value\":");
        em_json_u64(b, fd->labels[i].value);
        em_cstr(b, ",\"label\":");
        em_json_str(b, fd->labels[i].label.ptr, fd->labels[i].label.len);
        pq_buf_byte(b, '}');
    }
    em_cstr(b, "]}");
}

/* The `events` array. */
static void events(pq_buf *b, const tw_layout *l) {
    em_cstr(b, "\"events\":[");
    for (size_t i = 0; i < l->nplans; i++) {
        const tw_plan *p = &l->plans[i];
        const bb_rschema *s = p->schema;
        if (i) pq_buf_byte(b, ',');
        em_cstr(b, "{\"event\":");
        em_json_str(b, p->display, p->display_len);
        em_cstr(b, ",\"name\":");
        em_json_str(b, s->name.ptr, s->name.len);
        em_cstr(b, ",\"event_id\":");
        hexid(b, p->id);
        em_cstr(b, ",\"phase\":");
        em_json_cstr(b, bb__phase_name(s->phase));
        em_cstr(b, ",\"description\":");
        opt_str(b, s->has_description, s->description);
        em_cstr(b, ",\"record_size\":");
        em_dec_u64(b, s->record_size);
        em_cstr(b, ",\"column\":");
        if (p->group_node >= 0) em_json_cstr(b, l->nodes[p->group_node].name);
        else em_cstr(b, "null");
        em_cstr(b, ",\"fields\":[");
        bool any = false;
        for (size_t f = 0; f < s->field_count; f++) {
            if (p->map[f].pad) continue; /* padding: no column to describe */
            if (any) pq_buf_byte(b, ',');
            any = true;
            field(b, l, p, f);
        }
        em_cstr(b, "]}");
    }
    pq_buf_byte(b, ']');
}

char *tw_semantics_json(const tw_layout *l) {
    pq_buf b = {0};
    em_cstr(&b, "{\"version\":1,");
    columns(&b, l);
    pq_buf_byte(&b, ',');
    events(&b, l);
    em_cstr(&b, "}");
    pq_buf_byte(&b, 0);
    if (b.failed) {
        pq_buf_free(&b);
        return NULL;
    }
    return (char *)b.data;
}
