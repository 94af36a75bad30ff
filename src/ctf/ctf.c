/* ctf/ctf.c — ct_write: the model's records in global order, each kept record appended as an
 * event (header: class id, timestamp; payload: the plan's copied runs and resolved strings) to
 * the packet of its (instance, shard) stream, the metadata written first (ctf/ctf.h). */
/* SPDX-License-Identifier: MIT */
#include "ctf/ctf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctf/ctf_internal.h"
#include "read/u64map.h"

/* A process of the model: its pid (1..N, model order), OS pid (-1: unknown), host and the
 * streams of its shards. */
typedef struct ct_proc {
    uint32_t pid;
    int64_t os_pid;
    char *host;
    size_t nstreams;
    ct_stream *streams; /* opened as their first record comes */
} ct_proc;

/* A resolved interned string of the record being written. */
typedef struct ct_str {
    const char *p;
    size_t n;
    size_t src;   /* the interned bytes' length */
    bool lossy;   /* invalid UTF-8: written through bb_utf8_lossy, `n` is its output length */
    char num[24]; /* "#<id>" of a missing id */
} ct_str;

typedef struct ctw {
    const bb_model *model;
    const convert_opts *opts;
    int dir_fd;
    ct_plan plan;
    bb__u64map events; /* event id -> ct_event */
    bb__u64map procs;  /* instance id -> ct_proc */
    ct_proc *proc;     /* by model instance index */
    size_t nproc;
    ct_str *strs;
    char *errbuf;
    size_t errlen;
} ctw;

static int fail(ctw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(ctw *w, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->errbuf, w->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* A host as packet context and env carry it: lossy UTF-8, cut at a NUL byte. */
static char *host_text(const char *p, size_t n) {
    const char *nul = memchr(p, 0, n);
    if (nul) n = (size_t)(nul - p);
    size_t m = bb_utf8_lossy(p, n, NULL, 0);
    char *s = malloc(m + 1);
    if (s) s[bb_utf8_lossy(p, n, s, m)] = 0;
    return s;
}

static bool procs_init(ctw *w) {
    w->nproc = bb_model_instance_count(w->model);
    w->proc = calloc(w->nproc ? w->nproc : 1, sizeof *w->proc);
    if (!w->proc) return false;
    for (size_t i = 0; i < w->nproc; i++) {
        const bb_rinstance *in = bb_model_instance(w->model, i);
        const char *ho = w->opts->host_override;
        ct_proc *p = &w->proc[i];
        p->pid = (uint32_t)(i + 1);
        p->os_pid = in->has_process && in->pid <= INT64_MAX ? (int64_t)in->pid : -1;
        p->host = ho ? host_text(ho, strlen(ho)) : host_text(in->host.ptr, in->host.len);
        if (!p->host || !bb__u64map_put(&w->procs, in->instance_id, p)) return false;
    }
    return true;
}

static bool events_init(ctw *w) {
    if (!ct_plan_build(&w->plan, w->model)) return false;
    for (size_t i = 0; i < w->plan.n; i++)
        if (!bb__u64map_put(&w->events, w->plan.ev[i].schema->id, &w->plan.ev[i])) return false;
    w->strs = calloc(w->plan.max_str ? w->plan.max_str : 1, sizeof *w->strs);
    return w->strs != NULL;
}

/* The env hostname: the one host of every process, or NULL when they differ (each stream's
 * packet context still names its own). */
static const char *common_host(const ctw *w) {
    for (size_t i = 1; i < w->nproc; i++)
        if (strcmp(w->proc[i].host, w->proc[0].host)) return NULL;
    return w->nproc && w->proc[0].host[0] ? w->proc[0].host : NULL;
}

/* The stream of (instance, shard), opened on first use; NULL with the message set. */
static ct_stream *stream_of(ctw *w, uint64_t instance_id, uint32_t shard_id) {
    ct_proc *p = bb__u64map_get(&w->procs, instance_id);
    if (!p) {
        fail(w, "%s: a record of instance %016llx, which the inputs do not list", w->opts->out_name,
             (unsigned long long)instance_id);
        return NULL;
    }
    for (size_t i = 0; i < p->nstreams; i++)
        if (p->streams[i].shard_id == shard_id) return &p->streams[i];
    ct_stream *ns = realloc(p->streams, (p->nstreams + 1) * sizeof *ns);
    if (!ns) {
        fail(w, "%s: out of memory", w->opts->out_name);
        return NULL;
    }
    p->streams = ns;
    ct_stream *s = &ns[p->nstreams++];
    int e = ct_stream_open(s, w->dir_fd, instance_id, shard_id, p->pid, p->os_pid, p->host);
    if (e) {
        fail(w, "cannot write %s/stream_%016llx_%u: %s", w->opts->out_name,
             (unsigned long long)instance_id, shard_id, strerror(e));
        return NULL;
    }
    return s;
}

static inline void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* Resolve string step `op` of a record: the interned text (lossy when not UTF-8, cut at a NUL
 * byte), "#<id>" when the id is missing, "" when it is the sentinel (absent). */
static size_t resolve(ct_str *s, const ct_op *op, const uint8_t *fields, const bb_rinstance *in) {
    uint32_t id;
    memcpy(&id, fields + op->off, 4);
    s->lossy = false;
    bb_strview v;
    if (op->has_sentinel && id == op->sentinel) {
        s->p = "";
        s->n = 0;
    } else if (in && bb_rinstance_intern(in, id, &v)) {
        const char *nul = memchr(v.ptr, 0, v.len);
        s->p = v.ptr;
        s->n = nul ? (size_t)(nul - v.ptr) : v.len;
        if (!bb_utf8_valid(s->p, s->n)) {
            s->lossy = true;
            s->src = s->n;
            s->n = bb_utf8_lossy(v.ptr, s->src, NULL, 0);
        }
    } else {
        s->n = (size_t)snprintf(s->num, sizeof s->num, "#%u", id);
        s->p = s->num;
    }
    return s->n + 1;
}

/* Append one record to its stream's packet; 0, or -1 with the message set. */
static int put_record(ctw *w, ct_stream *s, const ct_event *e, const bb_mrecord *m) {
    const uint8_t *fields = m->rec.fields;
    size_t need = 12 + e->fixed, k = 0;
    for (size_t i = 0; i < e->nops; i++)
        if (e->ops[i].str) need += resolve(&w->strs[k++], &e->ops[i], fields, m->instance);
    int err = 0;
    uint8_t *p = ct_stream_room(s, need, &err);
    if (!p)
        return fail(w, "cannot write %s/stream_%016llx_%u: %s", w->opts->out_name,
                    (unsigned long long)s->instance_id, s->shard_id, strerror(err));
    put32(p, e->id);
    put64(p + 4, m->rec.ts);
    p += 12;
    k = 0;
    for (size_t i = 0; i < e->nops; i++) {
        const ct_op *op = &e->ops[i];
        if (!op->str) {
            memcpy(p, fields + op->off, op->len);
            p += op->len;
            continue;
        }
        const ct_str *st = &w->strs[k++];
        if (st->lossy) bb_utf8_lossy(st->p, st->src, (char *)p, st->n);
        else memcpy(p, st->p, st->n);
        p[st->n] = 0;
        p += st->n + 1;
    }
    s->len += need;
    if (!s->events) s->ts_begin = m->rec.ts;
    s->ts_end = m->rec.ts;
    s->events++;
    return 0;
}

/* Every record in global order, kept ones appended to their streams. */
static int put_records(ctw *w) {
    bb_model_iter *it;
    if (bb_model_iter_new(w->model, &it) != BB_OK)
        return fail(w, "%s: out of memory", w->opts->out_name);
    const convert_opts *o = w->opts;
    uint64_t total = bb_model_record_count(w->model), done = 0, last_inst = 0;
    uint32_t last_shard = 0;
    ct_stream *s = NULL;
    const ct_event *e = NULL;
    bb_mrecord m;
    int rc = 0;
    while (!rc && bb_model_next(it, &m)) {
        if (o->progress && (++done & 0xFFFF) == 0) o->progress(done, total, o->progress_ctx);
        if (o->keep && !o->keep(&m, o->keep_ctx)) continue;
        if (!e || e->schema->id != m.rec.event_id) e = bb__u64map_get(&w->events, m.rec.event_id);
        if (!e) {
            rc = fail(w, "%s: a record of event %016llx, which the inputs do not register",
                      o->out_name, (unsigned long long)m.rec.event_id);
            break;
        }
        if (!s || last_inst != m.rec.instance_id || last_shard != m.rec.shard_id) {
            s = stream_of(w, m.rec.instance_id, m.rec.shard_id);
            if (!s) rc = -1;
            last_inst = m.rec.instance_id;
            last_shard = m.rec.shard_id;
        }
        if (s) rc = put_record(w, s, e, &m);
    }
    bb_model_iter_free(it);
    if (!rc && o->progress) o->progress(done, total, o->progress_ctx);
    return rc;
}

/* Close every stream; the first failure's message unless one is set already. */
static int close_streams(ctw *w, int rc) {
    for (size_t i = 0; w->proc && i < w->nproc; i++) {
        ct_proc *p = &w->proc[i];
        for (size_t j = 0; j < p->nstreams; j++) {
            int e = ct_stream_close(&p->streams[j]);
            if (e && !rc)
                rc = fail(w, "cannot write %s/stream_%016llx_%u: %s", w->opts->out_name,
                          (unsigned long long)p->streams[j].instance_id, p->streams[j].shard_id,
                          strerror(e));
        }
        free(p->streams);
        free(p->host);
    }
    return rc;
}

int ct_write(const bb_model *model, const convert_opts *opts, int dir_fd, char *errbuf,
             size_t errlen) {
    ctw w = {.model = model, .opts = opts, .dir_fd = dir_fd, .errbuf = errbuf, .errlen = errlen};
    bb__u64map_init(&w.events);
    bb__u64map_init(&w.procs);
    int rc = 0;
    if (!procs_init(&w) || !events_init(&w)) {
        rc = fail(&w, "%s: out of memory", opts->out_name);
    } else {
        int e = ct_meta_write(dir_fd, model, &w.plan, common_host(&w));
        if (e) rc = fail(&w, "cannot write %s/metadata: %s", opts->out_name, strerror(e));
        else rc = put_records(&w);
    }
    rc = close_streams(&w, rc);
    free(w.proc);
    free(w.strs);
    ct_plan_free(&w.plan);
    bb__u64map_free(&w.events);
    bb__u64map_free(&w.procs);
    return rc;
}
