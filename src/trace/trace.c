/* trace/trace.c — `convert --format trace`: Chrome Trace Event Format JSON, streamed.
 *
 * Layout of the output (opens in Perfetto and in chrome://tracing / DevTools):
 *   {"otherData":{"backbeat.base_ts_nanos":"<first record ts>",...},
 *    "traceEvents":[ ...one event per line... ]}
 *
 * - Processes: one per instance, pid = 1..N in the model's instance order (Perfetto reads a pid
 *   or tid wider than 32 bits as 0, so the 64-bit instance id never goes in `pid`, and OS pids
 *   of several hosts may collide); a `process_name` metadata event carries the host, the OS
 *   pid when the dump has it (its Process section) and the instance id (16 hex digits):
 *   "<host> (pid <N>, instance <hex>)".
 * - Threads: one per shard, tid = shard + 1, named by `thread_name` ("shard N").
 * - Time: `ts`/`dur` are microseconds relative to the trace's first record, written with three
 *   decimals, so they carry exact nanoseconds (a double of epoch-scale microseconds resolves
 *   only ~0.25 us); the absolute base is `otherData["backbeat.base_ts_nanos"]`.
 * - Plain events: "I" instants (capital I: the DevTools engine ignores lower-case "i"), thread
 *   scope, `args` = the decoded fields. Names are qualified event names whatever versions were
 *   converted together (never "#<id>"); when several versions share a name, the fields objects
 *   carry "backbeat.event_id" (16 hex) to tell them apart.
 * - Log lines (BB_LOG call sites, src/logfmt): "I" instants named by the formatted message,
 *   `cat` "log", args {level, file, line, function, event}.
 * - Spans: an enter and its exit (matched by (instance_id, span_id), stack-wise when an id is
 *   re-entered) become ONE complete "X" event named after the enter event with a trailing
 *   Start/Enter/Begin stripped, `cat` = the first `::` segment, args {span_id, enter_event,
 *   enter_shard, enter:{fields}, exit_event, exit_shard, exit:{fields}}, drawn on the enter's
 *   shard (a span that migrated says so in exit_shard). An enter never exited is closed at the
 *   trace's last timestamp with "backbeat.unclosed": true; an exit whose enter is not in the
 *   trace is an "I" instant with "backbeat.orphan_exit": true.
 *
 * Why "X" and not async "b"/"e" or "B"/"E": the DevTools trace engine ignores async events of
 * arbitrary categories (it only builds user-timing/console tracks from them) and pairs "B"/"E"
 * on a single stack across all threads; it does build per-thread trees from "X" events.
 * Perfetto renders "X" events on thread tracks too. A single "X" has a single name, so
 * Perfetto's rule that an async end must repeat its begin's name and category cannot be broken.
 * Neither consumer needs the events sorted, so the "X" is written when the exit arrives (its
 * begin is known by then) and nothing but the open spans is held in memory.
 *
 * Both consumers require the slices of one thread to nest strictly: the DevTools engine drops a
 * slice that starts inside another and ends after it, Perfetto mis-nests it. Spans overlap
 * without nesting (requests interleaved on one event loop, spans that migrate), so each shard
 * has lanes: lane 0 is the shard's own thread, more lanes are extra threads "shard N (overlap
 * K)". A slice appears inside another only if it descends from it by parent_span_id. The lane
 * is decided when the span OPENS (its enter, in timestamp order); its "X" is still written at
 * its exit, on that lane. Each lane holds a stack of its open slices, each the ancestor of the
 * one above it, so only the open spans are held in memory (and, per lane, the latest begin and
 * end placed there):
 * - a span goes on top of a lane whose innermost open slice is one of its open ancestors (its
 *   parent, else the parent's parent... as far as they are open: a closed span's parent is not
 *   remembered), the nearest such, nested inside it; only ancestors entered on the span's own
 *   shard count (a slice is drawn on its enter's shard);
 * - otherwise (no open ancestor on this shard, or the ancestor's lane has an unrelated slice
 *   open above it, e.g. a sibling) on the lowest-numbered lane with no open slice; a new lane
 *   only when every lane has one open;
 * - a slice never begins at the same nanosecond as another slice of its lane (the file order
 *   of equal-ts "X" events, inner slice first since it closes first, is read differently by
 *   different viewers), nor at or before the end of one written there (touching slices: a
 *   viewer's ts + dur in doubles can land after the next ts, 1.314 + 0.124 > 1.438, and the
 *   DevTools engine then drops the later slice): such a lane does not fit.
 * A child that outlives its parent: when a span closes while slices above it on its lane are
 *   still open (its descendants), its "X" stays on the lane (everything written there since it
 *   opened lies inside it) and those open slices move together, still nested in each other, to
 *   the lowest lane with nothing open where the lowest of them fits by the rule above (nothing
 *   there began or ended at or after its begin; a new lane if none): the parent's slice stays
 *   whole and the child's cannot cross its end.
 *   Removing slices from a lane keeps the rest nested, so the slices already written inside
 *   the moved ones stay valid where they are (drawn in the parent, not in the moved child).
 * Unclosed spans are closed at the last timestamp newest first: each is then its lane's top.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/obuf.h"
#include "trace/trace_fields.h"
#include "trace/trace_lanes.h"
#include "trace/trace_par.h"
#include "emit/writers.h"
#include "logfmt/logfmt.h"
#include "read/model_transient.h"
#include "read/u64map.h"

#define OVERFLOW_TID_BASE 0x40000000u /* tids of overlap lanes, far above any shard + 1 */
#define ANCESTRY_MAX 256              /* generations followed up from a span's parent */
#define EV_CACHE 64                   /* slots of the schema -> ev_info cache */
#define THR_CACHE 1024 /* slots of the (process, shard) -> thr cache: a dump of many rings (668) */

typedef struct frag {
    char *p;
    size_t n;
} frag;

typedef struct ev_info {
    char *display;   /* the qualified name: one name per event whatever versions meet */
    frag id_arg;     /* '"backbeat.event_id":"<16 hex>"' when the name has several ids */
    char *span_name; /* for enter events */
    char *cat;
    int span_fi;   /* index of the span_id field, or -1 */
    int parent_fi; /* index of the parent_span_id field, or -1 */
    uint8_t phase;
    /* pre-rendered JSON: ',"name":<display>,"cat":<cat>,"args":', ',"name":<span name>,
     * "cat":<cat>', the display name as a JSON string; the fields' plan */
    frag inst_name, span_name_json, display_json;
    tr_plan plan;
    bool is_log; /* a log call site (BB_LOG): an instant named by its message */
    lf_site site;
} ev_info;

typedef struct proc {
    uint64_t instance_id;
    const bb_rinstance *inst;
    uint32_t pid;
    uint32_t next_overflow;
    bool named;
} proc;

typedef struct thr {
    proc *p;
    uint32_t shard;
    char ipfx[96]; /* '{"ph":"I","s":"t","pid":P,"tid":T,"ts":' */
    size_t ipfx_len;
    tr_lanes lanes;
} thr;

typedef struct open_span {
    struct open_span *chain;       /* same map key */
    struct open_span *prev, *next; /* enter order */
    uint64_t instance_id, span_id, parent, ts;
    thr *t;
    tr_lane_slice sl; /* its place in t's lanes */
    const bb_rschema *schema;
    const bb_rinstance *inst;
    ev_info *ev;
    uint8_t fields[];
} open_span;

typedef struct tw {
    const bb_model *model;
    const convert_opts *opts;
    em_obuf out;
    bool first_event;
    uint64_t base;
    uint64_t last_ts;
    bool oom;
    bb__u64map events;  /* event id -> ev_info */
    bb__u64map threads; /* (pid << 32 | shard) -> thr */
    /* direct-mapped caches in front of the two maps (hit on nearly every record) */
    struct {
        const bb_rschema *s;
        ev_info *e;
    } evc[EV_CACHE];
    thr *thc[THR_CACHE];
    bb__u64map open; /* span key -> open_span chain */
    open_span *oldest, *newest;
    proc *procs;
    size_t nprocs;
    proc *last_proc;
    bool have;            /* a record passed the filter (the header is written) */
    uint64_t seen, total; /* records pulled from the model so far, and in all */
    trace_par *par;       /* --threads > 1: fields rendered on workers (out is then memory) */
} tw;

/* ------------------------------------------------------------------ small helpers */

static void sep(tw *w) {
    if (w->first_event) w->first_event = false;
    else em_obuf_puts(&w->out, ",\n");
}

static bool ends_with(const char *s, size_t n, const char *suf) {
    size_t k = strlen(suf);
    return n > k && !memcmp(s + n - k, suf, k);
}

/* Render JSON text into a fresh heap fragment: `fn` writes into a em_obuf big enough that it
 * never flushes (`room` bytes). */
static bool frag_make(frag *f, size_t room, void (*fn)(em_obuf *, const void *, const void *),
                      const void *a, const void *b) {
    em_obuf cb;
    if (!em_obuf_init(&cb, -1, room)) return false;
    fn(&cb, a, b);
    f->p = cb.data;
    f->n = cb.len;
    return true;
}
static void render_name_cat(em_obuf *b, const void *name, const void *cat) {
    em_obuf_puts(b, ",\"name\":");
    em_obuf_json_str(b, name, strlen(name));
    em_obuf_puts(b, ",\"cat\":");
    em_obuf_json_str(b, cat, strlen(cat));
}
static void render_inst_name(em_obuf *b, const void *name, const void *cat) {
    render_name_cat(b, name, cat);
    em_obuf_puts(b, ",\"args\":");
}
static void render_str(em_obuf *b, const void *s, const void *unused) {
    (void)unused;
    em_obuf_json_str(b, s, strlen(s));
}

static void ev_free(ev_info *e) {
    free(e->display);
    free(e->id_arg.p);
    free(e->cat);
    free(e->span_name);
    free(e->inst_name.p);
    free(e->span_name_json.p);
    free(e->display_json.p);
    tr_plan_free(&e->plan);
    free(e);
}

static ev_info *event_info_new(tw *w, const bb_rschema *s);

/* The writer's info of schema s (made at its first record); NULL if out of memory. */
static ev_info *event_info(tw *w, const bb_rschema *s) {
    size_t slot = (size_t)s->id & (EV_CACHE - 1);
    if (w->evc[slot].s == s) return w->evc[slot].e;
    ev_info *e = bb__u64map_get(&w->events, s->id);
    if (!e) e = event_info_new(w, s);
    if (e) {
        w->evc[slot].s = s;
        w->evc[slot].e = e;
    }
    return e;
}

static ev_info *event_info_new(tw *w, const bb_rschema *s) {
    ev_info *e;
    e = calloc(1, sizeof *e);
    if (!e) return NULL;
    /* Named by the qualified name, never "#<id>": the versions converted together must not
     * change a slice's or a track's name; the id goes into the args when it tells versions
     * apart (the model's display name is suffixed exactly then). */
    e->display = strndup(s->name.ptr, s->name.len);
    const char *dn = bb_model_display_name(w->model, s->id);
    if (e->display && dn && strcmp(dn, e->display) != 0) {
        e->id_arg.p = malloc(48);
        if (e->id_arg.p)
            e->id_arg.n = (size_t)snprintf(e->id_arg.p, 48, "\"backbeat.event_id\":\"%016llx\"",
                                           (unsigned long long)s->id);
    }
    e->phase = s->phase;
    e->span_fi = -1;
    e->parent_fi = -1;
    for (size_t i = 0; i < s->field_count; i++) {
        if (s->fields[i].width > 8 || s->fields[i].type > BB_TYPE_I64) continue;
        if (s->fields[i].role == BB_ROLE_SPAN_ID && e->span_fi < 0) e->span_fi = (int)i;
        if (s->fields[i].role == BB_ROLE_PARENT_SPAN_ID && e->parent_fi < 0) e->parent_fi = (int)i;
    }
    /* category: the first "::" segment (the whole name when there is none) */
    const char *nm = s->name.ptr;
    size_t nl = s->name.len, cl = nl;
    for (size_t i = 0; i + 1 < nl; i++)
        if (nm[i] == ':' && nm[i + 1] == ':') {
            cl = i;
            break;
        }
    e->cat = strndup(nm, cl);
    /* span name: the enter's qualified name without a trailing Start/Enter/Begin */
    size_t sl = nl;
    static const char *sufs[] = {"Start", "Enter", "Begin", "_start", "_enter", "_begin"};
    for (size_t i = 0; i < sizeof sufs / sizeof sufs[0]; i++)
        if (ends_with(nm, nl, sufs[i]) && nm[nl - strlen(sufs[i]) - 1] != ':') {
            sl = nl - strlen(sufs[i]);
            break;
        }
    e->span_name = strndup(nm, sl);
    bool ok = e->cat && e->span_name && e->display;
    if (ok) {
        size_t room = 6 * (strlen(e->display) + strlen(e->cat) + strlen(e->span_name)) + 64;
        ok = frag_make(&e->inst_name, room, render_inst_name, e->display, e->cat) &&
             frag_make(&e->span_name_json, room, render_name_cat, e->span_name, e->cat) &&
             frag_make(&e->display_json, room, render_str, e->display, NULL);
    }
    ok = ok && tr_plan_make(&e->plan, s);
    e->is_log = lf_site_parse(s, &e->site);
    if (!ok || !bb__u64map_put(&w->events, s->id, e)) {
        ev_free(e);
        return NULL;
    }
    return e;
}

static proc *find_proc(tw *w, uint64_t instance_id) {
    if (w->last_proc && w->last_proc->instance_id == instance_id) return w->last_proc;
    size_t lo = 0, hi = w->nprocs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (w->procs[mid].instance_id < instance_id) lo = mid + 1;
        else hi = mid;
    }
    if (lo < w->nprocs && w->procs[lo].instance_id == instance_id)
        return w->last_proc = &w->procs[lo];
    return NULL;
}

static void name_proc(tw *w, proc *p) {
    if (p->named) return;
    p->named = true;
    const char *host = w->opts->host_override;
    size_t hl = host ? strlen(host) : 0;
    if (!host && p->inst) {
        host = p->inst->host.ptr;
        hl = p->inst->host.len;
    }
    /* name: "<host> (pid <N>, instance <hex>)", the pid when the dump has it (a Process
     * section), host and parentheses when there is a host — built as one JSON string */
    char pid[40] = "";
    if (p->inst && p->inst->has_process)
        snprintf(pid, sizeof pid, "pid %llu, ", (unsigned long long)p->inst->pid);
    size_t cap = hl + sizeof pid + 40;
    char *name = malloc(cap);
    if (!name) {
        w->oom = true;
        return;
    }
    int n = snprintf(name, cap, "%.*s%s%sinstance %016llx%s", (int)hl, host ? host : "",
                     hl ? " (" : "", pid, (unsigned long long)p->instance_id, hl ? ")" : "");
    em_obuf *b = &w->out;
    sep(w);
    em_obuf_printf(b,
                   "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%u,\"tid\":0,\"ts\":0,"
                   "\"args\":{\"name\":",
                   p->pid);
    em_obuf_json_str(b, name, (size_t)n);
    em_obuf_puts(b, "}},\n");
    em_obuf_printf(b,
                   "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%u,\"tid\":0,"
                   "\"ts\":0,\"args\":{\"sort_index\":%u}}",
                   p->pid, p->pid);
    free(name);
}

static void name_thread(tw *w, proc *p, uint32_t tid, uint32_t shard, size_t lane_no) {
    em_obuf *b = &w->out;
    sep(w);
    em_obuf_printf(b,
                   "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%u,\"tid\":%u,\"ts\":0,"
                   "\"args\":{\"name\":\"shard %u",
                   p->pid, tid, shard);
    if (lane_no) em_obuf_printf(b, " (overlap %zu)", lane_no);
    em_obuf_puts(b, "\"}},\n");
    em_obuf_printf(b,
                   "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%u,\"tid\":%u,"
                   "\"ts\":0,\"args\":{\"sort_index\":%llu}}",
                   p->pid, tid, (unsigned long long)shard * 1024ull + lane_no);
}

/* A new lane for t, named; its index, or TL_NOWHERE if out of memory. */
static size_t add_lane(tw *w, thr *t) {
    size_t no = t->lanes.n;
    uint32_t tid = no == 0 ? t->shard + 1 : OVERFLOW_TID_BASE + t->p->next_overflow;
    if (!tr_lane_add(&t->lanes, tid)) {
        w->oom = true;
        return TL_NOWHERE;
    }
    if (no) t->p->next_overflow++;
    name_thread(w, t->p, tid, t->shard, no);
    return no;
}

static thr *find_thr_new(tw *w, proc *p, uint32_t shard);

static thr *find_thr(tw *w, proc *p, uint32_t shard) {
    size_t slot = (p->pid * 17u + shard) & (THR_CACHE - 1);
    thr *t = w->thc[slot];
    if (t && t->p == p && t->shard == shard) return t;
    t = bb__u64map_get(&w->threads, ((uint64_t)p->pid << 32) | shard);
    if (!t) t = find_thr_new(w, p, shard);
    if (t) w->thc[slot] = t;
    return t;
}

static thr *find_thr_new(tw *w, proc *p, uint32_t shard) {
    uint64_t key = ((uint64_t)p->pid << 32) | shard;
    thr *t;
    name_proc(w, p);
    t = calloc(1, sizeof *t);
    if (!t || !bb__u64map_put(&w->threads, key, t)) {
        free(t);
        w->oom = true;
        return NULL;
    }
    t->p = p;
    t->shard = shard;
    if (add_lane(w, t) == TL_NOWHERE) return NULL;
    int n = snprintf(t->ipfx, sizeof t->ipfx,
                     "{\"ph\":\"I\",\"s\":\"t\",\"pid\":%u,\"tid\":%u,\"ts\":", p->pid,
                     t->lanes.v[0].tid);
    t->ipfx_len = (size_t)n;
    return t;
}

/* "{name:value,..." of a record's decoded fields (`ev` is its event's info), without the
 * closing brace; padding fields are left out. Returns the number of fields written. */
static size_t write_fields_open(em_obuf *b, const ev_info *ev, const bb_rschema *s,
                                const uint8_t *fields, const bb_rinstance *inst) {
    return tr_write_open(b, &ev->plan, s, fields, inst);
}

static void write_fields(em_obuf *b, const ev_info *ev, const bb_rschema *s, const uint8_t *fields,
                         const bb_rinstance *inst) {
    size_t written = write_fields_open(b, ev, s, fields, inst);
    if (ev->id_arg.n) {
        if (written) em_obuf_putc(b, ','); /* not field_count: padding fields write nothing */
        em_obuf_write(b, ev->id_arg.p, ev->id_arg.n);
    }
    em_obuf_putc(b, '}');
}

/* write_fields as the parallel engine calls it (tr_par_render_fn). */
static void render_fields(em_obuf *b, const void *ev, const bb_rschema *s, const uint8_t *fields,
                          const bb_rinstance *inst) {
    write_fields(b, ev, s, fields, inst);
}

/* A record's fields into the output: written now, or left to the workers (--threads). */
static void put_fields(tw *w, const ev_info *ev, const bb_rschema *s, const uint8_t *fields,
                       const bb_rinstance *inst) {
    if (!w->par) write_fields(&w->out, ev, s, fields, inst);
    else if (!tr_par_defer(w->par, &w->out, ev, s, fields, s->record_size, inst)) w->oom = true;
}

/* An "I" instant for a record; `mark` adds a "backbeat.<mark>": true arg. */
static void write_instant(tw *w, const bb_mrecord *r, ev_info *ev, thr *t, const char *mark) {
    em_obuf *b = &w->out;
    sep(w);
    em_obuf_write(b, t->ipfx, t->ipfx_len);
    em_obuf_usec(b, r->rec.ts - w->base);
    em_obuf_write(b, ev->inst_name.p, ev->inst_name.n);
    if (mark) {
        if (write_fields_open(b, ev, r->rec.schema, r->rec.fields, r->instance))
            em_obuf_putc(b, ',');
        if (ev->id_arg.n) {
            em_obuf_write(b, ev->id_arg.p, ev->id_arg.n);
            em_obuf_putc(b, ',');
        }
        em_obuf_puts(b, "\"backbeat.");
        em_obuf_puts(b, mark);
        em_obuf_puts(b, "\":true}");
    } else {
        put_fields(w, ev, r->rec.schema, r->rec.fields, r->instance);
    }
    em_obuf_putc(b, '}');
}

/* A log record: an "I" instant named by its formatted message, category "log", with its level,
 * file, line, function and event as args. */
static void write_log(tw *w, const bb_mrecord *r, const ev_info *ev, thr *t) {
    em_obuf *b = &w->out;
    char msg[4096];
    size_t n = lf_format(&ev->site, r->rec.schema, r->rec.fields, r->instance, msg, sizeof msg);
    sep(w);
    em_obuf_write(b, t->ipfx, t->ipfx_len);
    em_obuf_usec(b, r->rec.ts - w->base);
    em_obuf_puts(b, ",\"name\":");
    em_obuf_json_str(b, msg, n);
    em_obuf_puts(b, ",\"cat\":\"log\",\"args\":{\"level\":\"");
    em_obuf_puts(b, lf_level_name(ev->site.level));
    em_obuf_puts(b, "\",\"file\":");
    em_obuf_json_str(b, ev->site.file.ptr, ev->site.file.len);
    em_obuf_puts(b, ",\"line\":");
    em_obuf_u64(b, ev->site.line);
    em_obuf_puts(b, ",\"function\":");
    em_obuf_json_str(b, ev->site.function.ptr, ev->site.function.len);
    em_obuf_puts(b, ",\"event\":");
    em_obuf_write(b, ev->display_json.p, ev->display_json.n);
    em_obuf_puts(b, "}}");
}

/* The symbolized stack of a backbeat::Crash record (convert_opts.crashes), or NULL. */
static const char *crash_stack(const tw *w, const bb_mrecord *r, const ev_info *ev) {
    if (!w->opts || !w->opts->ncrashes || strcmp(ev->display, "backbeat::Crash") != 0) return NULL;
    for (size_t i = 0; i < w->opts->ncrashes; i++)
        if (w->opts->crashes[i].instance_id == r->rec.instance_id &&
            w->opts->crashes[i].ts == r->rec.ts)
            return w->opts->crashes[i].stack;
    return NULL;
}

/* A crash's "I" instant on its shard's lane: its fields and "backbeat.stack", the stack
 * symbolized at conversion. */
static void write_crash(tw *w, const bb_mrecord *r, ev_info *ev, thr *t, const char *stack) {
    em_obuf *b = &w->out;
    sep(w);
    em_obuf_write(b, t->ipfx, t->ipfx_len);
    em_obuf_usec(b, r->rec.ts - w->base);
    em_obuf_write(b, ev->inst_name.p, ev->inst_name.n);
    if (write_fields_open(b, ev, r->rec.schema, r->rec.fields, r->instance)) em_obuf_putc(b, ',');
    if (ev->id_arg.n) {
        em_obuf_write(b, ev->id_arg.p, ev->id_arg.n);
        em_obuf_putc(b, ',');
    }
    em_obuf_puts(b, "\"backbeat.stack\":");
    em_obuf_json_str(b, stack, strlen(stack));
    em_obuf_puts(b, "}}");
}

/* What fired, when r is a backbeat::Trigger record (convert_opts.triggers), or NULL. */
static const convert_trigger *trigger_of(const tw *w, const bb_mrecord *r, const ev_info *ev) {
    if (!w->opts || !w->opts->ntriggers || strcmp(ev->display, "backbeat::Trigger") != 0)
        return NULL;
    for (size_t i = 0; i < w->opts->ntriggers; i++) {
        const convert_trigger *g = &w->opts->triggers[i];
        if (g->instance_id == r->rec.instance_id && g->rec_ts == r->rec.ts &&
            g->rec_shard == r->rec.shard_id)
            return g;
    }
    return NULL;
}

/* A trigger's "I" instant "trigger: RULE", at its firing, on the thread of the record that
 * matched (its shard's lane, not the lane it was recorded on), with the matching record's
 * event, timestamp and span id, the after-window, the span's duration and whether it hung. */
static void write_trigger(tw *w, const bb_mrecord *r, proc *p, const convert_trigger *g) {
    thr *t = find_thr(w, p, g->shard);
    if (!t) return;
    em_obuf *b = &w->out;
    char name[320];
    int n = snprintf(name, sizeof name, "trigger: %s", g->rule);
    sep(w);
    em_obuf_write(b, t->ipfx, t->ipfx_len);
    em_obuf_usec(b, r->rec.ts - w->base);
    em_obuf_puts(b, ",\"name\":");
    em_obuf_json_str(b, name, n < 0 ? 0 : (size_t)n < sizeof name ? (size_t)n : sizeof name - 1);
    em_obuf_puts(b, ",\"cat\":\"backbeat\",\"args\":{\"rule\":");
    em_obuf_json_str(b, g->rule, strlen(g->rule));
    em_obuf_puts(b, ",\"event\":");
    em_obuf_json_str(b, g->event, strlen(g->event));
    em_obuf_puts(b, ",\"ts_nanos\":\"");
    em_obuf_u64(b, g->ts);
    em_obuf_puts(b, "\",\"span_id\":\"");
    em_obuf_u64(b, g->span_id);
    em_obuf_puts(b, "\",\"after_ns\":");
    em_obuf_u64(b, g->after_ns);
    em_obuf_puts(b, ",\"duration_ns\":");
    em_obuf_u64(b, g->duration_ns);
    em_obuf_puts(b, g->hung ? ",\"hung\":true}}" : ",\"hung\":false}}");
}

static uint64_t span_key(uint64_t instance_id, uint64_t span_id) {
    return bb__u64map_mix(instance_id) ^ span_id;
}

static uint64_t span_value(const bb_rschema *s, int fi, const uint8_t *fields) {
    bb_value v = bb_decode_field(s, (size_t)fi, fields, NULL);
    if (v.kind == BB_VALUE_INT) return (uint64_t)v.i;
    return v.u; /* UINT; ABSENT (sentinel) also keys by its raw value 0/u */
}

/* ------------------------------------------------------------------ lanes (file comment) */

/* The newest open span (instance, span id), or NULL. */
static open_span *find_open(const tw *w, uint64_t inst, uint64_t sid) {
    open_span *o = bb__u64map_get(&w->open, span_key(inst, sid));
    while (o && !(o->instance_id == inst && o->span_id == sid)) o = o->chain;
    return o;
}

/* Place span o (not yet in the open map) on a lane of its shard: on top of the lane of its
 * nearest open ancestor that is its lane's innermost, else on the lowest lane with nothing
 * open, else on a new one. */
static void lane_open(tw *w, open_span *o) {
    thr *t = o->t;
    size_t lane = TL_NOWHERE;
    uint64_t up = o->parent;
    for (int gen = 0; up && gen < ANCESTRY_MAX && lane == TL_NOWHERE; gen++) {
        const open_span *a = find_open(w, o->instance_id, up);
        if (!a) break;
        if (a->t == t && tr_lane_fits_on(&t->lanes, &a->sl, o->ts)) lane = a->sl.lane;
        up = a->parent;
    }
    if (lane == TL_NOWHERE) lane = tr_lane_free(&t->lanes, o->ts);
    if (lane == t->lanes.n) lane = add_lane(w, t);
    if (!tr_lane_push(&t->lanes, lane, &o->sl)) w->oom = true;
}

/* Span o closes at `end`: its open descendants above it on its lane (children that outlive
 * it) move, still nested, to a lane with nothing open where they fit, or a new one; o leaves
 * its lane. Returns the tid its slice is drawn on. */
static uint32_t lane_close(tw *w, open_span *o, uint64_t end) {
    thr *t = o->t;
    uint64_t b0;
    if (tr_lane_above(&t->lanes, &o->sl, &b0)) {
        size_t to = tr_lane_free(&t->lanes, b0);
        if (to == t->lanes.n) to = add_lane(w, t);
        if (!tr_lane_move_above(&t->lanes, &o->sl, to)) w->oom = true;
    }
    return tr_lane_close(&t->lanes, &o->sl, end);
}

/* Write the "X" for open span `o` closed at `end` (by exit record `x`, or NULL if unclosed). */
static void close_span(tw *w, open_span *o, uint64_t end, const bb_mrecord *x) {
    thr *t = o->t;
    uint32_t tid = lane_close(w, o, end);
    em_obuf *b = &w->out;
    sep(w);
    em_obuf_puts(b, "{\"ph\":\"X\",\"pid\":");
    em_obuf_u64(b, t->p->pid);
    em_obuf_puts(b, ",\"tid\":");
    em_obuf_u64(b, tid);
    em_obuf_puts(b, ",\"ts\":");
    em_obuf_usec(b, o->ts - w->base);
    em_obuf_puts(b, ",\"dur\":");
    em_obuf_usec(b, end - o->ts);
    em_obuf_write(b, o->ev->span_name_json.p, o->ev->span_name_json.n);
    em_obuf_puts(b, ",\"args\":{\"span_id\":");
    em_obuf_json_u64(b, o->span_id);
    em_obuf_puts(b, ",\"enter_event\":");
    em_obuf_write(b, o->ev->display_json.p, o->ev->display_json.n);
    em_obuf_puts(b, ",\"enter_shard\":");
    em_obuf_u64(b, t->shard);
    em_obuf_puts(b, ",\"enter\":");
    put_fields(w, o->ev, o->schema, o->fields, o->inst);
    if (x) {
        ev_info *xe = event_info(w, x->rec.schema);
        em_obuf_puts(b, ",\"exit_event\":");
        if (xe) em_obuf_write(b, xe->display_json.p, xe->display_json.n);
        else em_obuf_puts(b, "null");
        em_obuf_puts(b, ",\"exit_shard\":");
        em_obuf_u64(b, x->rec.shard_id);
        em_obuf_puts(b, ",\"exit\":");
        if (xe) put_fields(w, xe, x->rec.schema, x->rec.fields, x->instance);
        else em_obuf_puts(b, "{}");
    } else {
        em_obuf_puts(b, ",\"backbeat.unclosed\":true");
    }
    em_obuf_puts(b, "}}");
}

static void list_unlink(tw *w, open_span *o) {
    if (o->prev) o->prev->next = o->next;
    else w->oldest = o->next;
    if (o->next) o->next->prev = o->prev;
    else w->newest = o->prev;
}

/* Take o (after `prev` in the chain of `key`, or its head when prev is NULL) out of the
 * open-span map. */
static void chain_unlink(tw *w, uint64_t key, open_span *prev, open_span *o) {
    if (prev) prev->chain = o->chain;
    else if (o->chain) bb__u64map_put(&w->open, key, o->chain); /* replaces in place: cannot fail */
    else bb__u64map_del(&w->open, key);
}

static void span_enter(tw *w, const bb_mrecord *r, ev_info *ev, thr *t) {
    const bb_rschema *s = r->rec.schema;
    open_span *o = malloc(sizeof *o + s->record_size);
    if (!o) {
        w->oom = true;
        return;
    }
    o->instance_id = r->rec.instance_id;
    o->span_id = span_value(s, ev->span_fi, r->rec.fields);
    o->parent = ev->parent_fi >= 0 ? span_value(s, ev->parent_fi, r->rec.fields) : 0;
    o->ts = r->rec.ts;
    o->t = t;
    o->sl.b = o->ts;
    lane_open(w, o); /* before o is in the map: its parent's id may be its own */
    o->schema = s;
    o->inst = r->instance;
    o->ev = ev;
    memcpy(o->fields, r->rec.fields, s->record_size);
    uint64_t key = span_key(o->instance_id, o->span_id);
    o->chain = bb__u64map_get(&w->open, key);
    if (!bb__u64map_put(&w->open, key, o)) {
        free(o);
        w->oom = true;
        return;
    }
    o->next = NULL;
    o->prev = w->newest;
    if (w->newest) w->newest->next = o;
    else w->oldest = o;
    w->newest = o;
}

static void span_exit(tw *w, const bb_mrecord *r, ev_info *ev, thr *t) {
    uint64_t sid = span_value(r->rec.schema, ev->span_fi, r->rec.fields);
    uint64_t key = span_key(r->rec.instance_id, sid);
    open_span *head = bb__u64map_get(&w->open, key), *prev = NULL, *o = head;
    while (o && !(o->instance_id == r->rec.instance_id && o->span_id == sid)) {
        prev = o;
        o = o->chain;
    }
    if (!o) {
        write_instant(w, r, ev, t, "orphan_exit");
        return;
    }
    chain_unlink(w, key, prev, o);
    list_unlink(w, o);
    close_span(w, o, r->rec.ts, r);
    free(o);
}

static void write_header(tw *w) {
    em_obuf *b = &w->out;
    /* No "displayTimeUnit": some Perfetto versions took "ns" there as the unit of ts. */
    em_obuf_puts(b, "{\"otherData\":{\"backbeat.format\":\"1\","
                    "\"backbeat.base_ts_nanos\":\"");
    em_obuf_u64(b, w->base);
    em_obuf_puts(b, "\",\"backbeat.ts_unit\":\"ts and dur are microseconds (3 decimals = ns) "
                    "since backbeat.base_ts_nanos\"");
    if (w->opts->host_override) {
        em_obuf_puts(b, ",\"backbeat.host\":");
        em_obuf_json_str(b, w->opts->host_override, strlen(w->opts->host_override));
    }
    em_obuf_puts(b, "},\n\"traceEvents\":[\n");
    w->first_event = true;
}

static void free_all(tw *w) {
    for (size_t i = 0; i < w->events.cap; i++)
        if (w->events.used[i]) ev_free(w->events.vals[i]);
    for (size_t i = 0; i < w->threads.cap; i++)
        if (w->threads.used[i]) {
            thr *t = w->threads.vals[i];
            tr_lane_free_all(&t->lanes);
            free(t);
        }
    for (open_span *o = w->oldest, *n; o; o = n) {
        n = o->next;
        free(o);
    }
    bb__u64map_free(&w->events);
    bb__u64map_free(&w->threads);
    bb__u64map_free(&w->open);
    free(w->procs);
}

/* Processes: one per instance of the model, pid = 1..N in its order. */
static bool init_procs(tw *w) {
    w->nprocs = bb_model_instance_count(w->model);
    w->procs = calloc(w->nprocs ? w->nprocs : 1, sizeof *w->procs);
    if (!w->procs) return false;
    for (size_t i = 0; i < w->nprocs; i++) {
        w->procs[i].inst = bb_model_instance(w->model, i);
        w->procs[i].instance_id = w->procs[i].inst->instance_id;
        w->procs[i].pid = (uint32_t)i + 1;
    }
    return true;
}

/* What trace_record tells the record loop. */
enum { REC_NEXT, REC_STOP /* out of memory: w->oom */, REC_FAIL /* errbuf set */ };

/* One record the filter kept (the header first, at the first): a span's enter or exit, or an
 * instant. */
static int trace_record(tw *w, const bb_mrecord *r, char *errbuf, size_t errlen) {
    if (!w->have) {
        w->have = true;
        w->base = r->rec.ts;
        write_header(w);
    }
    w->last_ts = r->rec.ts;
    proc *p = find_proc(w, r->rec.instance_id);
    ev_info *ev = event_info(w, r->rec.schema);
    if (!p) {
        if (!ev) w->oom = true;
        snprintf(errbuf, errlen, "record of unknown instance %016llx",
                 (unsigned long long)r->rec.instance_id);
        return REC_FAIL;
    }
    if (!ev) {
        w->oom = true;
        return REC_STOP;
    }
    const convert_trigger *g = trigger_of(w, r, ev); /* on the matching record's thread */
    if (g) {
        write_trigger(w, r, p, g);
        return w->oom ? REC_STOP : REC_NEXT;
    }
    thr *t = find_thr(w, p, r->rec.shard_id);
    if (!t) return REC_STOP;
    if (ev->phase == BB_PHASE_ENTER && ev->span_fi >= 0) span_enter(w, r, ev, t);
    else if (ev->phase == BB_PHASE_EXIT && ev->span_fi >= 0) span_exit(w, r, ev, t);
    else if (ev->is_log) write_log(w, r, ev, t);
    else {
        const char *stack = crash_stack(w, r, ev);
        if (stack) write_crash(w, r, ev, t, stack);
        else write_instant(w, r, ev, t, NULL);
    }
    return REC_NEXT;
}

/* Pull every record from the model, reporting progress, and write those the filter keeps;
 * stops early on a write or allocation failure. */
static int trace_records(tw *w, bb_model_iter *it, char *errbuf, size_t errlen) {
    const convert_opts *opts = w->opts;
    bb_mrecord r;
    while (bb_model_next(it, &r)) {
        w->seen++;
        if ((w->seen & 0xFFFF) == 0) {
            if (opts->progress) opts->progress(w->seen, w->total, opts->progress_ctx);
            if (w->out.failed || w->oom || (w->par && tr_par_failed(w->par))) break;
        }
        if (opts->keep && !opts->keep(&r, opts->keep_ctx)) continue;
        int st = trace_record(w, &r, errbuf, errlen);
        if (st != REC_NEXT) return st;
        if (w->par && !tr_par_next(w->par, &w->out)) w->oom = true;
    }
    return REC_NEXT;
}

/* Close what is still open at the last timestamp, innermost (latest begin) first so that each
 * later one encloses the earlier. */
static void close_unclosed(tw *w) {
    while (!w->oom && !w->out.failed && w->newest) {
        open_span *o = w->newest;
        list_unlink(w, o);
        close_span(w, o, w->last_ts, NULL);
        uint64_t key = span_key(o->instance_id, o->span_id);
        open_span *h = bb__u64map_get(&w->open, key), *prev = NULL;
        while (h && h != o) {
            prev = h;
            h = h->chain;
        }
        if (h) chain_unlink(w, key, prev, o);
        free(o);
        if (w->par && !tr_par_next(w->par, &w->out)) w->oom = true;
    }
}

/* The end of the trace: the header if no record was kept, the unclosed spans, the closing
 * brackets, the last progress report. */
static int trace_finish(tw *w, char *errbuf, size_t errlen) {
    if (!w->have) {
        w->base = 0;
        write_header(w);
    }
    close_unclosed(w);
    em_obuf_puts(&w->out, "\n]}\n");
    if (w->opts->progress) w->opts->progress(w->seen, w->total, w->opts->progress_ctx);
    if (!w->oom) return 0;
    snprintf(errbuf, errlen, "out of memory");
    return 1;
}

/* Stream the model's records (those opts->keep accepts) as trace JSON into out_fd. */
int tr_write(const bb_model *model, const convert_opts *opts, int out_fd, char *errbuf,
             size_t errlen) {
    tw w;
    memset(&w, 0, sizeof w);
    w.model = model;
    w.opts = opts;
    w.total = bb_model_record_count(model);
    bb__u64map_init(&w.events);
    bb__u64map_init(&w.threads);
    bb__u64map_init(&w.open);
    if (opts->threads > 1) w.par = tr_par_create(opts->threads, out_fd, render_fields, &w.out);
    if (!w.par && !em_obuf_init(&w.out, out_fd, 1 << 20)) {
        snprintf(errbuf, errlen, "out of memory");
        return 1;
    }
    int rc = 1;
    bb_model_iter *it = NULL;
    if (!init_procs(&w) || bb_model_iter_new(model, &it) != BB_OK) {
        snprintf(errbuf, errlen, "out of memory");
    } else {
        bb__model_iter_transient(it); /* a record's fields are written or copied at once */
        if (trace_records(&w, it, errbuf, errlen) != REC_FAIL)
            rc = trace_finish(&w, errbuf, errlen);
    }
    int werr = w.par ? tr_par_finish(w.par, &w.out) : em_obuf_finish(&w.out);
    tr_par_free(w.par, &w.out);
    if (!rc && werr) {
        snprintf(errbuf, errlen, "cannot write %s: %s", opts->out_name ? opts->out_name : "output",
                 strerror(werr));
        rc = 1;
    }
    if (it) bb_model_iter_free(it);
    free_all(&w);
    return rc;
}
