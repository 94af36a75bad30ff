/* convert/filter.h — the record filters of a conversion (what `backbeat convert --since,
 * --until, --event, --instance` ask for), as a library call: a spec of plain values made
 * concrete against the opened model (relative times from its first record, event-name
 * patterns into event ids), then a convert_pred that keeps the records passing every filter.
 * Prints nothing: warnings go to a callback, failures are bb_error values. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_FILTER_H
#define BB_CONVERT_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/error.h"
#include "backbeat/model.h"
#include "dataset/dataset.h"

/* A warning ("warning: ...", no newline) for the caller to show (may be NULL: none shown). */
typedef void (*cv_warn_fn)(const char *msg, void *ctx);

/* What to keep: a record is kept when it passes all of the filters set. */
typedef struct cv_filter_spec {
    bool since_set, until_set; /* keep ts >= since, ts <= until */
    bool since_rel, until_rel; /* ... counted from the first record's ts (saturating) */
    uint64_t since, until;
    const char *const *events; /* glob patterns ('*', '?') over the qualified or display name */
    size_t nevents;
    const uint64_t *inst; /* instance ids */
    size_t ninst;
} cv_filter_spec;

/* A spec made concrete against one model (opaque). */
typedef struct cv_filter cv_filter;

/* The filter of `spec` over `model` into *out: relative times made absolute, the events the
 * patterns match selected; a warning for a pattern that matches no event, then for an instance
 * id the model lacks. False (*out NULL) when out of memory. */
bool cv_filter_open(const cv_filter_spec *spec, const bb_model *model, cv_warn_fn warn,
                    void *warn_ctx, cv_filter **out, bb_error *err);
void cv_filter_free(cv_filter *f);

/* Whether any filter is set (else every record is kept). */
bool cv_filter_active(const cv_filter *f);
/* convert_pred over a cv_filter (ctx): whether the record passes every filter. */
bool cv_filter_keep(const bb_mrecord *r, void *ctx);

/* The filters as a dataset's manifest keeps them (times absolute, ids sorted, instance ids
 * distinct) into *s, its other fields zero (its events and inst malloc'ed: free both, also on
 * failure). False when out of memory. */
bool cv_filter_shape(const cv_filter *f, const bb_model *model, ds_shape *s);

#endif /* BB_CONVERT_FILTER_H */
