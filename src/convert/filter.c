/* convert/filter.c — the record filters (convert/filter.h): the time window made absolute from
 * the first record, event-name patterns matched against the model's schemas, instance ids
 * checked, and the per-record predicate the writers call. */
/* SPDX-License-Identifier: MIT */
#include "convert/filter.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_set.h"
#include "read/u64map.h"

struct cv_filter {
    bool since_set, until_set;
    uint64_t since, until;
    bool by_event;
    bb__u64map events; /* kept event ids */
    size_t ninst;
    uint64_t *inst;
};

#define nomem(err) bb__err_set((err), BB_ERR_NOMEM, UINT64_MAX, NULL, "out of memory")

bool cv_filter_keep(const bb_mrecord *r, void *ctx) {
    const cv_filter *f = ctx;
    if (f->since_set && r->rec.ts < f->since) return false;
    if (f->until_set && r->rec.ts > f->until) return false;
    if (f->by_event && !bb__u64map_get(&f->events, r->rec.event_id)) return false;
    if (f->ninst) {
        size_t i = 0;
        while (i < f->ninst && f->inst[i] != r->rec.instance_id) i++;
        if (i == f->ninst) return false;
    }
    return true;
}

bool cv_filter_active(const cv_filter *f) {
    return f->since_set || f->until_set || f->by_event || f->ninst;
}

/* Relative since / until from the first record's timestamp; saturating, so a window reaching
 * past the end of time keeps everything to the end. False when out of memory. */
static bool resolve_relative(cv_filter *f, const cv_filter_spec *spec, const bb_model *model) {
    if (!spec->since_rel && !spec->until_rel) return true;
    uint64_t first = 0;
    bb_model_iter *it;
    if (bb_model_iter_new(model, &it) != BB_OK) return false;
    bb_mrecord r;
    if (bb_model_next(it, &r)) first = r.rec.ts;
    bb_model_iter_free(it);
    if (spec->since_rel) f->since = f->since > UINT64_MAX - first ? UINT64_MAX : first + f->since;
    if (spec->until_rel) f->until = f->until > UINT64_MAX - first ? UINT64_MAX : first + f->until;
    return true;
}

/* Keep schema s when its qualified or display name matches `pat` (setting *any); false when
 * out of memory. */
static bool match_event(cv_filter *f, const bb_model *model, const bb_rschema *s, const char *pat,
                        bool *any) {
    char *qn = strndup(s->name.ptr, s->name.len);
    const char *dn = bb_model_display_name(model, s->id);
    if (!qn) return false;
    bool ok = true;
    if (!fnmatch(pat, qn, 0) || (dn && !fnmatch(pat, dn, 0))) {
        *any = true;
        ok = bb__u64map_put(&f->events, s->id, (void *)1);
    }
    free(qn);
    return ok;
}

/* The ids of the events some pattern matches (a warning for a pattern none does); false when
 * out of memory. */
static bool select_events(cv_filter *f, const cv_filter_spec *spec, const bb_model *model,
                          cv_warn_fn warn, void *ctx) {
    if (!spec->nevents) return true;
    f->by_event = true;
    for (size_t k = 0; k < spec->nevents; k++) {
        bool any = false;
        for (size_t i = 0; i < bb_model_schema_count(model); i++)
            if (!match_event(f, model, bb_model_schema(model, i), spec->events[k], &any))
                return false;
        if (any || !warn) continue;
        size_t n = strlen(spec->events[k]) + 64;
        char *msg = malloc(n);
        if (!msg) return false;
        snprintf(msg, n, "warning: --event '%s' matches no event in the inputs", spec->events[k]);
        warn(msg, ctx);
        free(msg);
    }
    return true;
}

/* A warning for an instance id the model lacks. */
static void check_instances(const cv_filter *f, const bb_model *model, cv_warn_fn warn, void *ctx) {
    for (size_t k = 0; warn && k < f->ninst; k++) {
        bool any = false;
        for (size_t i = 0; i < bb_model_instance_count(model); i++)
            if (bb_model_instance(model, i)->instance_id == f->inst[k]) any = true;
        if (any) continue;
        char msg[80];
        snprintf(msg, sizeof msg, "warning: --instance %016llx is not in the inputs",
                 (unsigned long long)f->inst[k]);
        warn(msg, ctx);
    }
}

bool cv_filter_open(const cv_filter_spec *spec, const bb_model *model, cv_warn_fn warn,
                    void *warn_ctx, cv_filter **out, bb_error *err) {
    cv_filter *f = calloc(1, sizeof *f);
    *out = NULL;
    if (!f || !(f->inst = calloc(spec->ninst ? spec->ninst : 1, sizeof *f->inst))) {
        free(f);
        nomem(err);
        return false;
    }
    bb__u64map_init(&f->events);
    f->since_set = spec->since_set;
    f->until_set = spec->until_set;
    f->since = spec->since;
    f->until = spec->until;
    f->ninst = spec->ninst;
    if (spec->ninst) memcpy(f->inst, spec->inst, spec->ninst * sizeof *f->inst);
    if (!resolve_relative(f, spec, model) || !select_events(f, spec, model, warn, warn_ctx)) {
        cv_filter_free(f);
        nomem(err);
        return false;
    }
    check_instances(f, model, warn, warn_ctx);
    *out = f;
    bb__err_clear(err);
    return true;
}

void cv_filter_free(cv_filter *f) {
    if (!f) return;
    bb__u64map_free(&f->events);
    free(f->inst);
    free(f);
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

bool cv_filter_shape(const cv_filter *f, const bb_model *model, ds_shape *s) {
    *s = (ds_shape){.since_set = f->since_set,
                    .until_set = f->until_set,
                    .by_event = f->by_event,
                    .since = f->since,
                    .until = f->until,
                    .ninst = f->ninst};
    size_t ns = bb_model_schema_count(model);
    s->events = calloc(ns ? ns : 1, sizeof *s->events);
    s->inst = calloc(f->ninst ? f->ninst : 1, sizeof *s->inst);
    if (!s->events || !s->inst) return false;
    for (size_t i = 0; f->by_event && i < ns; i++) {
        uint64_t id = bb_model_schema(model, i)->id;
        if (bb__u64map_get(&f->events, id)) s->events[s->nevents++] = id;
    }
    if (f->ninst) memcpy(s->inst, f->inst, f->ninst * sizeof *s->inst);
    qsort(s->events, s->nevents, sizeof *s->events, cmp_u64);
    qsort(s->inst, s->ninst, sizeof *s->inst, cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < s->ninst; i++)
        if (!k || s->inst[k - 1] != s->inst[i]) s->inst[k++] = s->inst[i];
    s->ninst = k;
    return true;
}
