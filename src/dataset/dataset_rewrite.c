/* dataset_rewrite.c — earlier appends re-converted with a new union schema (see
 * dataset/dataset.h). Every append is replayed in its order from its kept sources plus the new
 * schema dump, with its own filters and writer options and an index of what the replays before
 * it wrote (so it keeps exactly the records it kept then): the same rows into the same parts,
 * now with the new union's Parquet schema. The new parts are temporaries of the appending
 * transaction, renamed over the old ones at its commit.
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/error_set.h"
#include "dataset/dataset_internal.h"
#include "read/model_groups.h"

/* The manifest's sources, then the schema dump, as one model; false after a message. */
static bool open_replay(const ds_handle *h, const ds_manifest *m, const uint8_t *schema, size_t len,
                        bb_dump **d, bb_model **model, bb_error *err) {
    bb_error e;
    memset(&e, 0, sizeof e);
    if (bb_dump_open_memory(schema, len, "schema.bb", &d[0], &e) != BB_OK) {
        ds_err(err, "%s/_backbeat/schema.bb: %s", h->dir, e.message);
        return false;
    }
    for (size_t i = 0; i < m->nsources; i++)
        if (!ds_source_open(h, m->sources[i], &d[i + 1], err)) return false;
    if (bb_model_open(d, m->nsources + 1, true, model, &e) != BB_OK) {
        ds_err(err, "%s: append %s: %s", h->dir, m->name, e.message);
        return false;
    }
    return true;
}

/* Only which records the append kept, into rx: one instance at a time, as the parts are
 * routed (the set's keys are in that order); false after a message. */
static bool replay_keys(const ds_handle *h, const bb_model *model, ds_shape *s, ds_index *rx,
                        bb_error *err) {
    bb__model_groups *g = bb__model_groups_new(model);
    bool ok = g != NULL;
    for (size_t i = 0; ok && i < bb_model_instance_count(model); i++) {
        bb_model_iter *it = NULL;
        ok = bb__model_groups_iter(g, i, &it) == BB_OK;
        bb_mrecord mr;
        while (ok && bb_model_next(it, &mr))
            if (ds_shape_keep(&mr, s) && !ds_index_has(rx, &mr.rec))
                ok = ds_index_add(rx, &mr.rec, err);
        if (!it) ds_err(err, "%s: out of memory", h->dir);
        bb_model_iter_free(it);
    }
    if (!g) ds_err(err, "%s: out of memory", h->dir);
    bb__model_groups_free(g);
    return ok;
}

/* The manifest with the new key, in place of the old one. */
static bool put_manifest(const ds_handle *h, ds_txn *t, ds_manifest *m, uint64_t key,
                         bb_error *err) {
    m->schema = key;
    char *text = ds_manifest_text(m, true);
    char final[64];
    snprintf(final, sizeof final, "_backbeat/appends/%s", m->name);
    bool ok = text && ds_txn_put(t, final, text, strlen(text), err);
    if (!text) ds_err(err, "%s: out of memory", h->dir);
    free(text);
    return ok;
}

/* Replay manifest m (rewriting its parts when its key is not `key`); false after a message. */
static bool replay_one(const ds_handle *h, ds_txn *t, const ds_spec *spec, const uint8_t *schema,
                       size_t len, uint64_t key, ds_manifest *m, ds_index *rx, bool last,
                       ds_report *rep, unsigned threads, bb_error *err) {
    bb_dump **d = calloc(m->nsources + 1, sizeof *d);
    bb_model *model = NULL;
    bool ok = d && open_replay(h, m, schema, len, d, &model, err);
    if (!d) ds_err(err, "out of memory");
    if (ok && m->schema == key) {
        ok = last || replay_keys(h, model, &m->shape, rx, err);
    } else if (ok) {
        char what[48];
        snprintf(what, sizeof what, "append %s", m->name);
        convert_opts co = {.out_name = h->dir,
                           .host_override = m->shape.host,
                           .compression_level = m->shape.level,
                           .codec = m->shape.codec,
                           .threads = threads,
                           .keep = ds_shape_keep,
                           .keep_ctx = &m->shape,
                           .row_group = m->shape.row_group,
                           .budget = m->shape.budget};
        ds_route r = {.h = h,
                      .t = t,
                      .model = model,
                      .opts = &co,
                      .spec = spec,
                      .ix = rx,
                      .no_add = last,
                      .fixed = m->parts,
                      .nfixed = m->nparts,
                      .what = what};
        size_t np = 0;
        ok = ds_route_parts(&r, &np, &rep->bytes, err) == 0 && put_manifest(h, t, m, key, err);
        rep->parts += np;
        rep->appends++;
    }
    if (model) bb_model_close(model);
    for (size_t i = 0; d && i <= m->nsources; i++)
        if (d[i]) bb_dump_close(d[i]);
    free(d);
    return ok;
}

bool ds_rewrite(const ds_handle *h, ds_txn *t, const ds_spec *spec, const uint8_t *schema,
                size_t len, uint64_t key, ds_manifest *v, size_t n, unsigned threads,
                ds_report *rep, bb_error *err) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ds_index *rx = ds_index_scratch(h, err);
    bool ok = rx != NULL;
    for (size_t i = 0; ok && i < n; i++)
        ok = replay_one(h, t, spec, schema, len, key, &v[i], rx, i + 1 == n, rep, threads, err) &&
             ds_index_seal(rx, err);
    ds_index_free(rx);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    rep->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    return ok;
}
