/* model_groups.c — the model's records one instance at a time (see model_groups.h): the rings
 * sorted by instance id, and for each instance of the model the range of them it owns. */
/* SPDX-License-Identifier: MIT */
#include "read/model_groups.h"

#include <stdlib.h>

#include "read/model_priv.h"

struct bb__model_groups {
    const bb_model *m;
    size_t *rings; /* ring indexes, by (instance id, ring) */
    size_t *start; /* instance i owns rings[start[i], start[i + 1]) */
};

static int by_instance(const void *a, const void *b, void *ctx) {
    const bb_model *m = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    uint64_t ix = m->shards[x].shard->instance_id, iy = m->shards[y].shard->instance_id;
    if (ix != iy) return ix < iy ? -1 : 1;
    return x < y ? -1 : x > y;
}

bb__model_groups *bb__model_groups_new(const bb_model *m) {
    bb__model_groups *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->m = m;
    g->rings = malloc((m->nshards ? m->nshards : 1) * sizeof *g->rings);
    g->start = malloc((m->ninst + 1) * sizeof *g->start);
    if (!g->rings || !g->start) {
        bb__model_groups_free(g);
        return NULL;
    }
    for (size_t i = 0; i < m->nshards; i++) g->rings[i] = i;
    qsort_r(g->rings, m->nshards, sizeof *g->rings, by_instance, (void *)m);
    /* Both sorted by id: one merge walk (an instance without rings owns an empty range). */
    size_t r = 0;
    for (size_t i = 0; i < m->ninst; i++) {
        uint64_t id = m->inst[i]->instance_id;
        while (r < m->nshards && m->shards[g->rings[r]].shard->instance_id < id) r++;
        g->start[i] = r;
        while (r < m->nshards && m->shards[g->rings[r]].shard->instance_id == id) r++;
    }
    g->start[m->ninst] = r;
    return g;
}

void bb__model_groups_free(bb__model_groups *g) {
    if (!g) return;
    free(g->rings);
    free(g->start);
    free(g);
}

bb_status bb__model_groups_iter(const bb__model_groups *g, size_t i, bb_model_iter **out) {
    if (i >= g->m->ninst) return BB_ERR_INVALID;
    return bb__model_iter_open(g->m, g->rings + g->start[i], g->start[i + 1] - g->start[i], out);
}

uint64_t bb__model_groups_records(const bb__model_groups *g, size_t i) {
    uint64_t n = 0;
    for (size_t k = i < g->m->ninst ? g->start[i] : 0; i < g->m->ninst && k < g->start[i + 1]; k++)
        n += g->m->shards[g->rings[k]].n;
    return n;
}
