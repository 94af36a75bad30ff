/* convert/parquet_par.c — the Parquet table writer's parallel engine (convert --threads N > 1;
 * see convert/parquet_writer.h for why the output is the serial one byte for byte).
 *
 * The reading thread (the caller's) pulls records from the model and stages them into one of
 * two batches (a pointer to their field bytes in the dump, which outlives the write; a copy
 * for the one record that wraps, whose bytes are the iterator's). A batch never crosses a
 * budget check (every PQW_CHECK_ROWS rows of a row group) nor the row-group size, so the cuts
 * are decided exactly where the serial writer decides them. While the N - 1 workers render one
 * batch, each task into its own group of columns (leaf i belongs to group i mod G, G = 2N at
 * most), the reader fills the other; then it takes the batch's tasks no worker has started
 * (as worker N - 1: N threads in all, one per CPU by default), waits for the rest, counts the
 * rows, and closes the row group when due: the workers and the reader seal the column chunks,
 * the reader writes them in order. Memory: the columns are the serial writer's (the budget holds
 * as before), plus two batches and each thread's scratch.
 *
 * The batches' item arrays are cache-line aligned and the reader asks for the next items' lines
 * for writing (PREFETCHW): its stores into lines a worker had just read were its largest cost
 * (20 % of all samples; docs/PERFORMANCE.md has the figures before and after).
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert/parquet_writer.h"
#include "convert/workpool.h"

#define BATCH_ROWS 8192u /* rows of one batch at most: divides PQW_CHECK_ROWS (fewer hand-overs:
                            2048 took 10-20 % more wall time on 2 CPUs) */
#define BATCH_BYTES ((size_t)8 << 20) /* field bytes one batch stages at most (then cut early) */
#define NO_FIELDS SIZE_MAX
#define GROUPS_PER_THREAD 2 /* column groups (tasks of a batch) per worker: some balance */
#define PREFETCH_AHEAD 16u  /* items (1 KiB) the reader asks for ahead of its stores: 16 and 32
                               took 2.04 / 2.09 s (10 M records, 2 threads, medians of 9) */

#define WRAPS 0xFFFFFFFFu /* bb_record.offset of the record that wraps: its fields are the
                             iterator's copy, overwritten by the next record */

typedef pqw_item item; /* parquet_writer.h */

typedef struct batch {
    _Alignas(64) item *items; /* own cache lines: the reader counts into one while workers read
                                 the other */
    size_t n;
    pq_buf bytes; /* the staged records' field bytes */
} batch;

struct pq_par {
    wp_pool *pool;
    unsigned nworkers;
    size_t ngroups;
    uint8_t *owner;     /* leaf -> group */
    size_t *gstart;     /* group g's leaves: gleaf[gstart[g] .. gstart[g+1]) */
    size_t *gleaf;
    pqw_lane *lanes;    /* per worker */
    pq_ctx *ctxs;       /* per worker: compressor and page scratch */
    batch b[2];
    int cur;            /* the batch being filled */
    bool flying;        /* the other batch is being rendered */
    size_t fly_n;       /* its rows */
    uint64_t r0, seq0;  /* its first row in the row group, its first seq */
    pq_chunk_meta *seal_to;
    pqw_after_rows_fn after_rows; /* the writer's: closes the row group when due */
    size_t *pfstart;    /* plan p's fields of group g: pfield[pfstart[p*G+g] .. pfstart[p*G+g+1]) */
    uint32_t *pfield;
};

/* Ask for the cache line at p in a writable state: the reader is about to fill items whose
 * lines a worker read last (x86: PREFETCHW, a NOP on the processors that lack it; a read
 * prefetch, PREFETCHT0, left each store to wait for the line's ownership). */
static inline void prefetch_for_write(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
}

/* Set "out of memory" as the message; returns 1. */
static int oom(writer *w)
{
    if (w->err && w->errlen)
        snprintf(w->err, w->errlen, "out of memory");
    return 1;
}

/* Point group g's columns at worker k's compressor and scratch. */
static void bind(writer *w, size_t g, unsigned k)
{
    pq_par *p = w->par;
    for (size_t i = p->gstart[g]; i < p->gstart[g + 1]; i++)
        w->cols[p->gleaf[i]].ctx = &p->ctxs[k];
}

/* Task g of a batch: render its rows into group g's columns. */
static void render_task(void *arg, size_t g, unsigned k)
{
    writer *w = arg;
    pq_par *p = w->par;
    bind(w, g, k);
    /* locals: the reader keeps writing next to these while the task runs */
    const item *items = p->b[p->cur ^ 1].items;
    const size_t n = p->fly_n, G = p->ngroups, *pfstart = p->pfstart;
    const uint32_t *pfield = p->pfield;
    const uint64_t r0 = p->r0, seq0 = p->seq0;
    const pq_plan *plans = w->lay.plans;
    pqw_lane *ln = &p->lanes[k];
    for (int32_t d = 0; d < PQ_DENSE && (size_t)d < w->lay.nleaves; d++)
        if (p->owner[d] == g) /* column by column: one loop each */
            pqw_render_dense(w, d, items, n, r0, seq0);
    for (size_t j = 0; j < n; j++) {
        const item *it = &items[j];
        size_t at = (size_t)(it->pl - plans) * G + g;
        pqw_render_part(w, ln, (int)g, &pfield[pfstart[at]], pfstart[at + 1] - pfstart[at],
                        &it->rc, it->pl, r0 + j);
    }
}

/* Task g of a row group's close: seal group g's columns. */
static void seal_task(void *arg, size_t g, unsigned k)
{
    writer *w = arg;
    pq_par *p = w->par;
    bind(w, g, k);
    for (size_t i = p->gstart[g]; i < p->gstart[g + 1]; i++)
        (void)pq_col_seal(&w->cols[p->gleaf[i]], w->rg_rows, &p->seal_to[p->gleaf[i]]);
}

void pq_par_seal(writer *w, pq_chunk_meta *chunks)
{
    w->par->seal_to = chunks;
    wp_start(w->par->pool, seal_task, w, w->par->ngroups);
    wp_help(w->par->pool, w->par->nworkers);
}

/* Stage a copy of item `tmpl` into batch b, its field bytes (n of them, or none: src NULL)
 * copied from src; false if out of memory. */
static bool stage(batch *b, const item *tmpl, const void *src, size_t n)
{
    item *it = &b->items[b->n];
    *it = *tmpl;
    it->foff = NO_FIELDS;
    if (src) {
        it->foff = b->bytes.len;
        pq_buf_put(&b->bytes, src, n);
        if (b->bytes.failed)
            return false;
    }
    b->n++;
    return true;
}

/* Bytes of an item's fields. */
static size_t item_len(const item *it)
{
    return (it->rc.schema ? it->rc.schema : it->pl->schema)->record_size;
}

/* Wait for the batch in flight, count its rows, close the row group when due. */
static int land(writer *w)
{
    pq_par *p = w->par;
    if (!p->flying)
        return 0;
    wp_help(p->pool, p->nworkers);
    p->flying = false;
    w->rg_rows += p->fly_n;
    w->rows += p->fly_n;
    return p->after_rows(w);
}

/* Hand the workers the first rows of the batch being filled, up to the next budget check or
 * the row group's end; the rest moves to the other batch, which is filled next. */
static bool dispatch(writer *w)
{
    pq_par *p = w->par;
    batch *b = &p->b[p->cur], *o = &p->b[p->cur ^ 1];
    uint64_t need = PQW_CHECK_ROWS - (w->rg_rows & (PQW_CHECK_ROWS - 1));
    if (w->rg_max - w->rg_rows < need)
        need = w->rg_max - w->rg_rows;
    size_t k = b->n < need ? b->n : (size_t)need;
    if (k == 0)
        return true;
    o->n = 0;
    o->bytes.len = 0;
    for (size_t j = k; j < b->n; j++) {
        const item *it = &b->items[j];
        if (!stage(o, it, it->foff == NO_FIELDS ? NULL : b->bytes.data + it->foff, item_len(it)))
            return false;
    }
    b->n = k;
    for (size_t j = 0; j < k; j++) /* the bytes stay put from here on */
        if (b->items[j].foff != NO_FIELDS)
            b->items[j].rc.fields = b->bytes.data + b->items[j].foff;
    p->fly_n = k;
    p->r0 = w->rg_rows;
    p->seq0 = w->rows;
    p->flying = true;
    p->cur ^= 1;
    wp_start(p->pool, render_task, w, p->ngroups);
    return true;
}

int pq_par_add(writer *w, const bb_mrecord *mr, pq_plan *pl, instance_slot *is)
{
    pq_par *p = w->par;
    batch *b = &p->b[p->cur];
    if (is)
        is->rows++; /* here, not on the workers: the reader reads the slot's id on every row */
    if (b->n + PREFETCH_AHEAD < BATCH_ROWS)
        prefetch_for_write(&b->items[b->n + PREFETCH_AHEAD]);
    item *it = &b->items[b->n++];
    it->rc = pqw_rec_of(mr);
    it->foff = NO_FIELDS;
    it->pl = pl;
    it->is = is;
    if (mr->rec.fields && mr->rec.offset == WRAPS) { /* the one copy that does not stay put */
        it->foff = b->bytes.len;
        pq_buf_put(&b->bytes, mr->rec.fields, item_len(it));
        if (b->bytes.failed)
            return oom(w);
    }
    if (b->n < BATCH_ROWS && b->bytes.len < BATCH_BYTES)
        return 0;
    int rc = land(w);
    if (rc)
        return rc;
    return dispatch(w) ? 0 : oom(w);
}

int pq_par_drain(writer *w)
{
    pq_par *p = w->par;
    for (;;) {
        int rc = land(w);
        if (rc)
            return rc;
        if (p->b[p->cur].n == 0)
            break;
        if (!dispatch(w))
            return oom(w);
    }
    for (unsigned k = 0; k <= p->nworkers; k++)
        if (p->lanes[k].text.failed)
            return oom(w);
    return 0;
}

/* Leaf i to group i mod G, and each group's leaves in order. */
static bool assign_groups(writer *w, pq_par *p)
{
    size_t n = w->lay.nleaves;
    p->ngroups = (size_t)(p->nworkers + 1) * GROUPS_PER_THREAD;
    if (p->ngroups > n)
        p->ngroups = n ? n : 1;
    if (p->ngroups > 255)
        p->ngroups = 255;
    p->owner = calloc(n ? n : 1, 1);
    p->gstart = calloc(p->ngroups + 1, sizeof *p->gstart);
    p->gleaf = calloc(n ? n : 1, sizeof *p->gleaf);
    if (!p->owner || !p->gstart || !p->gleaf)
        return false;
    size_t at = 0;
    for (size_t g = 0; g < p->ngroups; g++) {
        p->gstart[g] = at;
        for (size_t i = g; i < n; i += p->ngroups) {
            p->owner[i] = (uint8_t)g;
            p->gleaf[at++] = i;
        }
    }
    p->gstart[p->ngroups] = at;
    return true;
}

/* Each plan's fields, by the group of their leaf (in field order within a group). */
static bool plan_fields(writer *w, pq_par *p)
{
    size_t G = p->ngroups, np = w->lay.nplans, total = 0;
    p->pfstart = calloc(np * G + 1, sizeof *p->pfstart);
    for (size_t i = 0; i < np; i++)
        total += w->lay.plans[i].schema->field_count;
    p->pfield = calloc(total ? total : 1, sizeof *p->pfield);
    if (!p->pfstart || !p->pfield)
        return false;
    size_t at = 0;
    for (size_t i = 0; i < np; i++) {
        const pq_plan *pl = &w->lay.plans[i];
        for (size_t g = 0; g < G; g++) {
            p->pfstart[i * G + g] = at;
            for (size_t f = 0; f < pl->schema->field_count; f++)
                if (!pl->map[f].pad && p->owner[pl->map[f].leaf] == g)
                    p->pfield[at++] = (uint32_t)f;
        }
    }
    p->pfstart[np * G] = at;
    return true;
}

/* Each worker's compressor (the writer's settings) and the two batches. */
static bool alloc_workers(writer *w, pq_par *p)
{
    p->lanes = calloc(p->nworkers + 1, sizeof *p->lanes);
    p->ctxs = calloc(p->nworkers + 1, sizeof *p->ctxs);
    if (!p->lanes || !p->ctxs)
        return false;
    for (unsigned k = 0; k <= p->nworkers; k++) {
        if (!pq_ctx_init(&p->ctxs[k], &w->out, w->ctx.level))
            return false;
        p->ctxs[k].codec = w->ctx.codec;
        p->ctxs[k].page_bytes = w->ctx.page_bytes;
        p->ctxs[k].dict_max = w->ctx.dict_max;
    }
    for (int i = 0; i < 2; i++) { /* bytes from the start: never NULL + offset */
        p->b[i].items = aligned_alloc(64, BATCH_ROWS * sizeof *p->b[i].items);
        if (!p->b[i].items || !pq_buf_reserve(&p->b[i].bytes, 65536))
            return false;
    }
    return true;
}

int pq_par_start(writer *w, unsigned threads, pqw_after_rows_fn after_rows)
{
    pq_par *p = calloc(1, sizeof *p);
    if (!p)
        return 1;
    w->par = p;
    p->nworkers = threads - 1; /* and the reading thread, which helps (wp_help) */
    p->after_rows = after_rows;
    if (!assign_groups(w, p) || !plan_fields(w, p) || !alloc_workers(w, p))
        return 1;
    p->pool = wp_create(p->nworkers);
    if (!p->pool) { /* no threads to be had: the serial writer, same output */
        pq_par_free(w);
        return 0;
    }
    w->owner = p->owner;
    return 0;
}

void pq_par_free(writer *w)
{
    pq_par *p = w->par;
    if (!p)
        return;
    if (p->pool) {
        wp_wait(p->pool);
        wp_free(p->pool);
    }
    for (unsigned k = 0; p->lanes && k <= p->nworkers; k++) {
        pq_buf_free(&p->lanes[k].text);
        u64map_free(&p->lanes[k].utf8);
    }
    for (unsigned k = 0; p->ctxs && k <= p->nworkers; k++)
        if (p->ctxs[k].zstd)
            pq_ctx_free(&p->ctxs[k]);
    /* the columns may still point at a worker's compressor: give them the writer's back */
    for (size_t i = 0; w->cols && i < w->lay.nleaves; i++)
        w->cols[i].ctx = &w->ctx;
    for (int i = 0; i < 2; i++) {
        free(p->b[i].items);
        pq_buf_free(&p->b[i].bytes);
    }
    free(p->lanes);
    free(p->ctxs);
    free(p->owner);
    free(p->gstart);
    free(p->gleaf);
    free(p->pfstart);
    free(p->pfield);
    free(p);
    w->par = NULL;
    w->owner = NULL;
}
