/* trace/trace_par.c — the trace writer's parallel engine (see trace/trace_par.h): chunks of
 * literal JSON with holes, the holes rendered by tasks (task t renders a fixed share of them
 * into its own buffer, so the bytes do not depend on which worker ran it), then written out in
 * order on the writer's thread while the next chunk is gathered. */
/* SPDX-License-Identifier: MIT */
#include "trace/trace_par.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emit/workpool.h"
#include "parquet/buf.h"

#define CHUNK_HOLES 4096 /* holes of one chunk (then handed over) */
#define TASKS_PER_THREAD 2
#define LIT_START (256u << 10)

typedef struct hole {
    size_t at; /* offset in the chunk's literal text */
    const void *ev;
    const bb_rschema *s;
    const bb_rinstance *inst;
    size_t foff;       /* field bytes in the chunk's arena */
    size_t roff, rlen; /* its rendering in its task's buffer */
    size_t task;
} hole;

typedef struct chunk {
    em_obuf lit;
    hole *holes;
    size_t n;
    pq_buf bytes; /* the holes' field bytes (failed: out of memory) */
} chunk;

struct trace_par {
    em_pool *pool;
    size_t ntasks;
    tr_par_render_fn render;
    em_obuf out; /* the fd */
    chunk c[2];
    int cur;       /* the chunk being gathered (its lit is the writer's while it is) */
    bool flying;   /* the other chunk is being rendered */
    em_obuf *rbuf; /* per task */
    bool oom;
};

/* Task t: render its share of the flying chunk's holes into its own buffer. */
static void render_task(void *arg, size_t t, unsigned worker) {
    (void)worker;
    trace_par *p = arg;
    chunk *c = &p->c[p->cur ^ 1];
    em_obuf *b = &p->rbuf[t];
    b->len = 0;
    size_t lo = c->n * t / p->ntasks, hi = c->n * (t + 1) / p->ntasks;
    for (size_t i = lo; i < hi; i++) {
        hole *h = &c->holes[i];
        h->task = t;
        h->roff = b->len;
        p->render(b, h->ev, h->s, c->bytes.data + h->foff, h->inst);
        h->rlen = b->len - h->roff;
    }
}

/* The rendering of hole i of chunk c. */
static const char *rendered(const trace_par *p, const chunk *c, size_t i) {
    return p->rbuf[c->holes[i].task].data + c->holes[i].roff;
}

/* Wait for the flying chunk and write it out: literal and rendered pieces in order. */
static void land(trace_par *p) {
    if (!p->flying) return;
    em_pool_wait(p->pool);
    p->flying = false;
    chunk *c = &p->c[p->cur ^ 1];
    for (size_t t = 0; t < p->ntasks; t++) p->oom |= p->rbuf[t].failed != 0;
    p->oom |= c->lit.failed != 0 || c->bytes.failed;
    size_t pos = 0;
    for (size_t i = 0; i < c->n && !p->oom; i++) {
        em_obuf_write(&p->out, c->lit.data + pos, c->holes[i].at - pos);
        em_obuf_write(&p->out, rendered(p, c, i), c->holes[i].rlen);
        pos = c->holes[i].at;
    }
    if (!p->oom) em_obuf_write(&p->out, c->lit.data + pos, c->lit.len - pos);
    c->lit.len = 0;
    c->n = 0;
    c->bytes.len = 0;
}

/* Hand the gathered chunk (its literal text is *lit) to the workers; *lit becomes the other
 * chunk's (emptied) buffer. */
static void launch(trace_par *p, em_obuf *lit) {
    land(p);
    chunk *c = &p->c[p->cur];
    c->lit = *lit;
    p->cur ^= 1;
    *lit = p->c[p->cur].lit;
    lit->len = 0;
    p->c[p->cur].lit = (em_obuf){.fd = -1};
    p->flying = true;
    em_pool_start(p->pool, render_task, p, p->ntasks);
}

bool tr_par_defer(trace_par *p, em_obuf *lit, const void *ev, const bb_rschema *s,
                  const uint8_t *fields, size_t n, const bb_rinstance *inst) {
    chunk *c = &p->c[p->cur];
    if (c->n == CHUNK_HOLES) { /* no room left before the next tr_par_next: render it here */
        p->render(lit, ev, s, fields, inst);
        return true;
    }
    size_t foff = c->bytes.len;
    pq_buf_put(&c->bytes, fields, n);
    if (c->bytes.failed) return false;
    c->holes[c->n++] = (hole){.at = lit->len, .ev = ev, .s = s, .inst = inst, .foff = foff};
    return true;
}

bool tr_par_next(trace_par *p, em_obuf *lit) {
    if (p->c[p->cur].n >= CHUNK_HOLES - 2) /* a record defers two holes at most */
        launch(p, lit);
    return !p->oom && !p->c[p->cur].bytes.failed;
}

int tr_par_finish(trace_par *p, em_obuf *lit) {
    launch(p, lit);
    land(p);
    int err = em_obuf_flush(&p->out);
    return err ? err : p->oom ? ENOMEM : 0;
}

int tr_par_failed(const trace_par *p) { return p->out.failed; }

trace_par *tr_par_create(unsigned threads, int fd, tr_par_render_fn fn, em_obuf *lit) {
    trace_par *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->render = fn;
    p->ntasks = (size_t)threads * TASKS_PER_THREAD;
    p->rbuf = calloc(p->ntasks, sizeof *p->rbuf);
    bool ok = p->rbuf && em_obuf_init(&p->out, fd, 1 << 20);
    for (size_t t = 0; ok && t < p->ntasks; t++) ok = em_obuf_init(&p->rbuf[t], -1, LIT_START);
    for (int i = 0; ok && i < 2; i++) { /* bytes from the start: never NULL + offset */
        p->c[i].holes = calloc(CHUNK_HOLES, sizeof *p->c[i].holes);
        ok = p->c[i].holes && pq_buf_reserve(&p->c[i].bytes, 65536);
    }
    ok = ok && em_obuf_init(&p->c[1].lit, -1, LIT_START) && em_obuf_init(lit, -1, LIT_START);
    if (ok) p->pool = em_pool_create(threads);
    if (!p->pool) {
        if (ok) em_obuf_finish(lit);
        tr_par_free(p, NULL);
        return NULL;
    }
    return p;
}

void tr_par_free(trace_par *p, em_obuf *lit) {
    if (!p) return;
    if (p->pool) {
        em_pool_wait(p->pool);
        em_pool_free(p->pool);
    }
    if (lit) em_obuf_finish(lit);
    for (int i = 0; i < 2; i++) {
        free(p->c[i].lit.data);
        free(p->c[i].holes);
        pq_buf_free(&p->c[i].bytes);
    }
    for (size_t t = 0; p->rbuf && t < p->ntasks; t++) free(p->rbuf[t].data);
    free(p->rbuf);
    free(p->out.data);
    free(p);
}
