/* dataset_append.c — one append to a dataset (ds_append, see dataset/dataset.h): the new parts,
 * the inputs kept as sources with the append's manifest, the earlier appends rewritten when the
 * union's Parquet schema changed, the index, the schema dump and views.sql, all in one
 * transaction (dataset_txn.c).
 *
 * Every part of a dataset holds one Parquet schema, the union's, while every append kept its
 * sources: a read_parquet or scan_parquet of all parts needs no union_by_name. Parts written
 * before sources were kept (marker _backbeat/legacy) or kept by --no-rewrite hold older
 * schemas; then views.sql reads with union_by_name and says why.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/error_set.h"
#include "dataset/dataset_internal.h"
#include "emit/text.h"
#include "parquet/buf.h"

/* Whether dfd holds a regular file `name`. */
static bool has_file(int dfd, const char *name) {
    struct stat st;
    return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* What the append decided about the dataset's parts. */
typedef struct plan {
    uint64_t key;    /* the union's Parquet schema key */
    uint8_t *schema; /* the new schema dump */
    size_t schema_len;
    ds_manifest *v; /* the earlier appends */
    size_t n;
    bool legacy; /* parts without sources: never rewritten (the replays would not
                            know which records they hold) */
    bool mixed;  /* parts with another schema stay (--no-rewrite, legacy) */
    bool legacy_mixed;
} plan;

/* DIR/views.sql: `events` over every part, then the views DDL. */
static bool write_views(const ds_handle *h, const bb_model *model, const uint64_t *view_rank,
                        size_t nkeys, const plan *p, ds_txn *t, bb_error *err) {
    char *ddl = tw_views_ddl(model, view_rank, NULL, 0); /* crash stacks: not kept here */
    pq_buf b = {0};
    /* The parts relative to DIR (the dataset moves as a whole); the first level of a partitioned
     * dataset is a key=value directory, so a search from elsewhere matches nothing else. */
    em_cstr(
        &b,
        "-- backbeat dataset views; paths are relative to this file's directory DIR. Load with:\n"
        "--   duckdb -cmd \"SET file_search_path = 'DIR'\" -cmd \".read DIR/views.sql\"\n");
    if (p->legacy_mixed)
        em_cstr(&b,
                "-- Parts written before backbeat kept an append's sources keep an older schema:\n"
                "-- read the dataset with union_by_name (DuckDB) or a relaxed concat (Polars).\n");
    else if (p->mixed)
        em_cstr(&b, "-- Parts appended with --no-rewrite keep an older schema: read the dataset\n"
                    "-- with union_by_name (DuckDB) or a relaxed concat (Polars).\n");
    em_cstr(&b, "CREATE OR REPLACE VIEW events AS SELECT * FROM read_parquet('");
    em_cstr(&b, nkeys ? "*=*/**/part-*.parquet" : "part-*.parquet");
    em_cstr(&b, p->mixed || p->legacy_mixed
                    ? "', hive_partitioning = true, union_by_name = true);\n"
                    : "', hive_partitioning = true);\n");
    if (ddl) em_cstr(&b, ddl);
    bool ok = ddl && !b.failed;
    if (!ok) ds_err(err, "cannot write %s/views.sql: out of memory", h->dir);
    else ok = ds_txn_put(t, "views.sql", b.data, b.len, err);
    free(ddl);
    pq_buf_free(&b);
    return ok;
}

/* The Parquet schema key of the dataset's schema dump alone (the union before this append). */
static bool old_key(const ds_handle *h, uint64_t *key, bb_error *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/_backbeat/schema.bb", h->dir);
    bb_dump *d = NULL;
    bb_model *m = NULL;
    bb_error e;
    memset(&e, 0, sizeof e);
    bool ok = bb_dump_open(path, &d, &e) == BB_OK && bb_model_open(&d, 1, true, &m, &e) == BB_OK;
    if (!ok) ds_err(err, "%s: %s", path, e.message);
    if (ok && !tw_schema_key(m, key)) {
        ds_err(err, "out of memory");
        ok = false;
    }
    if (m) bb_model_close(m);
    if (d) bb_dump_close(d);
    return ok;
}

/* Parts written before sources were kept: the marker, made by the first append that finds
 * such a dataset; when the union's schema now changes, they stay older (a second marker, made
 * once: the caller warns). */
static bool legacy(const ds_handle *h, ds_txn *t, plan *p, ds_report *rep, bb_error *err) {
    bool marked = has_file(h->bfd, "legacy");
    if (!marked && (p->n > 0 || !has_file(h->bfd, "schema.bb"))) return true;
    p->legacy = true;
    p->legacy_mixed = has_file(h->bfd, "legacy_mixed");
    static const char why[] = "parts written before backbeat kept an append's sources\n";
    if (!marked && !ds_txn_put(t, "_backbeat/legacy", why, sizeof why - 1, err)) return false;
    uint64_t k;
    if (p->legacy_mixed || !old_key(h, &k, err)) return p->legacy_mixed;
    if (k != p->key) {
        p->legacy_mixed = rep->legacy_mixed = true;
        return ds_txn_put(t, "_backbeat/legacy_mixed", why, sizeof why - 1, err);
    }
    return true;
}

/* The new append's manifest (its parts named at the commit); false after a message. */
static bool new_manifest(const ds_handle *h, ds_txn *t, const ds_append_args *a, const plan *p,
                         bb_error *err) {
    char(*keys)[40] = calloc(a->ninputs ? a->ninputs : 1, sizeof *keys);
    char **names = calloc(a->ninputs ? a->ninputs : 1, sizeof *names);
    bool ok = keys && names && ds_sources_add(h, t, a->inputs, a->ninputs, keys, err);
    if (!keys || !names) ds_err(err, "out of memory");
    ds_manifest m = {.schema = p->key, .shape = *a->shape, .sources = names};
    for (size_t i = 0; ok && i < a->ninputs; i++) {
        bool dup = false;
        for (size_t j = 0; j < m.nsources; j++) dup |= !strcmp(names[j], keys[i]);
        if (!dup) names[m.nsources++] = keys[i];
    }
    const convert_opts *o = a->opts;
    m.shape.codec = o->codec;
    m.shape.level = o->compression_level;
    m.shape.host = (char *)o->host_override;
    tw_sizes(o, &m.shape.row_group, &m.shape.budget);
    char final[64];
    unsigned long seq = p->n ? strtoul(p->v[p->n - 1].name, NULL, 10) + 1 : 1;
    snprintf(final, sizeof final, "_backbeat/appends/%08lu", seq);
    char *head = ok ? ds_manifest_text(&m, false) : NULL;
    if (ok && !head) ds_err(err, "out of memory");
    if (head) ds_txn_set_manifest(t, final, head);
    free(keys);
    free(names);
    return head != NULL;
}

/* Decide and do: the rewrite of the earlier appends, the new manifest; false after a message. */
static bool settle_parts(const ds_handle *h, ds_txn *t, const ds_append_args *a, plan *p,
                         ds_report *rep, bb_error *err) {
    if (!ds_manifests_load(h, &p->v, &p->n, err) || !legacy(h, t, p, rep, err)) return false;
    bool differ = false;
    for (size_t i = 0; i < p->n; i++) differ |= p->v[i].schema != p->key;
    if (differ && (a->no_rewrite || p->legacy)) p->mixed = true;
    else if (differ && !ds_rewrite(h, t, a->spec, p->schema, p->schema_len, p->key, p->v, p->n,
                                   a->opts->threads, rep, err))
        return false;
    return new_manifest(h, t, a, p, err);
}

/* Everything besides the new parts; false after a message. */
static bool add_metadata(const ds_handle *h, ds_txn *t, ds_index *ix, const ds_append_args *a,
                         ds_report *rep, bb_error *err) {
    plan p = {0};
    ds_blob schema = {0}, ranks = {0};
    char keys[80];
    ds_spec_text(a->spec, keys, sizeof keys - 1);
    strcat(keys, "\n");
    bool ok = tw_schema_key(a->model, &p.key);
    if (!ok) ds_err(err, "out of memory");
    ok = ok && ds_schema_encode(h->dir, a->model, a->opts->view_rank, &schema, &ranks, err);
    p.schema = schema.data;
    p.schema_len = schema.len;
    ok = ok && settle_parts(h, t, a, &p, rep, err) &&
         (!h->spec_new || ds_txn_put(t, "_backbeat/partitioning", keys, strlen(keys), err)) &&
         ds_index_save(ix, err) &&
         ds_txn_put(t, "_backbeat/schema.bb", p.schema, p.schema_len, err) &&
         ds_txn_put(t, "_backbeat/view_ranks", ranks.data, ranks.len, err) &&
         write_views(h, a->model, a->opts->view_rank, a->spec->nkeys, &p, t, err);
    free(schema.data);
    free(ranks.data);
    ds_manifests_free(p.v, p.n);
    return ok;
}

int ds_append(const ds_handle *h, const ds_append_args *a, ds_report *rep, bb_error *err) {
    memset(rep, 0, sizeof *rep);
    ds_txn *t = ds_txn_begin(h, err);
    ds_index *ix = t ? ds_index_load(h, t, a->model, err) : NULL;
    if (!ix) {
        ds_txn_free(t);
        return 1;
    }
    ds_route r = {.h = h, .t = t, .model = a->model, .opts = a->opts, .spec = a->spec, .ix = ix};
    size_t np = 0;
    uint64_t bytes = 0;
    int rc = ds_route_parts(&r, &np, &bytes, err);
    bool none =
        np == 0 && !h->spec_new && has_file(h->bfd, "schema.bb") && has_file(h->dfd, "views.sql");
    /* The parts, the sources, the manifests, the index, the schema dump and views.sql as one:
     * all or none; an append that adds no row to a dataset changes no file. */
    if (rc == 0 && !none && (!add_metadata(h, t, ix, a, rep, err) || !ds_txn_commit(t, err)))
        rc = 1;
    ds_txn_free(t);
    ds_index_free(ix);
    return rc;
}
