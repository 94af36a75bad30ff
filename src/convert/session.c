/* convert/session.c — the steps shared by the conversion entries (convert/session.h): open the
 * inputs and their model, make the filters concrete, rank the view sets, and the thread
 * counts the request's `threads` means. */
/* SPDX-License-Identifier: MIT */
#include "convert/session.h"

#include <stdlib.h>
#include <string.h>

#include "common/error_set.h"
#include "emit/view_order.h"

/* Encoding threads: the request's, or the online CPU count; a trace on a host of 2 CPUs or
 * fewer defaults to 1: its workers only render fields while one thread walks, merges and
 * assembles, and the hand-over cost more than it saved there (10 M records: 7.1 M records/s
 * with 1 thread, 4.6 with 2; docs/PERFORMANCE.md). The output is the same whatever the count. */
static unsigned encode_threads(const cv_request *rq, cv_format fmt) {
    if (rq->threads > 0) return (unsigned)rq->threads;
    unsigned cpus = em_cpu_count();
    return fmt == CV_TRACE && cpus <= 2 ? 1 : cpus;
}

/* Threads that walk the rings when the inputs are opened: the request's, or the online CPUs
 * (the walk hands nothing over, so it pays on any host). */
static unsigned walk_threads(const cv_request *rq) {
    return rq->threads > 0 ? (unsigned)rq->threads : em_cpu_count();
}

/* The rank of every view set of the inputs: the dumps' newest record times. */
static bool rank_views(cv_session *s, bool rank_one, bb_error *err) {
    size_t nv = 0;
    for (size_t i = 0; i < s->in.n; i++) nv += bb_dump_view_count(s->in.dumps[i]);
    s->view_rank = calloc(nv ? nv : 1, sizeof *s->view_rank);
    if (!s->view_rank) {
        bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "out of memory");
        return false;
    }
    if (rank_one || s->in.n > 1) em_view_ranks(s->model, s->in.dumps, s->in.n, s->view_rank);
    return true;
}

bool cv_session_open(const cv_request *rq, char *const *paths, size_t n, bool rank_one,
                     cv_session *s, bb_error *err) {
    memset(s, 0, sizeof *s);
    if (!cv_inputs_open(paths, n, rq->warn, rq->warn_ctx, &s->in, err)) return false;
    if (cv_inputs_model(&s->in, walk_threads(rq), &s->model, err) &&
        cv_filter_open(&rq->filter, s->model, rq->warn, rq->warn_ctx, &s->filter, err) &&
        rank_views(s, rank_one, err) &&
        cv_crashes_open(s->in.dumps, s->in.n, rq->symbols, &s->crashes, err) &&
        cv_triggers_open(s->in.dumps, s->in.n, &s->triggers, err))
        return true;
    cv_session_close(s);
    return false;
}

void cv_session_close(cv_session *s) {
    cv_filter_free(s->filter);
    if (s->model) bb_model_close(s->model);
    cv_inputs_close(&s->in);
    free(s->view_rank);
    cv_crashes_close(&s->crashes);
    cv_triggers_close(&s->triggers);
    memset(s, 0, sizeof *s);
}

convert_opts cv_session_opts(const cv_request *rq, cv_format fmt, const cv_session *s,
                             const char *out_name) {
    bool filtering = cv_filter_active(s->filter);
    convert_opts co = {.out_name = out_name,
                       .host_override = rq->host,
                       .compression_level = rq->level,
                       .codec = rq->codec,
                       .threads = encode_threads(rq, fmt),
                       .keep = filtering ? cv_filter_keep : NULL,
                       .keep_ctx = s->filter,
                       .progress = rq->progress,
                       .progress_ctx = rq->progress_ctx,
                       .view_rank = s->view_rank,
                       .crashes = s->crashes.notes,
                       .ncrashes = s->crashes.n,
                       .triggers = s->triggers.notes,
                       .ntriggers = s->triggers.n};
    return co;
}
