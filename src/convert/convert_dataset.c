/* convert/convert_dataset.c — cv_dataset_append (convert/convert.h): the whole append of input
 * paths to a dataset in one call. Under the dataset's lock (dataset/dataset.h), its partition
 * keys settled, the inputs opened after its schema dump as one model (so every part gets the
 * dataset's union schema; the schema dump's view sets first among equal ranks, the sets then
 * going by rank so the newest data's definitions win, emit/view_order.h), the filters made
 * concrete, then the append and its commit. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_set.h"
#include "convert/convert.h"
#include "convert/session.h"

#define nomem(err) bb__err_set((err), BB_ERR_NOMEM, UINT64_MAX, NULL, "out of memory")

/* The append of the open session (its inputs: in.dumps[skip..n), the dataset's schema dump
 * before them when skip is 1). */
static bool append(const cv_request *rq, const cv_dataset *ds, const ds_handle *h,
                   const cv_session *s, size_t skip, ds_report *rep, bb_error *err) {
    size_t n = s->in.n - skip;
    ds_shape shape = {0};
    ds_input *in = calloc(n ? n : 1, sizeof *in);
    bool ok = false;
    if (!in || !cv_filter_shape(s->filter, s->model, &shape)) {
        nomem(err);
    } else {
        for (size_t i = 0; i < n; i++) {
            in[i].path = rq->inputs[i];
            in[i].mem = cv_inputs_memory(&s->in, i + skip, &in[i].len);
        }
        convert_opts co = cv_session_opts(rq, CV_PARQUET, s, ds->dir);
        ds_append_args a = {.model = s->model,
                            .opts = &co,
                            .spec = &ds->spec,
                            .shape = &shape,
                            .inputs = in,
                            .ninputs = n,
                            .no_rewrite = ds->no_rewrite};
        ok = ds_append(h, &a, rep, err) == 0;
    }
    free(shape.events);
    free(shape.inst);
    free(in);
    return ok;
}

/* The inputs after the schema dump (when there is one), opened, ranked, appended. */
static bool open_and_append(const cv_request *rq, const cv_dataset *ds, const ds_handle *h,
                            char *schema, ds_report *rep, bb_error *err) {
    size_t skip = schema != NULL, n = rq->ninputs + skip;
    char **paths = calloc(n, sizeof *paths);
    if (!paths) {
        nomem(err);
        return false;
    }
    if (schema) paths[0] = schema;
    memcpy(paths + skip, rq->inputs, rq->ninputs * sizeof *paths);
    cv_session s;
    bool ok = cv_session_open(rq, paths, n, true, &s, err);
    free(paths);
    if (!ok) return false;
    /* the schema dump's sets ranked as the dataset keeps them */
    ok = (!schema || ds_schema_ranks(h, s.in.dumps[0], s.view_rank, err)) &&
         append(rq, ds, h, &s, skip, rep, err);
    cv_session_close(&s);
    return ok;
}

/* The report kept, and told: a rewrite done, and parts whose schema stays mixed. */
static void report(const cv_request *rq, const ds_handle *h, cv_dataset_report *rep) {
    snprintf(rep->dir, sizeof rep->dir, "%s", h->dir);
    if (!rq->warn) return;
    char msg[4096 + 256];
    if (rep->ds.appends) {
        snprintf(msg, sizeof msg,
                 "%s: the schema changed: rewrote %zu parts of %zu earlier appends, %llu bytes, "
                 "in %.2f s",
                 h->dir, rep->ds.parts, rep->ds.appends, (unsigned long long)rep->ds.bytes,
                 rep->ds.seconds);
        rq->warn(msg, rq->warn_ctx);
    }
    if (rep->ds.legacy_mixed) {
        snprintf(msg, sizeof msg,
                 "warning: %s: the schema changed and parts written before backbeat kept sources "
                 "cannot be rewritten: read the dataset with union_by_name (views.sql does)",
                 h->dir);
        rq->warn(msg, rq->warn_ctx);
    }
}

bool cv_dataset_append(const cv_request *rq, const cv_dataset *ds, cv_dataset_report *rep,
                       bb_error *err) {
    memset(rep, 0, sizeof *rep);
    ds_handle h;
    if (!ds_open(&h, ds->dir, err)) return false;
    cv_dataset d = *ds;
    char *schema = NULL;
    bool ok = ds_settle_spec(&h, &d.spec, d.spec_given, err) && ds_schema_dump(&h, &schema, err) &&
              open_and_append(rq, &d, &h, schema, &rep->ds, err);
    if (ok) report(rq, &h, rep);
    free(schema);
    ds_close(&h, !ok);
    return ok;
}
