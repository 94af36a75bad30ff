/* top.h — what `backbeat top` (top.c) counts per ring file, event and shard over one interval,
 * and the renderer of those counts as a text table or JSON lines (top_render.c). */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_TOP_H
#define BACKBEAT_CLI_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/ring_reader.h"
#include "emit/obuf.h"

/* One event type seen in a process: its records this interval and since top started. */
typedef struct top_event {
    uint64_t id;
    char *name;
    uint64_t n, total;
} top_event;

/* One ring file watched. */
typedef struct top_proc {
    char *path;
    bb_ring *ring;       /* NULL: could not be opened (named once, not retried) */
    bb_ring_cursor *cur; /* one per shard */
    uint64_t *head0;     /* per shard: the writer's cursor at the interval's start */
    uint64_t *shard_n;   /* per shard: records this interval */
    uint64_t *shard_lost;
    uint64_t *from;      /* per shard: the cursor before the last follow call (its losses) */
    uint64_t n, total;   /* records this interval, since top started */
    uint64_t lost_total; /* bytes lost (the writer lapped top) since top started */
    top_event *ev;
    size_t nev, evcap;
    int live;        /* bb_ring_liveness at the interval's end */
    bool gone_shown; /* rendered once as gone with its file removed: dropped next */
} top_proc;

/* What one rendering shows. */
typedef struct top_view {
    top_proc *procs;
    size_t nprocs;
    uint64_t iteration;  /* 1, 2, ... */
    uint64_t elapsed_ns; /* the interval as measured */
    uint64_t wall_ns;    /* CLOCK_REALTIME at its end */
    bool shards, jsonl;
    int rows; /* text: at most this many lines (0: no limit) */
} top_view;

/* Append the interval's table (text) or rows (JSON lines) to `b`. */
void cli_top_render(em_obuf *b, const top_view *v);

#endif /* BACKBEAT_CLI_TOP_H */
