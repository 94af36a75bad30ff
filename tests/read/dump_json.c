/* dump_json.c — JSON rendering of reader/model output in the golden files' shape (tests only). */
/* SPDX-License-Identifier: MIT */
#include "dump_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_free(sbuf *b) {
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

void sb_putn(sbuf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            fprintf(stderr, "out of memory\n");
            abort();
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

void sb_puts(sbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }

static int escape_piece(void *ctx, const char *s, size_t n) {
    sbuf *b = ctx;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            sb_putn(b, e, 2);
        } else if (c < 0x20) {
            char e[8];
            snprintf(e, sizeof e, "\\u%04x", c);
            sb_puts(b, e);
        } else {
            sb_putn(b, s + i, 1);
        }
    }
    return 0;
}

void sb_jstr(sbuf *b, const char *s, size_t n) {
    sb_putn(b, "\"", 1);
    bb_utf8_lossy_each(s, n, escape_piece, b);
    sb_putn(b, "\"", 1);
}

#define TWO53 9007199254740992ull

void sb_ju64(sbuf *b, uint64_t v) {
    char t[32];
    snprintf(t, sizeof t, v > TWO53 ? "\"%llu\"" : "%llu", (unsigned long long)v);
    sb_puts(b, t);
}

void sb_ji64(sbuf *b, int64_t v) {
    char t[32];
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    snprintf(t, sizeof t, mag > TWO53 ? "\"%lld\"" : "%lld", (long long)v);
    sb_puts(b, t);
}

void sb_hex16(sbuf *b, uint64_t id) {
    char t[24];
    snprintf(t, sizeof t, "\"%016llx\"", (unsigned long long)id);
    sb_puts(b, t);
}

void sb_value(sbuf *b, const bb_rschema *ev, size_t fi, const uint8_t *fields,
              const bb_rinstance *inst) {
    bb_value v = bb_decode_field(ev, fi, fields, inst);
    char t[40];
    switch (v.kind) {
    case BB_VALUE_ABSENT: sb_puts(b, "null"); break;
    case BB_VALUE_UINT: sb_ju64(b, v.u); break;
    case BB_VALUE_INT: sb_ji64(b, v.i); break;
    case BB_VALUE_BOOL: sb_puts(b, v.b ? "true" : "false"); break;
    case BB_VALUE_BYTES:
        sb_putn(b, "\"", 1);
        for (size_t k = 0; k < v.bytes_len; k++) {
            snprintf(t, sizeof t, "%02x", v.bytes[k]);
            sb_puts(b, t);
        }
        sb_putn(b, "\"", 1);
        break;
    case BB_VALUE_ENUM:
        if (v.has_label) {
            sb_jstr(b, v.str.ptr, v.str.len);
        } else {
            snprintf(t, sizeof t, "\"%llu\"", (unsigned long long)v.u);
            sb_puts(b, t);
        }
        break;
    case BB_VALUE_STRING:
        if (v.has_label) {
            sb_jstr(b, v.str.ptr, v.str.len);
        } else {
            snprintf(t, sizeof t, "\"#%llu\"", (unsigned long long)v.u);
            sb_puts(b, t);
        }
        break;
    }
}

void sb_fields(sbuf *b, const bb_rschema *ev, const uint8_t *fields, const bb_rinstance *inst) {
    sb_puts(b, "{");
    for (size_t fi = 0; fi < ev->field_count; fi++) {
        if (fi) sb_puts(b, ",");
        sb_jstr(b, ev->fields[fi].name.ptr, ev->fields[fi].name.len);
        sb_puts(b, ":");
        sb_value(b, ev, fi, fields, inst);
    }
    sb_puts(b, "}");
}

static void sb_optstr(sbuf *b, bool has, bb_strview s) {
    if (has) sb_jstr(b, s.ptr, s.len);
    else sb_puts(b, "null");
}

static void sb_num(sbuf *b, uint64_t v) {
    char t[32];
    snprintf(t, sizeof t, "%llu", (unsigned long long)v);
    sb_puts(b, t);
}

static const char *const TYPES[] = {"u8",  "u16", "u32",  "u64",   "i8",   "i16",
                                    "i32", "i64", "bool", "bytes", "enum", "interned"};
static const char *const ROLES[] = {"none", "key", "span_id", "parent_span_id"};
static const char *const PHASES[] = {"none", "enter", "exit"};

static void sb_schema(sbuf *b, const bb_rschema *ev) {
    sb_puts(b, "{\"id\":");
    sb_hex16(b, ev->id);
    sb_puts(b, ",\"name\":");
    sb_jstr(b, ev->name.ptr, ev->name.len);
    sb_puts(b, ",\"description\":");
    sb_optstr(b, ev->has_description, ev->description);
    sb_puts(b, ",\"record_size\":");
    sb_num(b, ev->record_size);
    sb_puts(b, ",\"phase\":\"");
    sb_puts(b, PHASES[ev->phase]);
    sb_puts(b, "\",\"fields\":[");
    for (size_t i = 0; i < ev->field_count; i++) {
        const bb_rfield *f = &ev->fields[i];
        if (i) sb_puts(b, ",");
        sb_puts(b, "{\"name\":");
        sb_jstr(b, f->name.ptr, f->name.len);
        sb_puts(b, ",\"description\":");
        sb_optstr(b, f->has_description, f->description);
        sb_puts(b, ",\"type\":\"");
        sb_puts(b, TYPES[f->type]);
        sb_puts(b, "\"");
        if (f->type == BB_TYPE_ENUM) {
            sb_puts(b, ",\"repr\":");
            sb_num(b, f->type_arg);
        }
        if (f->type == BB_TYPE_INTERNED)
            sb_puts(b, f->type_arg ? ",\"dynamic\":true" : ",\"dynamic\":false");
        sb_puts(b, ",\"offset\":");
        sb_num(b, f->offset);
        sb_puts(b, ",\"width\":");
        sb_num(b, f->width);
        sb_puts(b, ",\"role\":\"");
        sb_puts(b, ROLES[f->role]);
        sb_puts(b, "\",\"unit\":");
        sb_optstr(b, f->has_unit, f->unit);
        sb_puts(b, ",\"sentinel\":");
        if (f->has_sentinel) sb_ju64(b, f->sentinel);
        else sb_puts(b, "null");
        sb_puts(b, ",\"labels\":[");
        for (size_t k = 0; k < f->label_count; k++) {
            if (k) sb_puts(b, ",");
            sb_puts(b, "{\"value\":");
            sb_ju64(b, f->labels[k].value);
            sb_puts(b, ",\"label\":");
            sb_jstr(b, f->labels[k].label.ptr, f->labels[k].label.len);
            sb_puts(b, "}");
        }
        sb_puts(b, "]}");
    }
    sb_puts(b, "]}");
}

static int cmp_schema_ptr(const void *a, const void *b) {
    const bb_rschema *x = *(const bb_rschema *const *)a, *y = *(const bb_rschema *const *)b;
    size_t n = x->name.len < y->name.len ? x->name.len : y->name.len;
    int c = memcmp(x->name.ptr, y->name.ptr, n);
    if (c) return c;
    if (x->name.len != y->name.len) return x->name.len < y->name.len ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

typedef struct rec_list {
    bb_record *recs;
    uint8_t **copies; /* owned copies of each record's field bytes */
    size_t n, cap;
} rec_list;

static int collect(const bb_record *rec, void *ctx) {
    rec_list *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->recs = realloc(l->recs, l->cap * sizeof *l->recs);
        l->copies = realloc(l->copies, l->cap * sizeof *l->copies);
        if (!l->recs || !l->copies) abort();
    }
    size_t sz = rec->schema->record_size;
    uint8_t *c = malloc(sz ? sz : 1);
    if (!c) abort();
    memcpy(c, rec->fields, sz);
    l->recs[l->n] = *rec;
    l->recs[l->n].fields = c;
    l->copies[l->n] = c;
    l->n++;
    return 0;
}

static int cmp_rec(const void *a, const void *b) {
    const bb_record *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->instance_id != y->instance_id) return x->instance_id < y->instance_id ? -1 : 1;
    if (x->shard_id != y->shard_id) return x->shard_id < y->shard_id ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void dump_to_json(sbuf *b, const bb_dump *d) {
    sb_puts(b, "{\"format_version\":");
    sb_num(b, bb_dump_format_version(d));
    sb_puts(b, ",\"flags\":");
    sb_num(b, bb_dump_flags(d));
    sb_puts(b, ",\"section_count\":");
    sb_num(b, bb_dump_section_count(d));
    sb_puts(b, ",\"instances\":[");
    size_t ns = bb_dump_schema_count(d);
    const bb_rschema **sorted = malloc((ns ? ns : 1) * sizeof *sorted);
    if (!sorted) abort();
    for (size_t i = 0; i < ns; i++) sorted[i] = bb_dump_schema(d, i);
    qsort(sorted, ns, sizeof *sorted, cmp_schema_ptr);
    for (size_t ii = 0; ii < bb_dump_instance_count(d); ii++) {
        const bb_rinstance *in = bb_dump_instance(d, ii);
        if (ii) sb_puts(b, ",");
        sb_puts(b, "{\"instance_id\":");
        sb_hex16(b, in->instance_id);
        sb_puts(b, ",\"host\":");
        sb_jstr(b, in->host.ptr, in->host.len);
        sb_puts(b, ",\"schemas\":[");
        for (size_t i = 0; i < ns; i++) {
            if (i) sb_puts(b, ",");
            sb_schema(b, sorted[i]);
        }
        sb_puts(b, "],\"intern\":[");
        for (size_t i = 0; i < in->intern_count; i++) {
            if (i) sb_puts(b, ",");
            sb_puts(b, "{\"id\":");
            sb_num(b, in->intern[i].id);
            sb_puts(b, ",\"value\":");
            sb_jstr(b, in->intern[i].bytes.ptr, in->intern[i].bytes.len);
            sb_puts(b, "}");
        }
        sb_puts(b, "],\"views\":[");
        for (size_t i = 0; i < bb_dump_view_count(d); i++) {
            bb_strview v = bb_dump_view(d, i);
            if (i) sb_puts(b, ",");
            sb_jstr(b, v.ptr, v.len);
        }
        sb_puts(b, "],\"shards\":[");
        rec_list l = {0};
        for (size_t s = 0; s < in->shard_count; s++) {
            const bb_rshard *sh = &in->shards[s];
            bb_walk_stats st;
            bb_shard_walk(d, sh, collect, &l, &st);
            if (s) sb_puts(b, ",");
            sb_puts(b, "{\"shard_id\":");
            sb_num(b, sh->shard_id);
            sb_puts(b, ",\"head\":");
            sb_ju64(b, sh->head);
            sb_puts(b, ",\"capacity\":");
            sb_ju64(b, sh->capacity);
            sb_puts(b, ",\"records\":");
            sb_num(b, st.records);
            sb_puts(b, "}");
        }
        if (l.n) qsort(l.recs, l.n, sizeof *l.recs, cmp_rec);
        sb_puts(b, "],\"record_count\":");
        sb_num(b, l.n);
        sb_puts(b, ",\"records\":[");
        for (size_t r = 0; r < l.n; r++) {
            const bb_record *rec = &l.recs[r];
            if (r) sb_puts(b, ",");
            sb_puts(b, "{\"shard\":");
            sb_num(b, rec->shard_id);
            sb_puts(b, ",\"ts\":");
            sb_ju64(b, rec->ts);
            sb_puts(b, ",\"event\":");
            sb_jstr(b, rec->schema->name.ptr, rec->schema->name.len);
            sb_puts(b, ",\"event_id\":");
            sb_hex16(b, rec->event_id);
            sb_puts(b, ",\"fields\":");
            sb_fields(b, rec->schema, rec->fields, in);
            sb_puts(b, "}");
        }
        sb_puts(b, "]}");
        for (size_t r = 0; r < l.n; r++) free(l.copies[r]);
        free(l.recs);
        free(l.copies);
    }
    sb_puts(b, "]}");
    free(sorted);
}
