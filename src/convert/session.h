/* convert/session.h — what every conversion entry (convert/convert.h) does before it writes:
 * the inputs opened as one de-duplicating model, the request's filters made concrete over it,
 * and the rank of every view set (emit/view_order.h); and the writers' options from the
 * request. Internal to the convert room. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_SESSION_H
#define BB_CONVERT_SESSION_H

#include "convert/convert.h"
#include "convert/crash_notes.h"
#include "convert/trigger_notes.h"

typedef struct cv_session {
    cv_inputs in;
    bb_model *model;
    cv_filter *filter;
    uint64_t *view_rank;  /* per bb_model_view */
    cv_crashes crashes;   /* the inputs' crashes, symbolized (convert/crash_notes.c) */
    cv_triggers triggers; /* what fired the inputs' triggered dumps (convert/trigger_notes.c) */
} cv_session;

/* Open the n `paths` (rq's inputs, maybe after others) and everything above over them.
 * `rank_one`: a single input's view sets are ranked too (else they keep rank 0, which orders
 * them as any rank would, and its records are not walked for it). False with a message, nothing
 * left open. */
bool cv_session_open(const cv_request *rq, char *const *paths, size_t n, bool rank_one,
                     cv_session *s, bb_error *err);
void cv_session_close(cv_session *s);

/* The writers' options for `rq` over the open session (output named `out_name`). */
convert_opts cv_session_opts(const cv_request *rq, cv_format fmt, const cv_session *s,
                             const char *out_name);

#endif /* BB_CONVERT_SESSION_H */
