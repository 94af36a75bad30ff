/* trace/trace_lanes.c — the lanes of one shard in a trace: stacks of open slices (see
 * trace/trace_lanes.h; the rules are in trace/trace.c's file comment). */
/* SPDX-License-Identifier: MIT */
#include "trace/trace_lanes.h"

#include <stdlib.h>
#include <string.h>

/* A slice beginning at b may go on lane l: it begins after every slice placed there began and
 * after every slice closed there ended (never in the same nanosecond: a viewer's ts + dur in
 * doubles can land after the next slice's ts and the DevTools engine then drops that slice). */
static bool fits(const tr_lane *l, uint64_t b) {
    return !l->used || (l->max_begin < b && l->max_end < b);
}

/* True if s is on its lane's stack where it says. */
static bool placed(const tr_lanes *L, const tr_lane_slice *s) {
    return s->lane < L->n && s->pos < L->v[s->lane].depth && L->v[s->lane].stack[s->pos] == s;
}

bool tr_lane_fits_on(const tr_lanes *L, const tr_lane_slice *a, uint64_t b) {
    if (!placed(L, a)) return false;
    const tr_lane *l = &L->v[a->lane];
    return a->pos + 1 == l->depth && fits(l, b);
}

size_t tr_lane_free(const tr_lanes *L, uint64_t b) {
    for (size_t i = 0; i < L->n; i++)
        if (!L->v[i].depth && fits(&L->v[i], b)) return i;
    return L->n;
}

bool tr_lane_add(tr_lanes *L, uint32_t tid) {
    tr_lane *nv = realloc(L->v, (L->n + 1) * sizeof *nv);
    if (!nv) return false;
    L->v = nv;
    memset(&L->v[L->n], 0, sizeof L->v[L->n]);
    L->v[L->n++].tid = tid;
    return true;
}

bool tr_lane_push(tr_lanes *L, size_t lane, tr_lane_slice *s) {
    s->lane = TL_NOWHERE;
    s->pos = TL_NOWHERE;
    if (lane >= L->n) return false;
    tr_lane *l = &L->v[lane];
    if (l->depth == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 8;
        tr_lane_slice **ns = realloc(l->stack, nc * sizeof *ns);
        if (!ns) return false;
        l->stack = ns;
        l->cap = nc;
    }
    s->lane = lane;
    s->pos = l->depth;
    l->stack[l->depth++] = s;
    if (!l->used || s->b > l->max_begin) l->max_begin = s->b;
    l->used = true;
    return true;
}

bool tr_lane_above(const tr_lanes *L, const tr_lane_slice *s, uint64_t *b0) {
    if (!placed(L, s) || s->pos + 1 == L->v[s->lane].depth) return false;
    *b0 = L->v[s->lane].stack[s->pos + 1]->b;
    return true;
}

bool tr_lane_move_above(tr_lanes *L, const tr_lane_slice *s, size_t to) {
    if (!placed(L, s) || to == s->lane) return false;
    size_t from = s->lane, k = s->pos + 1, depth = L->v[from].depth;
    bool ok = true;
    for (; k < depth; k++) /* tr_lane_push reallocates only lane `to`'s stack */
        if (!tr_lane_push(L, to, L->v[from].stack[k])) ok = false;
    L->v[from].depth = s->pos + 1;
    return ok;
}

uint32_t tr_lane_close(tr_lanes *L, tr_lane_slice *s, uint64_t end) {
    if (!placed(L, s)) return L->n ? L->v[0].tid : 0; /* out of memory earlier: the shard's */
    tr_lane *l = &L->v[s->lane];
    l->depth = s->pos;
    if (end > l->max_end) l->max_end = end;
    return l->tid;
}

void tr_lane_free_all(tr_lanes *L) {
    for (size_t i = 0; i < L->n; i++) free(L->v[i].stack);
    free(L->v);
    L->v = NULL;
    L->n = 0;
}
