/* dataset_schema.c — DIR/_backbeat/schema.bb, the dataset schema (see dataset/dataset.h): a `.bb`
 * dump with a Schema section (the union registry of everything appended so far) and one Views
 * section per distinct view set, and no instance or shard. Each append opens it as one more
 * input, so every part is written with the dataset's union schema; it is rewritten (aside,
 * then renamed) with the new union after the parts.
 *
 * Its view sets go oldest rank first (emit/view_order.h: the newest record timestamp of the
 * dumps that carried the set), so the newest data's definition of a view wins in views.sql
 * whatever order the builds were appended in. The ranks are kept beside it, in the same
 * transaction: DIR/_backbeat/view_ranks, a line "<rank, decimal ns> <FNV-1a of the set's text,
 * 16 hex>" per set in the dump's order. A set it does not list (a dataset from before the file)
 * ranks 0: oldest.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error_set.h"
#include "dataset/dataset.h"
#include "emit/view_order.h"
#include "format/sections.h"
#include "format/wire.h"
#include "parquet/buf.h"

/* bb_sink into a pq_buf. */
static int buf_write(void *ctx, const void *d, size_t n) {
    pq_buf *b = ctx;
    pq_buf_put(b, d, n);
    return b->failed ? ENOMEM : 0;
}

static bb__wire_str wire(bb_strview v, bool present) {
    bb__wire_str w = {v.ptr, (uint16_t)v.len, present ? 1 : 0};
    return w;
}

/* One schema entry, re-encoded from its decoded form. */
static void encode_schema(bb_sink sink, const bb_rschema *s) {
    bb__wire_event we = {.id = s->id,
                         .name = wire(s->name, true),
                         .description = wire(s->description, s->has_description),
                         .record_size = s->record_size,
                         .phase = s->phase,
                         .field_count = (uint16_t)s->field_count};
    bb__enc_schema_event(sink, &we);
    for (size_t i = 0; i < s->field_count; i++) {
        const bb_rfield *f = &s->fields[i];
        bb__wire_field wf = {.name = wire(f->name, true),
                             .description = wire(f->description, f->has_description),
                             .unit = wire(f->unit, f->has_unit),
                             .sentinel = f->sentinel,
                             .offset = f->offset,
                             .width = f->width,
                             .label_count = (uint16_t)f->label_count,
                             .type = f->type,
                             .type_arg = f->type_arg,
                             .role = f->role,
                             .has_sentinel = f->has_sentinel ? 1 : 0};
        bb__enc_schema_field(sink, &wf);
        for (size_t l = 0; l < f->label_count; l++)
            bb__enc_schema_label(sink, f->labels[l].value, wire(f->labels[l].label, true));
    }
}

/* The Views sections of the dump: the model's distinct view sets, oldest rank first (view_of,
 * *nsets; rank_of their ranks); false when out of memory. */
static bool view_sets(const bb_model *m, const uint64_t *rank, size_t **view_of, uint64_t **rank_of,
                      size_t *nsets) {
    size_t nv = bb_model_view_count(m);
    *view_of = malloc((nv ? nv : 1) * sizeof **view_of);
    *rank_of = malloc((nv ? nv : 1) * sizeof **rank_of);
    return *view_of && *rank_of && em_view_order(m, rank, *view_of, *rank_of, nsets);
}

/* The whole dump into `out`, the sets' ranks into `ranks`; false when out of memory or past
 * the format's section count. */
static bool encode(const bb_model *m, const uint64_t *rank, pq_buf *out, pq_buf *ranks) {
    pq_buf schema = {0};
    bb_sink ss = {buf_write, &schema};
    bb__enc_schema_count(ss, (uint32_t)bb_model_schema_count(m));
    for (size_t i = 0; i < bb_model_schema_count(m); i++) encode_schema(ss, bb_model_schema(m, i));
    size_t nsets = 0, ns = 1;
    size_t *view_of = NULL;
    uint64_t *rank_of = NULL;
    bool ok = view_sets(m, rank, &view_of, &rank_of, &nsets) && !schema.failed;
    bb__section_ref *secs = ok ? calloc(nsets + 1, sizeof *secs) : NULL;
    ok = secs && nsets < 65535;
    if (ok) {
        secs[0] = (bb__section_ref){BB_SECTION_SCHEMA, schema.len, 0};
        for (size_t k = 0; k < nsets; k++)
            secs[ns++] = (bb__section_ref){BB_SECTION_VIEWS, bb_model_view(m, view_of[k]).len, 0};
        bb__sections_layout(secs, ns);
        bb_sink os = {buf_write, out};
        bb__enc_header(os, secs, ns);
        for (size_t i = 0; i < ns && !out->failed; i++) {
            while (out->len < secs[i].offset && !out->failed) pq_buf_byte(out, 0);
            if (i == 0) pq_buf_put(out, schema.data, schema.len);
            else pq_buf_put(out, bb_model_view(m, view_of[i - 1]).ptr, secs[i].len);
        }
        for (size_t k = 0; k < nsets; k++) {
            char line[48];
            int len = snprintf(line, sizeof line, "%llu %016llx\n", (unsigned long long)rank_of[k],
                               (unsigned long long)em_view_text_hash(bb_model_view(m, view_of[k])));
            pq_buf_put(ranks, line, (size_t)len);
        }
        ok = !out->failed && !ranks->failed;
    }
    free(secs);
    free(view_of);
    free(rank_of);
    pq_buf_free(&schema);
    return ok;
}

bool ds_schema_encode(const char *dir, const bb_model *model, const uint64_t *rank, ds_blob *schema,
                      ds_blob *ranks, bb_error *err) {
    pq_buf b = {0}, r = {0};
    if (!encode(model, rank, &b, &r)) {
        ds_err(err, "cannot write %s/_backbeat/schema.bb: out of memory (or too many view sets)",
               dir);
        pq_buf_free(&b);
        pq_buf_free(&r);
        return false;
    }
    *schema = (ds_blob){b.data, b.len};
    *ranks = (ds_blob){r.data, r.len};
    return true;
}

/* One line of view_ranks ("<rank> <16 hex>\n"), at p (*p advanced past it); false when
 * malformed. */
static bool rank_line(const char **p, const char *end, uint64_t *rank, uint64_t *hash) {
    const char *q = *p;
    *rank = *hash = 0;
    if (q == end || *q < '0' || *q > '9') return false;
    for (; q < end && *q >= '0' && *q <= '9'; q++) {
        uint64_t d = (uint64_t)(*q - '0');
        if (*rank > (UINT64_MAX - d) / 10) return false;
        *rank = *rank * 10 + d;
    }
    if (end - q < 18 || *q++ != ' ' || q[16] != '\n') return false;
    for (int i = 0; i < 16; i++, q++) {
        int d = *q >= '0' && *q <= '9' ? *q - '0' : *q >= 'a' && *q <= 'f' ? *q - 'a' + 10 : -1;
        if (d < 0) return false;
        *hash = *hash << 4 | (uint64_t)d;
    }
    *p = q + 1;
    return true;
}

/* The view of the schema dump whose text has this hash: line k's own (the sets and the lines
 * are written in one order), else the first found; SIZE_MAX for none. */
static size_t view_with(const bb_dump *schema, size_t k, uint64_t hash) {
    size_t nv = bb_dump_view_count(schema);
    if (k < nv && em_view_text_hash(bb_dump_view(schema, k)) == hash) return k;
    for (size_t i = 0; i < nv; i++)
        if (em_view_text_hash(bb_dump_view(schema, i)) == hash) return i;
    return SIZE_MAX;
}

bool ds_schema_ranks(const ds_handle *h, const bb_dump *schema, uint64_t *rank, bb_error *err) {
    size_t len = 0, line = 0;
    uint8_t *data = NULL;
    memset(rank, 0, bb_dump_view_count(schema) * sizeof *rank);
    if (!ds_slurp(h->bfd, "view_ranks", (size_t)1 << 22, &data, &len)) {
        ds_err(err, "cannot read %s/_backbeat/view_ranks: %s", h->dir, strerror(errno));
        return false;
    }
    bool ok = true;
    const char *p = (const char *)data, *end = p + len;
    for (; ok && data && p < end; line++) {
        uint64_t r, hash;
        ok = rank_line(&p, end, &r, &hash);
        size_t i = ok ? view_with(schema, line, hash) : SIZE_MAX;
        if (i != SIZE_MAX && r > rank[i]) rank[i] = r;
    }
    if (!ok)
        ds_err(err, "%s/_backbeat/view_ranks: line %zu is not \"<rank> <16 hex digits>\"", h->dir,
               line);
    free(data);
    return ok;
}
