/* table/table_par.c — the Parquet table writer's parallel engine (convert --threads N > 1;
 * see table/table_priv.h for why the output is the serial one byte for byte).
 *
 * The reading thread (the caller's) pulls records from the model and stages them into one of
 * two batches (a pointer to their field bytes in the dump, which outlives the write; a copy
 * for the one record that wraps, whose bytes are the iterator's). A batch never crosses a
 * budget check (every PQW_CHECK_ROWS rows of a row group) nor the row-group size, so the cuts
 * are decided exactly where the serial writer decides them. While the N - 1 workers render one
 * batch, the reader fills the other; then it takes the batch's tasks no worker has started (as
 * worker N - 1: N threads in all, one per CPU by default), waits for the rest, counts the rows,
 * and closes the row group when due: the workers and the reader seal the column chunks
 * (tw_par_close), which are then written in order while the next row group is rendered: by a
 * worker with no task, a piece at a time, or by a thread that must append to a leaf's chunk
 * still there (wqueue). Memory: the columns are the serial writer's (the budget holds as
 * before: a chunk is written before its leaf takes a page of the next row group), plus two
 * batches and each thread's scratch.
 *
 * A batch is rendered a leaf (column) at a time: once it is full the reader sorts its row
 * indices by plan (a counting sort, while the workers still render the batch before), so a
 * leaf that one plan writes visits only that plan's rows; a leaf several plans write (promoted
 * columns, versions) scans the batch. The tasks are units of leaves, heaviest first: each
 * leaf's rendering is timed, and every PLAN_EVERY batches the units are re-cut from those times
 * (one unit per heavy leaf, light ones packed together), so the last tasks of a batch, the ones
 * a thread may wait for, are small. A leaf whose page the batch will likely fill goes first, in
 * a task of its own: cutting the page (its levels and indices encoded) is a lump of rendering
 * (order_tasks). The cut page's compression is no task of a batch: a worker with no task left
 * takes it (on_cut, idle_piece), so a compression of milliseconds never holds a batch's end;
 * the leaf's next cut and its seal wait for it, and the budget check counts it at its bound
 * (tw_par_buffered). Which thread renders or compresses never changes the bytes.
 *
 * The batches' item arrays are cache-line aligned and the reader asks for the next items' lines
 * for writing (PREFETCHW): its stores into lines a worker had just read were its largest cost
 * (20 % of all samples; docs/PERFORMANCE.md has the figures before and after).
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "table/table_priv.h"
#include "emit/workpool.h"
#include "parquet/codec.h"

#define BATCH_ROWS \
    8192u /* rows of one batch at most: divides PQW_CHECK_ROWS (fewer hand-overs:
                            2048 took 10-20 % more wall time on 2 CPUs) */
#define BATCH_BYTES ((size_t)8 << 20) /* field bytes one batch stages at most (then cut early) */
#define NO_FIELDS SIZE_MAX
#define UNITS_PER_THREAD \
    8 /* a batch's light leaves are packed into units of about
                              1 / (UNITS_PER_THREAD * threads) of its measured time */
#define PLAN_EVERY \
    16u                    /* batches between two cuts (the times of all of them: a column's
                              page is compressed in one batch of several) */
#define MISSING UINT32_MAX /* a leaf's action for a plan: NULL in the present group */
#define NOT_MINE (UINT32_MAX - 1)
#define PREFETCH_AHEAD \
    16u /* items (1 KiB) the reader asks for ahead of its stores: 16 and 32
                               took 2.04 / 2.09 s (10 M records, 2 threads, medians of 9) */

enum { SEAL_FREE, SEAL_TAKEN, SEAL_DONE }; /* a leaf's seal at a row group's close */
enum { PEND_NONE, PEND_READY, PEND_BUSY }; /* a leaf's cut page: none, waiting, compressing */
#define PAGE_HEADER_MAX 64u           /* bytes a data page's header takes at most (7 small ints) */
#define WRITE_PIECE ((size_t)1 << 20) /* bytes an idle worker writes at a time (~0.5 ms) */

#define WRAPS \
    0xFFFFFFFFu /* bb_record.offset of the record that wraps: its fields are the
                             iterator's copy, overwritten by the next record */

typedef tw_item item; /* parquet_writer.h */

typedef struct batch {
    _Alignas(64) item *items; /* own cache lines: the reader counts into one while workers read
                                 the other */
    size_t n;
    pq_buf bytes;     /* the staged records' field bytes */
    uint32_t *order;  /* the item indices grouped by plan, ascending in each */
    uint32_t *pstart; /* plan q's items are order[pstart[q] .. pstart[q + 1]) */
} batch;

/* A leaf and its measured cost, for cutting units. */
typedef struct leaf_cost {
    uint64_t ns;
    int32_t leaf;
} leaf_cost;

/* A leaf's open page as the batches go: what foresees that a batch will compress it. */
typedef struct leaf_page {
    size_t fill;       /* its bytes when the batch in flight was dispatched */
    size_t grow;       /* what it grew by in the leaf's last batch that did not compress it */
    uint64_t last_ns;  /* the leaf's rendering in its last batch */
    uint64_t flush_ns; /* ... in its last batch that compressed a page (0: none yet) */
} leaf_page;

/* The last closed row group's chunks, written in leaf order while the next one is rendered:
 * by a worker with no other work, a piece at a time, or whole by whoever must append to a leaf
 * whose chunk is still there (its next page) or close the next row group. Writing them at the
 * close left the workers idle: 0.1 s of a 10 M-record conversion. */
typedef struct wqueue {
    pthread_mutex_t mu; /* guards the rest; `next` is also read without it */
    bool mu_ok;
    pq_chunk_meta *meta; /* the row group's chunks, NULL when none is pending */
    _Atomic size_t next; /* first leaf not written whole (== nleaves: none pending) */
    uint64_t at;         /* bytes of leaf `next` written */
    uint64_t kept;       /* chunk buffer bytes kept by the leaves written (the writer's bound) */
    size_t keep_max;     /* ... at most this (budget / 2, as the serial writer's bound_kept) */
} wqueue;

struct tw_par {
    em_pool *pool;
    wqueue wq;
    unsigned nworkers;
    tw_lane *lanes; /* per worker */
    pq_ctx *ctxs;   /* per worker: compressor and page scratch */
    batch b[2];
    int cur;           /* the batch being filled */
    bool flying;       /* the other batch is being rendered */
    size_t fly_n;      /* its rows */
    uint64_t r0, seq0; /* its first row in the row group, its first seq */
    uint64_t batches;  /* dispatched so far */
    pq_chunk_meta *seal_to;
    tw_after_rows_fn after_rows; /* the writer's: closes the row group when due */
    uint32_t *lw_start; /* leaf L (>= PQ_DENSE) is written by the plans lw_plan[lw_start[L] ..
                           lw_start[L + 1]) (ascending), as field lw_act[..] or MISSING */
    uint32_t *lw_plan, *lw_act;
    size_t nunits; /* the tasks: unit u renders leaves uleaf[ustart[u] .. ustart[u + 1]) */
    uint32_t *ustart;
    int32_t *uleaf;
    uint64_t *cost;        /* per leaf: nanoseconds its rendering took since the last cut */
    leaf_cost *sorted;     /* scratch of cut_units and order_tasks */
    leaf_page *pages;      /* per leaf: its open page, to foresee its compression */
    atomic_uchar *sealing; /* per leaf: SEAL_*, at a row group's close */
    atomic_uchar *pend;    /* per leaf: PEND_*, its cut page (pq_cut_fn) */
    atomic_size_t npend;   /* leaves whose cut page no thread has taken */
    uint64_t *cut_bound;   /* per leaf: the most its pages cut since the last sync can take in
                              its chunk (compressed bound + header) */
    uint64_t *known;       /* per leaf: its chunk's bytes at the last sync */
    size_t nbu; /* this batch's tasks: task u renders bleaf[bstart[u] .. bstart[u + 1]) */
    uint32_t *bstart;
    int32_t *bleaf;
};

/* Ask for the cache line at p in a writable state: the reader is about to fill items whose
 * lines a worker read last (x86: PREFETCHW, a NOP on the processors that lack it; a read
 * prefetch, PREFETCHT0, left each store to wait for the line's ownership). */
static inline void prefetch_for_write(const void *p) {
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
}

/* Set "out of memory" as the message; returns 1. */
static int oom(writer *w) {
    if (w->err && w->errlen) snprintf(w->err, w->errlen, "out of memory");
    return 1;
}

/* Monotonic nanoseconds (0 if the clock fails: the cut is then arbitrary, never wrong). */
static uint64_t now_ns(void) {
    struct timespec t;
    if (clock_gettime(CLOCK_MONOTONIC, &t) != 0) return 0;
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Leaf L's action for plan q (a field index, MISSING), or NOT_MINE: a binary search of the
 * leaf's plans. */
static uint32_t action_of(const tw_par *p, int32_t L, uint32_t q) {
    uint32_t lo = p->lw_start[L], hi = p->lw_start[L + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->lw_plan[mid] == q) return p->lw_act[mid];
        if (p->lw_plan[mid] < q) lo = mid + 1;
        else hi = mid;
    }
    return NOT_MINE;
}

/* Action `a` of leaf L for item `it` as row r. */
static inline void put_action(writer *w, tw_lane *ln, int32_t L, uint32_t a, const item *it,
                              uint64_t r) {
    if (a == MISSING) pq_col_null(&w->cols[L], r, 1);
    else tw_render_field(w, ln, &it->rc, it->pl, a, r);
}

/* With wq.mu held: write at most `max` bytes of the pending chunks (in leaf order); a leaf
 * written whole lets its buffers go, keeping its chunk buffer within the writer's bound (what
 * the serial writer's pq_col_write and bound_kept do, in the same order). */
static void write_locked(writer *w, tw_par *p, size_t max) {
    wqueue *q = &p->wq;
    size_t n = w->lay.nleaves, L = atomic_load_explicit(&q->next, memory_order_relaxed);
    while (q->meta && L < n && max > 0) {
        pq_column *c = &w->cols[L];
        uint64_t before = q->at, total = pq_col_sealed_bytes(c);
        bool ok = pq_col_write_piece(c, &w->out, &q->meta[L], &q->at, max);
        size_t wrote = (size_t)(q->at - before);
        max = wrote < max ? max - wrote : 0;
        if (q->at < total && ok)
            break; /* the piece ended inside the leaf (after a failed write, w->out.error,
                      sticky, fails the rest and the writer) */
        pq_col_written(c);
        size_t k = pq_col_kept(c);
        if (q->kept + k > q->keep_max) pq_col_release(c);
        else q->kept += k;
        q->at = 0;
        atomic_store_explicit(&q->next, ++L, memory_order_release);
        if (L == n) q->meta = NULL;
    }
}

/* Leaves up to L written (their chunks free for the next row group's pages). */
static void write_upto(writer *w, tw_par *p, size_t L) {
    if (atomic_load_explicit(&p->wq.next, memory_order_acquire) > L) return;
    pthread_mutex_lock(&p->wq.mu);
    while (p->wq.meta && atomic_load_explicit(&p->wq.next, memory_order_relaxed) <= L)
        write_locked(w, p, SIZE_MAX);
    pthread_mutex_unlock(&p->wq.mu);
}

/* A piece of the pending chunks written, if any is pending and no other thread is writing;
 * false if nothing was. */
static bool write_piece(writer *w, tw_par *p) {
    if (atomic_load_explicit(&p->wq.next, memory_order_acquire) >= w->lay.nleaves ||
        pthread_mutex_trylock(&p->wq.mu) != 0)
        return false;
    bool any = p->wq.meta != NULL;
    write_locked(w, p, WRITE_PIECE);
    pthread_mutex_unlock(&p->wq.mu);
    return any;
}

bool tw_par_flush(writer *w) {
    tw_par *p = w->par;
    write_upto(w, p, w->lay.nleaves ? w->lay.nleaves - 1 : 0);
    return w->out.error == 0; /* set by the first failed write, on whichever thread */
}

/* Compress leaf L's cut page, taken by this thread (PEND_BUSY), with compressor x (after the
 * leaf's last chunk went out: the page goes into its buffer). */
static void compress_taken(writer *w, tw_par *p, size_t L, pq_ctx *x) {
    write_upto(w, p, L);
    (void)pq_col_compress_pend(&w->cols[L], x);
    atomic_store_explicit(&p->pend[L], PEND_NONE, memory_order_release);
}

/* Take leaf L's cut page if it waits (PEND_READY -> PEND_BUSY); false if none or taken. */
static bool take_pend(tw_par *p, size_t L) {
    unsigned char ready = PEND_READY;
    if (!atomic_compare_exchange_strong_explicit(&p->pend[L], &ready, PEND_BUSY,
                                                 memory_order_acquire, memory_order_relaxed))
        return false;
    atomic_fetch_sub_explicit(&p->npend, 1, memory_order_relaxed);
    return true;
}

static inline void cpu_relax(unsigned *spins);

/* Leaf L's cut page compressed before this thread goes on: compressed here (with x) if it
 * waits, waited for if another thread compresses it. */
static void pend_done(writer *w, tw_par *p, size_t L, pq_ctx *x) {
    unsigned spins = 0;
    for (;;) {
        unsigned char st = atomic_load_explicit(&p->pend[L], memory_order_acquire);
        if (st == PEND_NONE) return;
        if (st == PEND_READY && take_pend(p, L)) {
            compress_taken(w, p, L, x);
            return;
        }
        cpu_relax(&spins);
    }
}

/* A column's pq_cut_fn: the page before compressed first; the cut page handed to the threads
 * (a worker with no task left, else the leaf's next cut or its seal, or a budget check that
 * needs the exact count), outside the batches, so that a compression never holds a batch up. */
static void on_cut(void *arg, pq_column *c, int phase) {
    writer *w = arg;
    tw_par *p = w->par;
    size_t L = (size_t)(c - w->cols);
    if (phase == PQ_CUT_BEFORE) {
        pend_done(w, p, L, c->ctx);
        return;
    }
    p->cut_bound[L] += pq_codec_bound(c->ctx->codec, c->pend.len) + PAGE_HEADER_MAX;
    atomic_fetch_add_explicit(&p->npend, 1, memory_order_relaxed);
    atomic_store_explicit(&p->pend[L], PEND_READY, memory_order_release);
}

/* The pool's idle work (em_pool_idle_fn): compress one waiting cut page with thread k's compressor;
 * false if there was none. */
static bool idle_piece(void *arg, unsigned k) {
    writer *w = arg;
    tw_par *p = w->par;
    size_t n = w->lay.nleaves;
    if (atomic_load_explicit(&p->npend, memory_order_relaxed) == 0 || n == 0)
        return write_piece(w, p);
    for (size_t L = 0; L < n; L++) {
        if (atomic_load_explicit(&p->pend[L], memory_order_relaxed) == PEND_READY &&
            take_pend(p, L)) {
            compress_taken(w, p, L, &p->ctxs[k]);
            return true;
        }
    }
    return write_piece(w, p);
}

/* Leaf L of the batch in flight (b, its n rows from row r0, seq seq0). */
static void render_leaf(writer *w, tw_lane *ln, const batch *b, size_t n, uint64_t r0,
                        uint64_t seq0, int32_t L) {
    tw_par *p = w->par;
    if (L == w->lay.log_leaf) {
        tw_render_log(w, ln, b->items, n, r0);
        return;
    }
    if (L < PQ_DENSE) {
        tw_render_dense(w, L, b->items, n, r0, seq0);
        return;
    }
    uint32_t s = p->lw_start[L], e = p->lw_start[L + 1];
    if (e - s == 1) { /* one plan: its rows only */
        uint32_t q = p->lw_plan[s], a = p->lw_act[s];
        const uint32_t *rows = b->order + b->pstart[q];
        size_t nq = b->pstart[q + 1] - b->pstart[q];
        if (a != MISSING) tw_render_rows(w, ln, b->items, rows, nq, &w->lay.plans[q], a, r0);
        else
            for (size_t i = 0; i < nq; i++) pq_col_null(&w->cols[L], r0 + rows[i], 1);
        return;
    }
    for (size_t j = 0; j < n && e > s; j++) { /* several: every row, in order */
        const item *it = &b->items[j];
        uint32_t a = action_of(p, L, (uint32_t)(it->pl - w->lay.plans));
        if (a != NOT_MINE) put_action(w, ln, L, a, it, r0 + j);
    }
}

/* Task u of a batch: render unit u's leaves with worker k's compressor and scratch. */
static void render_task(void *arg, size_t u, unsigned k) {
    writer *w = arg;
    tw_par *p = w->par;
    /* locals: the reader keeps writing next to these while the task runs */
    const batch *b = &p->b[p->cur ^ 1];
    const size_t n = p->fly_n;
    const uint64_t r0 = p->r0, seq0 = p->seq0;
    uint64_t t = now_ns();
    for (uint32_t i = p->bstart[u]; i < p->bstart[u + 1]; i++) {
        int32_t L = p->bleaf[i];
        w->cols[L].ctx = &p->ctxs[k];
        render_leaf(w, &p->lanes[k], b, n, r0, seq0, L);
        uint64_t t1 = now_ns();
        p->cost[L] += t1 - t;
        p->pages[L].last_ns = t1 - t;
        t = t1;
    }
}

/* Leaf L's column sealed (at the row group's close) with thread k's compressor. */
static void seal_leaf(writer *w, tw_par *p, size_t L, unsigned k) {
    pend_done(w, p, L, &p->ctxs[k]);
    w->cols[L].ctx = &p->ctxs[k];
    (void)pq_col_seal(&w->cols[L], w->rg_rows, &p->seal_to[L]);
}

/* Seal leaf L with thread k's compressor unless another thread has taken it. */
static void try_seal(writer *w, tw_par *p, size_t L, unsigned k) {
    unsigned char free_ = SEAL_FREE;
    if (!atomic_compare_exchange_strong_explicit(&p->sealing[L], &free_, SEAL_TAKEN,
                                                 memory_order_relaxed, memory_order_relaxed))
        return;
    seal_leaf(w, p, L, k);
    atomic_store_explicit(&p->sealing[L], SEAL_DONE, memory_order_release);
}

/* Task u of a row group's close: seal leaf u, unless the reader took it. */
static void seal_task(void *arg, size_t u, unsigned k) {
    writer *w = arg;
    try_seal(w, w->par, u, k);
}

/* Heavier first, then by leaf: a total order, so the cut is the same for equal times. */
static int by_cost(const void *a, const void *b) {
    const leaf_cost *x = a, *y = b;
    if (x->ns != y->ns) return x->ns > y->ns ? -1 : 1;
    return (x->leaf > y->leaf) - (x->leaf < y->leaf);
}

/* Re-cut the units from the leaves' times since the last cut: heaviest first, each unit at least a
 * 1 / (UNITS_PER_THREAD * threads) share of the batch (a heavier leaf is a unit alone). */
static void cut_units(writer *w, tw_par *p) {
    size_t n = w->lay.nleaves;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        p->sorted[i] = (leaf_cost){p->cost[i], (int32_t)i};
        total += p->cost[i];
        p->cost[i] = 0;
    }
    qsort(p->sorted, n, sizeof *p->sorted, by_cost);
    uint64_t share = total / ((uint64_t)UNITS_PER_THREAD * (p->nworkers + 1)), acc = 0;
    p->nunits = 0;
    for (size_t i = 0; i < n; i++) {
        p->uleaf[i] = p->sorted[i].leaf;
        acc += p->sorted[i].ns;
        if (acc >= share || i + 1 == n) {
            p->ustart[++p->nunits] = (uint32_t)(i + 1);
            acc = 0;
        }
    }
}

/* Will leaf L's page likely fill, and be cut, in the next batch (as much again as in its last
 * batch that cut none)? */
static bool will_flush(const writer *w, const leaf_page *g) {
    return g->grow && g->fill + g->grow >= w->ctx.page_bytes;
}

/* The next batch's tasks: first, a task per leaf whose page it will likely fill, the slowest
 * such task first; then the units without those leaves. Filling a page was a lump (its
 * compression, up to a few batches' rendering of the others) that, started last, kept the
 * other threads waiting; since compressions left the batches (on_cut) it is the cut, the page's
 * levels and indices encoded, and this order was not measured again. With every batch landed:
 * the pages are the serial writer's. */
static void order_tasks(writer *w, tw_par *p) {
    size_t n = w->lay.nleaves, k = 0;
    for (size_t L = 0; L < n; L++) {
        leaf_page *g = &p->pages[L];
        size_t f = w->cols[L].vals.len + w->cols[L].lev.len;
        if (f >= g->fill) g->grow = f - g->fill;
        else /* compressed in the last batch (or the row group closed) */ g->flush_ns = g->last_ns;
        g->fill = f;
        if (will_flush(w, g))
            p->sorted[k++] = (leaf_cost){g->flush_ns ? g->flush_ns : UINT64_MAX, (int32_t)L};
    }
    qsort(p->sorted, k, sizeof *p->sorted, by_cost);
    p->nbu = 0;
    p->bstart[0] = 0;
    for (size_t i = 0; i < k; i++) {
        p->bleaf[i] = p->sorted[i].leaf;
        p->bstart[++p->nbu] = (uint32_t)(i + 1);
    }
    for (size_t u = 0; u < p->nunits; u++) {
        for (uint32_t i = p->ustart[u]; i < p->ustart[u + 1]; i++)
            if (!will_flush(w, &p->pages[p->uleaf[i]])) p->bleaf[k++] = p->uleaf[i];
        if (k > p->bstart[p->nbu]) p->bstart[++p->nbu] = (uint32_t)k;
    }
}

/* A pause in a wait for another thread's seal: a spin hint, and every 1024th time the CPU
 * given up (more threads than CPUs: the sealer may be waiting for this one's). */
static inline void cpu_relax(unsigned *spins) {
    if (++*spins % 1024 == 0) {
        sched_yield();
        return;
    }
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("pause");
#endif
}

/* The workers seal the leaves upwards, the reader downwards, first those whose cut page no
 * worker is compressing (sealing one waits for that page: 17 ms of a 10 M-record conversion went
 * to such waits); the sealed chunks are then written while the next row group is rendered
 * (wqueue), the last row group's first: a seal appends to its leaf's chunk. */
bool tw_par_close(writer *w, pq_chunk_meta *chunks) {
    tw_par *p = w->par;
    size_t n = w->lay.nleaves;
    if (!tw_par_flush(w)) return false;
    p->seal_to = chunks;
    for (size_t L = 0; L < n; L++)
        atomic_store_explicit(&p->sealing[L], SEAL_FREE, memory_order_relaxed);
    em_pool_start(p->pool, seal_task, w, n);
    for (int busy_too = 0; busy_too < 2; busy_too++)
        for (size_t L = n; L-- > 0;)
            if (busy_too || atomic_load_explicit(&p->pend[L], memory_order_relaxed) != PEND_BUSY)
                try_seal(w, p, L, p->nworkers);
    bool ok = true;
    unsigned spins = 0;
    for (size_t L = 0; L < n; L++) {
        while (atomic_load_explicit(&p->sealing[L], memory_order_acquire) != SEAL_DONE)
            cpu_relax(&spins);
        ok = ok && w->cols[L].sealed_ok;
        pq_col_next_rowgroup(&w->cols[L]); /* its chunk stays until written */
        p->known[L] = 0;
        p->cut_bound[L] = 0;
    }
    em_pool_wait(p->pool);
    pthread_mutex_lock(&p->wq.mu);
    p->wq.meta = chunks;
    p->wq.at = 0;
    p->wq.kept = 0;
    atomic_store_explicit(&p->wq.next, 0, memory_order_release);
    pthread_mutex_unlock(&p->wq.mu);
    return ok;
}

/* Stage a copy of item `tmpl` into batch b, its field bytes (n of them, or none: src NULL)
 * copied from src; false if out of memory. */
static bool stage(batch *b, const item *tmpl, const void *src, size_t n) {
    item *it = &b->items[b->n];
    *it = *tmpl;
    it->foff = NO_FIELDS;
    if (src) {
        it->foff = b->bytes.len;
        pq_buf_put(&b->bytes, src, n);
        if (b->bytes.failed) return false;
    }
    b->n++;
    return true;
}

/* Bytes of an item's fields. */
static size_t item_len(const item *it) {
    return (it->rc.schema ? it->rc.schema : it->pl->schema)->record_size;
}

/* Wait for the batch in flight, count its rows, close the row group when due. */
static int land(writer *w) {
    tw_par *p = w->par;
    if (!p->flying) return 0;
    em_pool_help(p->pool, p->nworkers);
    p->flying = false;
    w->rg_rows += p->fly_n;
    w->rows += p->fly_n;
    return p->after_rows(w);
}

/* Batch b's first k item indices grouped by plan (a stable counting sort). */
static void sort_by_plan(const writer *w, batch *b, size_t k) {
    size_t np = w->lay.nplans;
    uint32_t *at = b->pstart;
    memset(at, 0, (np + 1) * sizeof *at);
    for (size_t j = 0; j < k; j++) at[b->items[j].pl - w->lay.plans + 1]++;
    for (size_t q = 0; q < np; q++) at[q + 1] += at[q];
    for (size_t j = 0; j < k; j++) /* at[q] moves from q's start to its end */
        b->order[at[b->items[j].pl - w->lay.plans]++] = (uint32_t)j;
    memmove(at + 1, at, np * sizeof *at);
    at[0] = 0;
}

/* Hand the workers the first rows of the batch being filled, up to the next budget check or
 * the row group's end; the rest moves to the other batch, which is filled next. The caller
 * sorted the whole batch by plan (sort_by_plan); it is sorted again only when cut. */
static bool dispatch(writer *w) {
    tw_par *p = w->par;
    batch *b = &p->b[p->cur], *o = &p->b[p->cur ^ 1];
    uint64_t need = PQW_CHECK_ROWS - (w->rg_rows & (PQW_CHECK_ROWS - 1));
    if (w->rg_max - w->rg_rows < need) need = w->rg_max - w->rg_rows;
    size_t k = b->n < need ? b->n : (size_t)need;
    if (k == 0) return true;
    bool cut = k < b->n;
    o->n = 0;
    o->bytes.len = 0;
    for (size_t j = k; j < b->n; j++) {
        const item *it = &b->items[j];
        if (!stage(o, it, it->foff == NO_FIELDS ? NULL : b->bytes.data + it->foff, item_len(it)))
            return false;
    }
    b->n = k;
    for (size_t j = 0; j < k; j++) /* the bytes stay put from here on */
        if (b->items[j].foff != NO_FIELDS) b->items[j].rc.fields = b->bytes.data + b->items[j].foff;
    if (cut) sort_by_plan(w, b, k);
    if (++p->batches % PLAN_EVERY == 0) /* the batches before have landed */
        cut_units(w, p);
    order_tasks(w, p);
    p->fly_n = k;
    p->r0 = w->rg_rows;
    p->seq0 = w->rows;
    p->flying = true;
    p->cur ^= 1;
    em_pool_start(p->pool, render_task, w, p->nbu);
    return true;
}

size_t tw_par_buffered(writer *w, size_t budget) {
    tw_par *p = w->par;
    size_t n = w->lay.nleaves;
    uint64_t bound = 0; /* the chunks as last known, what the pages cut since may add, the rest */
    for (size_t L = 0; L < n; L++)
        bound += p->known[L] + p->cut_bound[L] + pq_col_open_bytes(&w->cols[L]);
    if (bound <= budget) return (size_t)bound;
    size_t exact = 0; /* over the bound: every cut page compressed, then counted */
    for (size_t L = 0; L < n; L++) {
        write_upto(w, p, L); /* the last row group's chunk is not this one's */
        pend_done(w, p, L, &p->ctxs[p->nworkers]);
        p->known[L] = w->cols[L].chunk.len;
        p->cut_bound[L] = 0;
        exact += pq_col_buffered(&w->cols[L]);
    }
    return exact;
}

int tw_par_add(writer *w, const bb_mrecord *mr, tw_plan *pl, instance_slot *is) {
    tw_par *p = w->par;
    batch *b = &p->b[p->cur];
    if (is) is->rows++; /* here, not on the workers: the reader reads the slot's id on every row */
    if (b->n + PREFETCH_AHEAD < BATCH_ROWS) prefetch_for_write(&b->items[b->n + PREFETCH_AHEAD]);
    item *it = &b->items[b->n++];
    it->rc = tw_rec_of(mr);
    it->foff = NO_FIELDS;
    it->pl = pl;
    it->is = is;
    if (mr->rec.fields && mr->rec.offset == WRAPS) { /* the one copy that does not stay put */
        it->foff = b->bytes.len;
        pq_buf_put(&b->bytes, mr->rec.fields, item_len(it));
        if (b->bytes.failed) return oom(w);
    }
    if (b->n < BATCH_ROWS && b->bytes.len < BATCH_BYTES) return 0;
    sort_by_plan(w, b, b->n); /* now, while the workers are busy, not at dispatch */
    int rc = land(w);
    if (rc) return rc;
    return dispatch(w) ? 0 : oom(w);
}

int tw_par_drain(writer *w) {
    tw_par *p = w->par;
    for (;;) {
        sort_by_plan(w, &p->b[p->cur], p->b[p->cur].n); /* as tw_par_add does */
        int rc = land(w);
        if (rc) return rc;
        if (p->b[p->cur].n == 0) break;
        if (!dispatch(w)) return oom(w);
    }
    for (unsigned k = 0; k <= p->nworkers; k++)
        if (p->lanes[k].text.failed) return oom(w);
    return 0;
}

/* Leaf of field f of plan pl that the engine renders by plan (-1: padding, or dense). */
static int32_t field_leaf(const tw_plan *pl, size_t f) {
    return pl->map[f].pad || pl->map[f].leaf < PQ_DENSE ? -1 : pl->map[f].leaf;
}

/* Which plans write each leaf, and how (lw_*: two passes, a count and a fill, in plan order,
 * so each leaf's plans are ascending); one unit per leaf until the first timing. */
static bool leaf_work(writer *w, tw_par *p) {
    size_t n = w->lay.nleaves, np = w->lay.nplans;
    p->lw_start = calloc(n + 1, sizeof *p->lw_start);
    p->ustart = calloc(n + 1, sizeof *p->ustart);
    p->uleaf = calloc(n ? n : 1, sizeof *p->uleaf);
    p->cost = calloc(n ? n : 1, sizeof *p->cost);
    p->sorted = calloc(n ? n : 1, sizeof *p->sorted);
    p->pages = calloc(n ? n : 1, sizeof *p->pages);
    p->sealing = calloc(n ? n : 1, sizeof *p->sealing);
    p->pend = calloc(n ? n : 1, sizeof *p->pend);
    p->cut_bound = calloc(n ? n : 1, sizeof *p->cut_bound);
    p->known = calloc(n ? n : 1, sizeof *p->known);
    p->bstart = calloc(n + 1, sizeof *p->bstart);
    p->bleaf = calloc(n ? n : 1, sizeof *p->bleaf);
    uint32_t *next = calloc(n ? n : 1, sizeof *next);
    bool ok = p->lw_start && p->ustart && p->uleaf && p->cost && p->sorted && p->pages &&
              p->sealing && p->pend && p->cut_bound && p->known && p->bstart && p->bleaf && next;
    for (size_t q = 0; ok && q < np; q++) {
        const tw_plan *pl = &w->lay.plans[q];
        for (size_t f = 0; f < pl->schema->field_count; f++)
            if (field_leaf(pl, f) >= 0) p->lw_start[field_leaf(pl, f) + 1]++;
        for (size_t i = 0; i < pl->nmissing; i++) p->lw_start[pl->missing[i] + 1]++;
    }
    for (size_t L = 0; ok && L < n; L++) p->lw_start[L + 1] += p->lw_start[L];
    size_t total = ok ? p->lw_start[n] : 0;
    p->lw_plan = calloc(total ? total : 1, sizeof *p->lw_plan);
    p->lw_act = calloc(total ? total : 1, sizeof *p->lw_act);
    ok = ok && p->lw_plan && p->lw_act;
    if (ok) memcpy(next, p->lw_start, n * sizeof *next);
    for (size_t q = 0; ok && q < np; q++) {
        const tw_plan *pl = &w->lay.plans[q];
        for (size_t f = 0; f < pl->schema->field_count; f++) {
            int32_t L = field_leaf(pl, f);
            if (L >= 0) {
                p->lw_plan[next[L]] = (uint32_t)q;
                p->lw_act[next[L]++] = (uint32_t)f;
            }
        }
        for (size_t i = 0; i < pl->nmissing; i++) {
            p->lw_plan[next[pl->missing[i]]] = (uint32_t)q;
            p->lw_act[next[pl->missing[i]]++] = MISSING;
        }
    }
    free(next);
    for (size_t L = 0; ok && L < n; L++) {
        p->uleaf[L] = (int32_t)L;
        p->ustart[L + 1] = (uint32_t)(L + 1);
    }
    p->nunits = n;
    return ok;
}

/* Each worker's compressor (the writer's settings) and the two batches. */
static bool alloc_workers(writer *w, tw_par *p) {
    p->lanes = calloc(p->nworkers + 1, sizeof *p->lanes);
    p->ctxs = calloc(p->nworkers + 1, sizeof *p->ctxs);
    if (!p->lanes || !p->ctxs) return false;
    for (unsigned k = 0; k <= p->nworkers; k++) {
        if (!pq_ctx_init(&p->ctxs[k], &w->out, w->ctx.level)) return false;
        p->ctxs[k].codec = w->ctx.codec;
        p->ctxs[k].page_bytes = w->ctx.page_bytes;
        p->ctxs[k].dict_max = w->ctx.dict_max;
    }
    for (int i = 0; i < 2; i++) { /* bytes from the start: never NULL + offset */
        p->b[i].items = aligned_alloc(64, BATCH_ROWS * sizeof *p->b[i].items);
        p->b[i].order = malloc(BATCH_ROWS * sizeof *p->b[i].order);
        p->b[i].pstart = malloc((w->lay.nplans + 1) * sizeof *p->b[i].pstart);
        if (!p->b[i].items || !p->b[i].order || !p->b[i].pstart ||
            !pq_buf_reserve(&p->b[i].bytes, 65536))
            return false;
    }
    return true;
}

int tw_par_start(writer *w, unsigned threads, tw_after_rows_fn after_rows) {
    tw_par *p = calloc(1, sizeof *p);
    if (!p) return 1;
    w->par = p;
    p->nworkers = threads - 1; /* and the reading thread, which helps (em_pool_help) */
    p->after_rows = after_rows;
    p->wq.next = w->lay.nleaves; /* nothing to write */
    p->wq.keep_max = w->budget / 2;
    p->wq.mu_ok = pthread_mutex_init(&p->wq.mu, NULL) == 0;
    if (!p->wq.mu_ok || !leaf_work(w, p) || !alloc_workers(w, p)) return 1;
    p->pool = em_pool_create(p->nworkers);
    if (!p->pool) { /* no threads to be had: the serial writer, same output */
        tw_par_free(w);
        return 0;
    }
    em_pool_set_idle(p->pool, idle_piece, w);
    for (size_t i = 0; i < w->lay.nleaves; i++) { /* full pages compressed outside the batches */
        w->cols[i].on_cut = on_cut;
        w->cols[i].cut_arg = w;
    }
    return 0;
}

void tw_par_free(writer *w) {
    tw_par *p = w->par;
    if (!p) return;
    if (p->pool) {
        em_pool_wait(p->pool);
        em_pool_free(p->pool);
    }
    for (unsigned k = 0; p->lanes && k <= p->nworkers; k++) {
        pq_buf_free(&p->lanes[k].text);
        bb__u64map_free(&p->lanes[k].utf8);
    }
    for (unsigned k = 0; p->ctxs && k <= p->nworkers; k++)
        if (p->ctxs[k].zstd) pq_ctx_free(&p->ctxs[k]);
    /* the columns may still point at a worker's compressor: give them the writer's back (a
     * page cut and not compressed is left only on a failure: the output is abandoned) */
    for (size_t i = 0; w->cols && i < w->lay.nleaves; i++) {
        w->cols[i].ctx = &w->ctx;
        w->cols[i].on_cut = NULL;
    }
    if (p->wq.mu_ok) pthread_mutex_destroy(&p->wq.mu);
    for (int i = 0; i < 2; i++) {
        free(p->b[i].items);
        free(p->b[i].order);
        free(p->b[i].pstart);
        pq_buf_free(&p->b[i].bytes);
    }
    free(p->lanes);
    free(p->ctxs);
    free(p->lw_start);
    free(p->lw_plan);
    free(p->lw_act);
    free(p->ustart);
    free(p->uleaf);
    free(p->cost);
    free(p->sorted);
    free(p->pages);
    free((void *)p->sealing);
    free((void *)p->pend);
    free(p->cut_bound);
    free(p->known);
    free(p->bstart);
    free(p->bleaf);
    free(p);
    w->par = NULL;
}
