/* view_order.c — the rank of the inputs' view sets and the order convert emits them in (see
 * emit/view_order.h): the newest record timestamp of the dumps carrying a set, oldest set
 * first, so the newest build's definition of a view wins.
 */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "emit/view_order.h"
#include "read/u64map.h"

uint64_t em_view_text_hash(bb_strview v) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < v.len; i++) h = (h ^ (uint8_t)v.ptr[i]) * 0x100000001b3ull;
    return h;
}

void em_view_ranks(const bb_model *m, bb_dump *const *dumps, size_t n, uint64_t *rank) {
    size_t k = 0;
    for (size_t d = 0; d < n; d++) {
        size_t nv = bb_dump_view_count(dumps[d]);
        uint64_t ts = nv ? bb_model_input_newest(m, d) : 0;
        for (size_t i = 0; i < nv; i++) rank[k++] = ts;
    }
}

/* The set of texts seen, by content: the index of an equal earlier text, or SIZE_MAX after
 * remembering text i. *oom when out of memory. */
static size_t first_copy(bb__u64map *seen, const bb_strview *texts, size_t i, bool *oom) {
    for (uint64_t k = em_view_text_hash(texts[i]);; k++) {
        const bb_strview *o = bb__u64map_get(seen, k);
        if (!o) {
            *oom = !bb__u64map_put(seen, k, (void *)&texts[i]);
            return SIZE_MAX;
        }
        if (o->len == texts[i].len && (o->len == 0 || !memcmp(o->ptr, texts[i].ptr, o->len)))
            return (size_t)(o - texts);
    }
}

typedef struct ranked {
    uint64_t rank;
    size_t view; /* first occurrence: the inputs' order among equal ranks */
} ranked;

static int cmp_ranked(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->view < y->view ? -1 : x->view > y->view;
}

bool em_view_order(const bb_model *m, const uint64_t *rank, size_t *order, uint64_t *set_rank,
                   size_t *n) {
    size_t nv = bb_model_view_count(m);
    bb_strview *texts = calloc(nv ? nv : 1, sizeof *texts);
    ranked *sets = calloc(nv ? nv : 1, sizeof *sets);
    size_t *slot = calloc(nv ? nv : 1, sizeof *slot); /* view -> its set, for first copies */
    bb__u64map seen;
    bb__u64map_init(&seen);
    bool oom = !texts || !sets || !slot;
    size_t ns = 0;
    for (size_t i = 0; !oom && i < nv; i++) {
        texts[i] = bb_model_view(m, i);
        uint64_t r = rank ? rank[i] : 0;
        size_t first = first_copy(&seen, texts, i, &oom);
        if (first == SIZE_MAX) {
            slot[i] = ns;
            sets[ns++] = (ranked){r, i};
        } else if (r > sets[slot[first]].rank) {
            sets[slot[first]].rank = r;
        }
    }
    if (!oom) {
        qsort(sets, ns, sizeof *sets, cmp_ranked);
        for (size_t k = 0; k < ns; k++) {
            order[k] = sets[k].view;
            if (set_rank) set_rank[k] = sets[k].rank;
        }
        *n = ns;
    }
    bb__u64map_free(&seen);
    free(texts);
    free(sets);
    free(slot);
    return !oom;
}
