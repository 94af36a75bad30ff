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
#include "dataset/dataset_internal.h"
#include "emit/view_order.h"
#include "format/sections.h"
#include "format/sink.h"
#include "format/wire.h"
#include "parquet/buf.h"

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
static bool encode(const bb_model *m, const uint64_t *rank, bb__membuf *out, pq_buf *ranks) {
    bb__membuf schema = {0};
    bb__sink ss = bb__sink_membuf(&schema);
    bb__enc_schema_count(ss, (uint32_t)bb_model_schema_count(m));
    for (size_t i = 0; i < bb_model_schema_count(m); i++)
        bb__enc_schema_decoded(ss, bb_model_schema(m, i));
    size_t nsets = 0;
    size_t *view_of = NULL;
    uint64_t *rank_of = NULL;
    bool ok = view_sets(m, rank, &view_of, &rank_of, &nsets) && !schema.failed && nsets < 65535;
    if (ok) { /* the table (Schema, one Views per set), then the bodies */
        bb__table t;
        bb__table_begin(&t, bb__sink_membuf(out), nsets + 1);
        bb__table_add(&t, BB_SECTION_SCHEMA, schema.len);
        for (size_t k = 0; k < nsets; k++)
            bb__table_add(&t, BB_SECTION_VIEWS, bb_model_view(m, view_of[k]).len);
        ok = bb__table_end(&t) != 0;
        bb__membuf_put(out, schema.data, schema.len);
        for (size_t k = 0; k < nsets; k++) {
            bb_strview v = bb_model_view(m, view_of[k]);
            bb__membuf_put(out, v.ptr, v.len);
            char line[48];
            int len = snprintf(line, sizeof line, "%llu %016llx\n", (unsigned long long)rank_of[k],
                               (unsigned long long)em_view_text_hash(v));
            pq_buf_put(ranks, line, (size_t)len);
        }
        ok = ok && !out->failed && !ranks->failed;
    }
    free(view_of);
    free(rank_of);
    free(schema.data);
    return ok;
}

bool ds_schema_encode(const char *dir, const bb_model *model, const uint64_t *rank, ds_blob *schema,
                      ds_blob *ranks, bb_error *err) {
    bb__membuf b = {0};
    pq_buf r = {0};
    if (!encode(model, rank, &b, &r)) {
        ds_err(err, "cannot write %s/_backbeat/schema.bb: out of memory (or too many view sets)",
               dir);
        free(b.data);
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
