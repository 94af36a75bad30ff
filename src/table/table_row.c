/* table/table_row.c — one record rendered as one row of the Parquet table: the dense
 * columns, then each field decoded and written into its leaf (promoted column or the event's
 * group), all of them (the serial writer) or one field's (the parallel engine's workers, a
 * leaf at a time). Below both table/table.c and table/table_par.c (parquet_writer.h). */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "backbeat/schema.h"
#include "common/le_bytes.h"
#include "table/table_priv.h"
#include "emit/text.h"

/* A field has no value in its leaf (sentinel hit, or not representable in the column's type):
 * NULL inside the group, nothing at all for a promoted column (its gap is NULL). */
static inline void put_null(writer *w, const tw_fmap *m, uint64_t r) {
    if (m->null_def > 0) pq_col_null(&w->cols[m->leaf], r, m->null_def);
}

/* Write the rendered text in `t` as row r's value. */
static void put_text(pq_column *c, uint64_t r, const pq_buf *t) {
    /* an empty text may have no buffer yet: never hand a NULL pointer on (memcmp/memcpy) */
    pq_col_str(c, r, t->data ? (const void *)t->data : (const void *)"", t->len);
}

/* Whether interned text (bytes that stay put for the whole write) is valid UTF-8, checked once
 * per string rather than on every row that refers to it. */
static bool stable_utf8(tw_lane *ln, const uint8_t *p, size_t n) {
    uintptr_t got = (uintptr_t)bb__u64map_get(&ln->utf8, (uint64_t)(uintptr_t)p);
    if (got && (got - 1) >> 1 == n) return (got - 1) & 1;
    bool ok = bb_utf8_valid(p, n);
    if (!got && n < (SIZE_MAX >> 2))
        (void)bb__u64map_put(&ln->utf8, (uint64_t)(uintptr_t)p,
                             (void *)(((uintptr_t)n << 1 | ok) + 1));
    return ok;
}

/* Write decoded value `v` of a field into its leaf at row r, converting to the column's type
 * when a promoted column's first declaration had another type. */
static void put_value(writer *w, tw_lane *ln, const tw_fmap *m, uint64_t r, const bb_value *v) {
    pq_column *c = &w->cols[m->leaf];
    pq_type t = c->type;
    pq_buf *s = &ln->text;
    s->len = 0;
    switch (v->kind) {
    case BB_VALUE_ABSENT: put_null(w, m, r); return;
    case BB_VALUE_UINT:
        if (t == PQ_UINT64) pq_col_u64(c, r, v->u);
        else if (t == PQ_INT64 && v->u <= INT64_MAX) pq_col_u64(c, r, v->u);
        else if (t == PQ_BOOLEAN) pq_col_bool(c, r, v->u != 0);
        else if (t == PQ_STRING) {
            em_dec_u64(s, v->u);
            put_text(c, r, s);
        } else put_null(w, m, r);
        return;
    case BB_VALUE_INT:
        if (t == PQ_INT64 || (t == PQ_UINT64 && v->i >= 0)) pq_col_u64(c, r, (uint64_t)v->i);
        else if (t == PQ_BOOLEAN) pq_col_bool(c, r, v->i != 0);
        else if (t == PQ_STRING) {
            em_dec_i64(s, v->i);
            put_text(c, r, s);
        } else put_null(w, m, r);
        return;
    case BB_VALUE_BOOL:
        if (t == PQ_BOOLEAN) pq_col_bool(c, r, v->b);
        else if (t == PQ_STRING) {
            em_cstr(s, v->b ? "true" : "false");
            put_text(c, r, s);
        } else pq_col_u64(c, r, v->b ? 1 : 0);
        return;
    case BB_VALUE_BYTES:
        if (t == PQ_STRING) {
            em_hex(s, v->bytes, v->bytes_len);
            put_text(c, r, s);
        } else put_null(w, m, r);
        return;
    case BB_VALUE_ENUM:
        if (t == PQ_STRING) {
            if (v->has_label) pq_col_str_stable(c, r, v->str.ptr, v->str.len);
            else {
                em_dec_u64(s, v->u);
                put_text(c, r, s);
            }
        } else if (t == PQ_UINT64 || (t == PQ_INT64 && v->u <= INT64_MAX)) pq_col_u64(c, r, v->u);
        else if (t == PQ_BOOLEAN) pq_col_bool(c, r, v->u != 0);
        else put_null(w, m, r);
        return;
    case BB_VALUE_STRING:
        if (t != PQ_STRING) {
            put_null(w, m, r);
        } else if (!v->has_label) {
            pq_buf_byte(s, '#');
            em_dec_u64(s, v->u);
            put_text(c, r, s);
        } else {
            const uint8_t *p = (const uint8_t *)v->str.ptr;
            if (stable_utf8(ln, p, v->str.len)) {
                pq_col_str_stable(c, r, p, v->str.len);
            } else {
                em_utf8_lossy(s, p, v->str.len);
                put_text(c, r, s);
            }
        }
        return;
    }
    put_null(w, m, r);
}

/* The little-endian unsigned integer of `wd` bytes at p: one load for the usual widths. */
static inline uint64_t load_uw(const uint8_t *p, unsigned wd) {
    switch (wd) {
    case 1: return p[0];
    case 2: return bb__le_get_u16(p);
    case 4: return bb__le_get_u32(p);
    case 8: return bb__le_get_u64(p);
    default: return bb__le_get_uw(p, wd);
    }
}

/* The cache slot of (field, inst, raw). */
static inline tw_str_hit *str_slot(tw_lane *ln, const void *field, const void *inst, uint64_t raw) {
    uint64_t h = (raw ^ ((uintptr_t)field >> 3) ^ ((uintptr_t)inst << 7)) * 0x9e3779b97f4a7c15ull;
    return &ln->hits[h >> (64 - 8)];
}

/* Field f (enum or interned, PQ_FAST_STRING) of record `rc` into its STRING leaf at row r: the
 * stable text of its raw value from the lane's cache, else decoded (and cached when stable). */
static void put_string_field(writer *w, tw_lane *ln, const tw_rec *rc, const tw_fmap *m,
                             const bb_rschema *s, size_t f, uint64_t r) {
    const bb_rfield *fd = &s->fields[f];
    uint64_t raw = load_uw(rc->fields + fd->offset, fd->width);
    if (fd->has_sentinel && raw == fd->sentinel) {
        put_null(w, m, r);
        return;
    }
    const void *inst = fd->type == BB_TYPE_INTERNED ? (const void *)rc->instance : NULL;
    tw_str_hit *h = str_slot(ln, fd, inst, raw);
    if (h->field == fd && h->inst == inst && h->raw == raw) {
        pq_col_str_stable_c(&w->cols[m->leaf], r, h->p, h->n, &h->cache);
        return;
    }
    bb_value v = bb_decode_field(s, f, rc->fields, rc->instance);
    bool stable =
        v.has_label &&
        (v.kind == BB_VALUE_ENUM ||
         (v.kind == BB_VALUE_STRING && stable_utf8(ln, (const uint8_t *)v.str.ptr, v.str.len)));
    if (stable) *h = (tw_str_hit){fd, inst, raw, v.str.ptr, v.str.len, {0, 0}};
    put_value(w, ln, m, r, &v);
}

/* Write field f of record `rc` (schema s, as laid out by plan `pl`) into its leaf at row r. */
/* A log call site's `string` argument (LOG_LINES.md) as its text: cut ones end in "...", NULL
 * is "(null)"; an invalid length is NULL. */
static void put_log_string(writer *w, tw_lane *ln, const tw_fmap *m, const bb_rfield *fd,
                           const uint8_t *fields, uint64_t r) {
    pq_buf *s = &ln->text;
    s->len = 0;
    bb_strview v;
    bool cut, null;
    if (!lf_arg_string(fd, fields, &v, &cut, &null)) {
        put_null(w, m, r);
        return;
    }
    if (null) em_cstr(s, "(null)");
    else {
        em_utf8_lossy(s, (const uint8_t *)v.ptr, v.len);
        if (cut) em_cstr(s, "...");
    }
    put_text(&w->cols[m->leaf], r, s);
}

/* A log call site's double argument in a STRING leaf (a clash of kinds, widen.h): %.17g. */
static void put_log_double_text(writer *w, tw_lane *ln, const tw_fmap *m, const bb_rfield *fd,
                                const uint8_t *fields, uint64_t r) {
    char t[40];
    int n = snprintf(t, sizeof t, "%.17g", lf_arg_double(fd, fields));
    pq_buf *s = &ln->text;
    s->len = 0;
    em_utf8_lossy(s, (const uint8_t *)t, n > 0 ? (size_t)n : 0);
    put_text(&w->cols[m->leaf], r, s);
}

static void put_field(writer *w, tw_lane *ln, const tw_rec *rc, const tw_plan *pl,
                      const bb_rschema *s, size_t f, uint64_t r) {
    const tw_fmap *m = &pl->map[f];
    if (m->pad) return; /* padding has no column */
    if (m->fast == PQ_FAST_NONE) {
        const bb_rfield *fd = &s->fields[f];
        if (pl->log && w->cols[m->leaf].type == PQ_STRING && fd->type == BB_TYPE_BYTES) {
            put_log_string(w, ln, m, fd, rc->fields, r);
            return;
        }
        if (pl->log && w->cols[m->leaf].type == PQ_STRING && lf_arg_is_double(fd)) {
            put_log_double_text(w, ln, m, fd, rc->fields, r);
            return;
        }
        bb_value v = bb_decode_field(s, f, rc->fields, rc->instance);
        put_value(w, ln, m, r, &v);
        return;
    }
    if (m->fast == PQ_FAST_STRING) {
        put_string_field(w, ln, rc, m, s, f, r);
        return;
    }
    /* integers and bools: the decoding of bb_decode_field, inline */
    const bb_rfield *fd = &s->fields[f];
    const uint8_t *p = rc->fields + fd->offset;
    unsigned wd = fd->width;
    uint64_t raw = load_uw(p, wd);
    if (fd->has_sentinel && raw == fd->sentinel) {
        put_null(w, m, r);
    } else if (m->fast == PQ_FAST_UNSIGNED) {
        pq_col_u64(&w->cols[m->leaf], r, raw);
    } else if (m->fast == PQ_FAST_SIGNED) {
        if (wd < 8 && ((raw >> (8 * wd - 1)) & 1)) raw |= ~(uint64_t)0 << (8 * wd);
        pq_col_u64(&w->cols[m->leaf], r, raw);
    } else {
        pq_col_bool(&w->cols[m->leaf], r, raw != 0);
    }
}

/* The pid of row r: the OS pid of its record's instance (its dump's Process section), NULL
 * (nothing written: an OPTIONAL column) when unknown. The slot's cache holds the index of the
 * slot instance's pid, which another dump of the same instance may not share. */
static void put_pid(pq_column *c, const tw_rec *rc, instance_slot *is, uint64_t r) {
    const bb_rinstance *in = rc->instance;
    if (!in || !in->has_process) return;
    if (is && is->inst->has_process && is->inst->pid == in->pid)
        pq_col_u64_cached(c, r, in->pid, &is->pid_cache);
    else pq_col_u64(c, r, in->pid);
}

/* The dense columns of row r (the serial writer's; it counts the instance's rows). */
static void put_dense(writer *w, const tw_rec *rec, tw_plan *pl, instance_slot *is, uint64_t r,
                      uint64_t seq) {
    pq_col_u64(&w->cols[PQ_L_SEQ], r, seq);
    pq_col_u64(&w->cols[PQ_L_TS], r, rec->ts);
    if (rec->ts <= INT64_MAX) /* else NULL: past year 2262 */
        pq_col_u64(&w->cols[PQ_L_TSTAMP], r, rec->ts);
    pq_col_str_cached(&w->cols[PQ_L_EVENT], r, pl->display, pl->display_len, &pl->c_event);
    pq_col_u64_cached(&w->cols[PQ_L_EVENT_ID], r, pl->id, &pl->c_id);
    put_pid(&w->cols[PQ_L_PID], rec, is, r);
    if (is) {
        pq_col_u64_cached(&w->cols[PQ_L_INSTANCE], r, rec->instance_id, &is->cache);
        is->rows++;
    } else {
        pq_col_u64(&w->cols[PQ_L_INSTANCE], r, rec->instance_id);
    }
}

#define DENSE_RUN 256 /* values gathered for one run call (on the stack) */

/* Rows r0.. of a UINT64 / INT64 leaf get v[0 .. n): runs, a value at a time where the page is
 * a dictionary page. */
static void dense_u64(pq_column *c, uint64_t r0, const uint64_t *v, size_t n) {
    for (size_t j = 0; j < n;) {
        size_t m = pq_col_u64_run(c, r0 + j, v + j, n - j);
        if (m == 0) {
            pq_col_u64(c, r0 + j, v[j]);
            m = 1;
        }
        j += m;
    }
}

/* The seq, ts or ts_nanos leaf of the staged rows (ts_nanos: NULL past year 2262). */
static void dense_plain(pq_column *c, int32_t leaf, const tw_item *it, size_t n, uint64_t r0,
                        uint64_t seq0) {
    uint64_t v[DENSE_RUN];
    for (size_t j = 0; j < n;) {
        size_t m = 0, end = n - j < DENSE_RUN ? n : j + DENSE_RUN;
        if (leaf == PQ_L_SEQ)
            for (; j + m < end; m++) v[m] = seq0 + j + m;
        else if (leaf == PQ_L_TS)
            for (; j + m < end; m++) v[m] = it[j + m].rc.ts;
        else
            for (; j + m < end && it[j + m].rc.ts <= INT64_MAX; m++) v[m] = it[j + m].rc.ts;
        dense_u64(c, r0 + j, v, m);
        j += m;
        if (m == 0) j++; /* a ts_nanos past INT64_MAX: the row stays NULL */
    }
}

/* The dictionary-index cache of a dense leaf's value for item `it`, NULL if it has none. */
static pq_dict_cache *dense_cache(int32_t leaf, const tw_item *it) {
    if (leaf == PQ_L_EVENT) return &it->pl->c_event;
    if (leaf == PQ_L_EVENT_ID) return &it->pl->c_id;
    return it->is ? &it->is->cache : NULL;
}

/* Row r of the event, event_id or instance_id leaf, value by value (interning it when its
 * cache is not current). */
static void dense_one(pq_column *c, int32_t leaf, const tw_item *it, uint64_t r) {
    tw_plan *pl = it->pl;
    if (leaf == PQ_L_EVENT) pq_col_str_cached(c, r, pl->display, pl->display_len, &pl->c_event);
    else if (leaf == PQ_L_EVENT_ID) pq_col_u64_cached(c, r, pl->id, &pl->c_id);
    else if (it->is) pq_col_u64_cached(c, r, it->rc.instance_id, &it->is->cache);
    else pq_col_u64(c, r, it->rc.instance_id);
}

/* The event, event_id or instance_id leaf of the staged rows: runs of the indices whose cache
 * is current, the rest value by value. */
static void dense_cached(pq_column *c, int32_t leaf, const tw_item *it, size_t n, uint64_t r0) {
    uint32_t idx[DENSE_RUN];
    for (size_t j = 0; j < n;) {
        size_t m = 0;
        uint64_t gen = c->dict.generation + 1;
        for (; c->page_dict && m < DENSE_RUN && j + m < n; m++) {
            const pq_dict_cache *k = dense_cache(leaf, &it[j + m]);
            if (!k || k->generation != gen) break;
            idx[m] = k->index;
        }
        if (m > 0) m = pq_col_index_run(c, r0 + j, idx, m);
        if (m == 0) {
            dense_one(c, leaf, &it[j], r0 + j);
            m = 1;
        }
        j += m;
    }
}

/* Dense leaf `leaf` of staged rows: what put_dense writes into it, one row after another. */
void tw_render_dense(writer *w, int32_t leaf, const tw_item *it, size_t n, uint64_t r0,
                     uint64_t seq0) {
    pq_column *c = &w->cols[leaf];
    if (leaf == PQ_L_SEQ || leaf == PQ_L_TS || leaf == PQ_L_TSTAMP)
        dense_plain(c, leaf, it, n, r0, seq0);
    else if (leaf == PQ_L_PID)
        for (size_t j = 0; j < n; j++) put_pid(c, &it[j].rc, it[j].is, r0 + j);
    else dense_cached(c, leaf, it, n, r0);
}

/* The `log_message` column of row r: the formatted message of a log record (src/logfmt/),
 * NULL on other rows. */
static void put_log(writer *w, tw_lane *ln, const tw_rec *rc, const tw_plan *pl, uint64_t r) {
    pq_column *c = &w->cols[w->lay.log_leaf];
    if (!pl->log) return; /* a top-level OPTIONAL column: the gap is NULL */
    char msg[8192];
    size_t n = lf_format(&pl->site, rc->schema ? rc->schema : pl->schema, rc->fields, rc->instance,
                         msg, sizeof msg);
    pq_buf *s = &ln->text;
    s->len = 0;
    em_utf8_lossy(s, (const uint8_t *)msg, n);
    put_text(c, r, s);
}

void tw_render_log(writer *w, tw_lane *ln, const tw_item *it, size_t n, uint64_t r0) {
    for (size_t j = 0; j < n; j++) put_log(w, ln, &it[j].rc, it[j].pl, r0 + j);
}

/* The schema record `rc` was written with, and how many of its fields the plan lays out. */
static const bb_rschema *rec_schema(const tw_rec *rc, const tw_plan *pl, size_t *nf) {
    const bb_rschema *s = rc->schema ? rc->schema : pl->schema;
    *nf = s->field_count < pl->schema->field_count ? s->field_count : pl->schema->field_count;
    return s;
}

void tw_render(writer *w, tw_lane *ln, const tw_rec *rc, tw_plan *pl, instance_slot *is, uint64_t r,
               uint64_t seq) {
    put_dense(w, rc, pl, is, r, seq);
    if (w->lay.log_leaf >= 0) put_log(w, ln, rc, pl, r);
    size_t nf;
    const bb_rschema *s = rec_schema(rc, pl, &nf);
    for (size_t f = 0; f < nf; f++) put_field(w, ln, rc, pl, s, f, r);
    /* the group's fields other versions have: present group, NULL leaf */
    for (size_t i = 0; i < pl->nmissing; i++) pq_col_null(&w->cols[pl->missing[i]], r, 1);
}

void tw_render_field(writer *w, tw_lane *ln, const tw_rec *rc, tw_plan *pl, uint32_t f,
                     uint64_t r) {
    size_t nf;
    const bb_rschema *s = rec_schema(rc, pl, &nf);
    if (f < nf) put_field(w, ln, rc, pl, s, f, r);
}

/* Integer or bool field f (PQ_FAST_UNSIGNED, _SIGNED or _BOOL) of the rows' records, plan pl,
 * into its leaf: what put_field does, with the field's place and sentinel looked up once per
 * schema instead of per row. */
static void put_int_rows(writer *w, const tw_item *items, const uint32_t *rows, size_t n,
                         tw_plan *pl, uint32_t f, uint64_t r0) {
    const tw_fmap *m = &pl->map[f];
    pq_column *c = &w->cols[m->leaf];
    const bb_rschema *last = NULL;
    const bb_rfield *fd = NULL;
    for (size_t k = 0; k < n; k++) {
        const tw_item *it = &items[rows[k]];
        uint64_t r = r0 + rows[k];
        if (it->rc.schema != last) {
            size_t nf;
            last = rec_schema(&it->rc, pl, &nf);
            fd = f < nf ? &last->fields[f] : NULL;
        }
        if (!fd) continue; /* the record's schema has no field f: its gap is NULL */
        unsigned wd = fd->width;
        uint64_t raw = load_uw(it->rc.fields + fd->offset, wd);
        if (fd->has_sentinel && raw == fd->sentinel) {
            put_null(w, m, r);
        } else if (m->fast == PQ_FAST_UNSIGNED) {
            pq_col_u64(c, r, raw);
        } else if (m->fast == PQ_FAST_SIGNED) {
            if (wd < 8 && ((raw >> (8 * wd - 1)) & 1)) raw |= ~(uint64_t)0 << (8 * wd);
            pq_col_u64(c, r, raw);
        } else {
            pq_col_bool(c, r, raw != 0);
        }
    }
}

/* Enum or interned field f (PQ_FAST_STRING) of the rows' records, plan pl, into its leaf: what
 * put_field does, with the record's schema looked up once per schema instead of per row. */
static void put_str_rows(writer *w, tw_lane *ln, const tw_item *items, const uint32_t *rows,
                         size_t n, tw_plan *pl, uint32_t f, uint64_t r0) {
    const tw_fmap *m = &pl->map[f];
    const bb_rschema *last = NULL, *s = NULL;
    size_t nf = 0;
    for (size_t k = 0; k < n; k++) {
        const tw_item *it = &items[rows[k]];
        if (!s || it->rc.schema != last) {
            last = it->rc.schema;
            s = rec_schema(&it->rc, pl, &nf);
        }
        if (f < nf) /* else the record's schema has no field f: its gap is NULL */
            put_string_field(w, ln, &it->rc, m, s, f, r0 + rows[k]);
    }
}

void tw_render_rows(writer *w, tw_lane *ln, const tw_item *items, const uint32_t *rows, size_t n,
                    tw_plan *pl, uint32_t f, uint64_t r0) {
    const tw_fmap *m = &pl->map[f];
    if (m->pad) return;
    if (m->fast == PQ_FAST_UNSIGNED || m->fast == PQ_FAST_SIGNED || m->fast == PQ_FAST_BOOL) {
        put_int_rows(w, items, rows, n, pl, f, r0);
        return;
    }
    if (m->fast == PQ_FAST_STRING) {
        put_str_rows(w, ln, items, rows, n, pl, f, r0);
        return;
    }
    for (size_t k = 0; k < n; k++) tw_render_field(w, ln, &items[rows[k]].rc, pl, f, r0 + rows[k]);
}
