/* trace/trace_lanes.h — the lanes of one shard in a trace (trace/trace.c): which thread
 * track a span's slice is drawn on, decided when the span opens, so that the slices of a track
 * nest strictly and only by ancestry. Holds only the open slices (a stack per lane); the rules
 * are in trace/trace.c's file comment. The caller names lanes and walks ancestry; this keeps
 * the stacks and what each lane has held (its latest begin and end).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_TRACE_LANES_H
#define BB_CONVERT_TRACE_LANES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An open slice's place, embedded in the caller's open span. */
typedef struct tr_lane_slice {
    uint64_t b;       /* begin */
    size_t lane, pos; /* its lane, its index in that lane's stack (TL_NOWHERE: on none) */
} tr_lane_slice;

#define TL_NOWHERE SIZE_MAX

typedef struct tr_lane {
    uint32_t tid;
    tr_lane_slice **stack; /* open slices, outermost first, each an ancestor of the next */
    size_t depth, cap;
    bool used;                   /* a slice was placed here: max_begin/max_end hold */
    uint64_t max_begin, max_end; /* latest begin of a slice placed here, end of one closed */
} tr_lane;

typedef struct tr_lanes {
    tr_lane *v;
    size_t n;
} tr_lanes;

/* True if a slice beginning at b may go on top of open slice a (a is its lane's innermost). */
bool tr_lane_fits_on(const tr_lanes *L, const tr_lane_slice *a, uint64_t b);
/* The lowest lane with nothing open where a slice beginning at b fits; L->n if none. */
size_t tr_lane_free(const tr_lanes *L, uint64_t b);
/* Append an empty lane with thread id tid; false if out of memory. */
bool tr_lane_add(tr_lanes *L, uint32_t tid);
/* Put s on top of lane `lane`; false if out of memory (s is then on no lane). */
bool tr_lane_push(tr_lanes *L, size_t lane, tr_lane_slice *s);
/* The begin of the lowest slice still open above s on its lane (its open descendants that
 * outlive it), or false when there is none. */
bool tr_lane_above(const tr_lanes *L, const tr_lane_slice *s, uint64_t *b0);
/* Move the open slices above s, in order, onto the top of (empty) lane `to`; false if out of
 * memory (those not moved are then on no lane). */
bool tr_lane_move_above(tr_lanes *L, const tr_lane_slice *s, size_t to);
/* s closes at `end`: off its lane (whatever was above it already moved). Returns its lane's
 * tid. */
uint32_t tr_lane_close(tr_lanes *L, tr_lane_slice *s, uint64_t end);
/* Release the stacks. */
void tr_lane_free_all(tr_lanes *L);

#endif /* BB_CONVERT_TRACE_LANES_H */
