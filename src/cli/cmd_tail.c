/* tail.c — `backbeat tail`: the records of running (or dead) processes' ring files
 * (docs/RING_FILE.md), read read-only through the read library's follow API
 * (backbeat/ring_reader.h), printed in timestamp order as text or JSON lines; with --follow,
 * new records as they are committed (record by record, bb_ring_follow_records; read once, each
 * file's records come as a `.bb` dump, bb_ring_follow, so that it is closed at once), new ring
 * files of a --scan directory, and schemas registered mid-run, until SIGINT / SIGTERM or until
 * every followed process has exited and its rings are drained. A lap lost is reported on
 * stderr, never filled in. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backbeat/reader.h"
#include "backbeat/ring_reader.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/ring_scan.h"
#include "cli/ringfile.h"
#include "cli/tail_json.h"
#include "emit/obuf.h"
#include "logfmt/logfmt.h"
#include "format/names.h"

static const char tail_help[] =
    "usage: backbeat tail [--follow] [--format text|jsonl] [--event NAME]... [--instance HEX]...\n"
    "                     [--since-now] RINGFILE... | --scan DIR\n"
    "\n"
    "Print the records of ring files (BACKBEAT_RING_DIR, bb_recorder_create_ring) of running or\n"
    "dead processes, in timestamp order. The files are read only: the writers are not affected.\n"
    "\n"
    "  -f, --follow         keep printing records as they are committed (polling every 10-20 ms,\n"
    "                       more often for a busy writer, at once while behind),\n"
    "                       until SIGINT / SIGTERM, or until every followed process has exited\n"
    "                       and its rings are drained; with --scan, new ring files are picked up\n"
    "      --format F       text (one aligned line per record; the default on a terminal) or\n"
    "                       jsonl (one JSON object per line: ts_nanos, event, event_id,\n"
    "                       instance_id, pid, shard, then the event's fields; the default\n"
    "                       otherwise)\n"
    "                       A log line (BB_LOG) prints as \"time pid PID INSTANCE/SHARD level\n"
    "                       file:line message\" (text; no \"pid PID\" when the file has no pid)\n"
    "                       or with level, file, line, function and message members (jsonl).\n"
    "      --event NAME     only records of this event (qualified name; repeatable)\n"
    "      --instance HEX   only records of this instance id (repeatable)\n"
    "      --since-now      start at the current heads instead of the oldest record held\n"
    "      --scan DIR       every backbeat.*.ring file of DIR (symbolic links and non-regular\n"
    "                       entries skipped, never followed)\n"
    "  -h, --help           show this help\n"
    "\n"
    "A record overwritten while it was read is dropped, never printed. When the writers lap the\n"
    "reader, stderr says how many bytes of which ring were lost, once per occurrence; a head\n"
    "that goes back or jumps forward over 1 TiB is named as damage, never counted as lost.\n"
    "Exit 0 on success or SIGINT / SIGTERM; 1 when a file could not be read, or a --scan file\n"
    "was skipped (a link, not a ring file, over the open-file limit: named on stderr; the\n"
    "others are still printed).\n";

/* What the command line asks for. */
typedef struct tail_opts {
    bool follow, jsonl, since_now;
    const char *scan;
    char **paths;
    size_t npaths;
    const char **events;
    size_t nevents;
    uint64_t *ids;
    size_t nids;
} tail_opts;

/* One ring file followed. */
typedef struct source {
    char *path;
    bb_ring *ring; /* NULL: could not be opened (named once, not retried) */
    bb_ring_cursor *cur;
    uint64_t *from;      /* each ring's cursor before the last follow call (its losses) */
    bool scanned;        /* found by --scan: skipped when it cannot be opened (else an error) */
    bool dropped;        /* could not be opened or read: named once, never retried */
    bool done;           /* its process is gone and its rings are drained */
    bb_rinstance inst;   /* following: what the renderers take of its process (header)... */
    bb_rintern *interns; /* ...and the interned strings its poll's records use (bb_ring_intern) */
    size_t ninterns, interns_cap;
} source;

/* One record of a poll (32 bytes: a busy poll holds hundreds of thousands): its field bytes
 * where they lie: following, in its ring's follow buffer (bb_ring_follow_records; valid until
 * the next follow call on that file, which comes after the poll is printed); otherwise in the
 * poll's dump (kept open until the poll is printed), or, for the one record
 * of a walk that wraps (the walker's copy, reused for the next), copied into the poll's arena
 * (its `fields` set when the poll is printed, see wrap_fix); its instance and shard are its
 * run's. */
typedef struct item {
    uint64_t ts;
    const uint8_t *fields;
    const bb_rschema *schema;
    uint32_t run; /* its walk_run */
} item;

/* The records of one shard walk, oldest first: items [first, first + n). */
typedef struct walk_run {
    size_t first, n;
    const bb_rinstance *inst;
    uint32_t shard;
} walk_run;

/* A wrapping record's bytes: item `at_item`'s fields are arena + at. */
typedef struct wrap_fix {
    size_t at_item, at;
} wrap_fix;

typedef struct tail_state {
    const tail_opts *o;
    cli_tail_json *json;
    source *src;
    size_t nsrc;
    em_obuf out;
    item *items, *merged; /* merged: the merge's scratch, as long as items */
    size_t nitems, cap, merged_cap;
    walk_run *runs;
    size_t nruns, runs_cap;
    wrap_fix *fix;
    size_t nfix, fix_cap;
    uint8_t *arena;
    size_t arena_len, arena_cap;
    size_t name_width;       /* text: the widest event name so far */
    em_obuf who;             /* text: put_who's text (in memory)... */
    const walk_run *who_run; /* ...for this run of the poll being printed (NULL: none) */
    bool file_failed;        /* a followed file could not be read (named, dropped; exit 1) */
    bool skipped;            /* a scanned file could not be opened (named, skipped; exit 1) */
    int retry;               /* some ring holds bytes (without --follow, nothing printed is retried:
                        * a busy writer may have lapped the whole window during the copy) */
} tail_state;

static bool grow(void *v, size_t *cap, size_t need, size_t size) {
    return cli_grow(v, cap, need, size, 64);
}

/* ---- sources ------------------------------------------------------------------------------ */

static bool have_source(const tail_state *t, const char *path) {
    for (size_t i = 0; i < t->nsrc; i++)
        if (!strcmp(t->src[i].path, path)) return true;
    return false;
}

/* Open source `s`, its cursors at the start; an explicit input that fails is an error (false),
 * a scanned one is named once and skipped (dropped). */
static bool open_source(tail_state *t, source *s) {
    bb_error err;
    /* A file just created has no header yet ("empty"): following, give its writer a second. */
    if ((s->scanned && cli_ring_is_link(s->path, &err)) ||
        cli_ring_open_wait(s->path, t->o->follow ? 100 : 0, &s->ring, &err) != BB_OK) {
        cli_error("%s%s", s->scanned ? "skipped: " : "", err.message);
        s->done = s->dropped = true;
        t->skipped |= s->scanned;
        return s->scanned;
    }
    uint32_t n = bb_ring_get_info(s->ring)->shards;
    free(s->cur);
    free(s->from);
    s->cur = calloc(n, sizeof *s->cur);
    s->from = calloc(n, sizeof *s->from);
    if (!s->cur || !s->from) return false;
    for (uint32_t i = 0; i < n; i++) s->cur[i].pos = t->o->since_now ? BB_RING_NOW : BB_RING_OLDEST;
    return true;
}

/* Add `path`. Following, it is opened now and stays open; otherwise it is opened when it is
 * read and closed right after, so that a directory of thousands of files holds one open at a
 * time (issue 43: every file was open at once, those past the open-file limit skipped). */
static bool add_source(tail_state *t, const char *path, bool scanned) {
    size_t cap = t->nsrc;
    if (!grow(&t->src, &cap, t->nsrc + 1, sizeof *t->src)) return false;
    source *s = &t->src[t->nsrc];
    memset(s, 0, sizeof *s);
    s->path = strdup(path);
    if (!s->path) return false;
    s->scanned = scanned;
    t->nsrc++;
    return !t->o->follow || open_source(t, s);
}

/* A ring file of the --scan directory, unless it is followed already. */
static bool add_scanned(void *ctx, const char *path) {
    tail_state *t = ctx;
    return have_source(t, path) || add_source(t, path, true);
}

/* The ring files of the --scan directory not followed yet. */
static bool scan_dir(tail_state *t) { return cli_ring_scan(t->o->scan, add_scanned, t); }

/* ---- one poll ------------------------------------------------------------------------------ */

static bool wanted(const tail_opts *o, const bb_rschema *s, uint64_t instance) {
    bool ev = o->nevents == 0, in = o->nids == 0;
    for (size_t i = 0; !ev && i < o->nevents; i++)
        ev = strlen(o->events[i]) == s->name.len && !memcmp(o->events[i], s->name.ptr, s->name.len);
    for (size_t i = 0; !in && i < o->nids; i++) in = o->ids[i] == instance;
    return ev && in;
}

typedef struct walk_ctx {
    tail_state *t;
    source *s;                /* following: the source read, ... */
    const bb_rschema *schema; /* ...the schema of its last record, whether it is wanted and */
    bool want, interned;      /* has interned fields, ... */
    size_t run;               /* ...the run its last record went to (SIZE_MAX: none)... */
    uint32_t shard;           /* ...and that run's shard */
    bool failed;
} walk_ctx;

static int take(const bb_record *r, void *vctx) {
    walk_ctx *c = vctx;
    tail_state *t = c->t;
    if (!wanted(t->o, r->schema, r->instance_id)) return 0;
    bool wraps = r->offset == 0xFFFFFFFFu; /* its bytes are the walker's, for now only */
    size_t n = wraps ? r->schema->record_size : 0;
    if (!grow(&t->items, &t->cap, t->nitems + 1, sizeof *t->items) ||
        (wraps && (!grow(&t->arena, &t->arena_cap, t->arena_len + n, 1) ||
                   !grow(&t->fix, &t->fix_cap, t->nfix + 1, sizeof *t->fix)))) {
        c->failed = true;
        return 1;
    }
    if (wraps) { /* its index as the walk's run will be once reversed (oldest_first) */
        if (n)   /* a record with no fields (a log line without arguments) may come first */
            memcpy(t->arena + t->arena_len, r->fields, n);
        t->fix[t->nfix++] = (wrap_fix){t->nitems, t->arena_len};
        t->arena_len += n;
    }
    t->items[t->nitems++] = (item){r->ts, wraps ? NULL : r->fields, r->schema, (uint32_t)t->nruns};
    return 0;
}

/* A ring's records as walked (newest first), oldest first: run `k` of the poll, whose wrapping
 * records (fixes from `fix0` on) follow them to their new places. */
static void oldest_first(tail_state *t, size_t k, size_t fix0) {
    walk_run *r = &t->runs[k];
    if (r->n < 2) return; /* (items is NULL before the first record: no arithmetic on it) */
    item *v = t->items + r->first;
    for (size_t i = 0; i < r->n / 2; i++) {
        item x = v[i];
        v[i] = v[r->n - 1 - i];
        v[r->n - 1 - i] = x;
    }
    for (size_t i = fix0; i < t->nfix; i++)
        t->fix[i].at_item = r->first + (r->n - 1 - (t->fix[i].at_item - r->first));
}

/* One shard's records into a run of their own. */
static bool walk_shard(tail_state *t, bb_dump *d, const bb_rinstance *inst, const bb_rshard *sh) {
    if (!grow(&t->runs, &t->runs_cap, t->nruns + 1, sizeof *t->runs)) return false;
    walk_ctx c = {.t = t};
    size_t first = t->nitems, fix0 = t->nfix;
    bb_shard_walk(d, sh, take, &c, NULL);
    if (c.failed) return false;
    t->runs[t->nruns] = (walk_run){first, t->nitems - first, inst, sh->shard_id};
    oldest_first(t, t->nruns, fix0);
    t->nruns++;
    return true;
}

/* Report the laps lost on each ring of `s`, once per follow call that lost some. */
static void report_losses(tail_state *t, const source *s) {
    const bb_ring_info *in = bb_ring_get_info(s->ring);
    for (uint32_t i = 0; i < in->shards; i++) t->retry |= s->cur[i].head != 0;
    for (uint32_t i = 0; i < in->shards; i++) {
        uint64_t bytes;
        cli_ring_loss what = cli_ring_loss_of(s->from[i], &s->cur[i], &bytes);
        cli_ring_report_loss("tail", s->path, i, s->from[i], what, bytes);
    }
}

/* Read source `s` once (without --follow): its records into t->items; the dump kept open in
 * *d (its schemas and instances are the items'). A file that cannot be read (truncated under
 * the reader, damaged) is named, closed and dropped: the other files go on, the exit status is
 * 1. */
static bool poll_source(tail_state *t, source *s, bb_dump **d, void **mem) {
    bool gone = bb_ring_liveness(s->ring) == BB_RING_GONE;
    size_t len = 0;
    bb_error err;
    for (uint32_t i = 0; i < bb_ring_get_info(s->ring)->shards; i++) s->from[i] = s->cur[i].pos;
    if (bb_ring_follow(s->ring, s->cur, mem, &len, &err) != BB_OK ||
        bb_dump_open_memory(*mem, len, s->path, d, &err) != BB_OK) {
        cli_error("%s", err.message);
        bb_ring_buffer_free(*mem);
        *mem = NULL;
        bb_ring_close(s->ring);
        s->ring = NULL;
        s->done = s->dropped = t->file_failed = true;
        return err.status != BB_ERR_NOMEM;
    }
    report_losses(t, s);
    bool ok = true;
    for (size_t i = 0; ok && i < bb_dump_instance_count(*d); i++) {
        const bb_rinstance *in = bb_dump_instance(*d, i);
        for (size_t k = 0; ok && k < in->shard_count; k++)
            ok = walk_shard(t, *d, in, &in->shards[k]);
    }
    s->done = gone; /* everything it committed was in this call */
    if (!ok) cli_error("out of memory");
    return ok;
}

/* ---- following: record by record ------------------------------------------------------- */

static bool has_interned(const bb_rschema *sc) {
    for (size_t i = 0; i < sc->field_count; i++)
        if (sc->fields[i].type == BB_TYPE_INTERNED) return true;
    return false;
}

/* The ids of a record's interned fields into s->interns (sorted, made unique and resolved once
 * the poll is read: index_interns). False when out of memory. */
static bool note_interns(source *s, const bb_rschema *sc, const uint8_t *fields) {
    for (size_t i = 0; i < sc->field_count; i++) {
        if (sc->fields[i].type != BB_TYPE_INTERNED) continue;
        uint32_t id = (uint32_t)bb_decode_field(sc, i, fields, NULL).u;
        if (s->ninterns && s->interns[s->ninterns - 1].id == id) continue;
        if (!grow(&s->interns, &s->interns_cap, s->ninterns + 1, sizeof *s->interns)) return false;
        s->interns[s->ninterns++] = (bb_rintern){id, {"", 0}};
    }
    return true;
}

/* take_record's rarer work: a run begun (its length is set once the call is over: count_runs),
 * the items grown, the interned ids noted. False when out of memory. */
static bool take_slow(walk_ctx *c, const bb_ring_record *r) {
    tail_state *t = c->t;
    bool new_run = c->run == SIZE_MAX || c->shard != r->shard;
    if ((t->nitems == t->cap && !grow(&t->items, &t->cap, t->nitems + 1, sizeof *t->items)) ||
        (new_run && !grow(&t->runs, &t->runs_cap, t->nruns + 1, sizeof *t->runs)) ||
        (c->interned && !note_interns(c->s, r->schema, r->fields)))
        return false;
    if (new_run) {
        c->run = t->nruns++;
        c->shard = r->shard;
        t->runs[c->run] = (walk_run){t->nitems, 0, &c->s->inst, r->shard};
    }
    return true;
}

/* One record of the follow call: an item of its ring's run (a run per ring and call). */
static int take_record(void *vctx, const bb_ring_record *r) {
    walk_ctx *c = vctx;
    tail_state *t = c->t;
    if (r->schema != c->schema) { /* (a ring's records are mostly of a few events) */
        c->schema = r->schema;
        c->want = wanted(t->o, r->schema, c->s->inst.instance_id);
        c->interned = has_interned(r->schema);
    }
    if (!c->want) return 0;
    if ((c->run == SIZE_MAX || c->shard != r->shard || t->nitems == t->cap || c->interned) &&
        !take_slow(c, r)) {
        c->failed = true;
        return 1;
    }
    t->items[t->nitems++] = (item){r->ts, r->fields, r->schema, (uint32_t)c->run};
    return 0;
}

/* The lengths of runs [k, t->nruns): each ends where the next begins, the last with the items. */
static void count_runs(tail_state *t, size_t k) {
    for (; k < t->nruns; k++)
        t->runs[k].n = (k + 1 < t->nruns ? t->runs[k + 1].first : t->nitems) - t->runs[k].first;
}

static int by_id(const void *a, const void *b) {
    uint32_t x = ((const bb_rintern *)a)->id, y = ((const bb_rintern *)b)->id;
    return (x > y) - (x < y);
}

/* s->interns sorted, made unique and resolved through the ring's intern table (an id it does
 * not name is left out: it prints as an unresolved id, as it does from a dump). */
static void index_interns(source *s) {
    if (s->ninterns > 1) qsort(s->interns, s->ninterns, sizeof *s->interns, by_id);
    size_t m = 0;
    for (size_t i = 0; i < s->ninterns; i++) {
        bb_strview v;
        if ((m && s->interns[m - 1].id == s->interns[i].id) ||
            !bb_ring_intern(s->ring, s->interns[i].id, &v))
            continue;
        s->interns[m++] = (bb_rintern){s->interns[i].id, v};
    }
    s->ninterns = m;
    s->inst.intern = s->interns;
    s->inst.intern_count = m;
}

/* Follow source `s` once (--follow): its new records into t->items, pointing into its rings'
 * follow buffers, its instance (s->inst, as a dump of the file would give it) theirs. A file
 * that cannot be read (truncated under the reader, damaged) is named, closed and dropped, its
 * records of this poll forgotten: the other files go on, the exit status is 1. */
static bool follow_source(tail_state *t, source *s) {
    bool gone = bb_ring_liveness(s->ring) == BB_RING_GONE;
    const bb_ring_info *info = bb_ring_get_info(s->ring);
    bb_error err;
    for (uint32_t i = 0; i < info->shards; i++) s->from[i] = s->cur[i].pos;
    s->inst = (bb_rinstance){.instance_id = info->instance_id,
                             .has_process = info->pid != 0,
                             .pid = info->pid,
                             .start_ns = info->start_ns};
    s->ninterns = 0;
    size_t items0 = t->nitems, runs0 = t->nruns;
    walk_ctx c = {.t = t, .s = s, .run = SIZE_MAX};
    if (bb_ring_follow_records(s->ring, s->cur, take_record, &c, &err) != BB_OK) {
        t->nitems = items0;
        t->nruns = runs0;
        cli_error("%s", err.message);
        bb_ring_close(s->ring);
        s->ring = NULL;
        s->done = s->dropped = t->file_failed = true;
        return err.status != BB_ERR_NOMEM;
    }
    if (c.failed) {
        cli_error("out of memory");
        return false;
    }
    count_runs(t, runs0);
    report_losses(t, s);
    index_interns(s);
    s->done = gone; /* everything it committed was in this call */
    return true;
}

/* Whether the items are in time order already (one busy ring: its run is oldest first), so
 * that the merge can be skipped. */
static bool in_order(const item *v, size_t n) {
    for (size_t i = 1; i < n; i++)
        if (v[i - 1].ts > v[i].ts) return false;
    return true;
}

/* Merge the sorted stretches [a, m) and [m, e) of items into the same places of out, the
 * first stretch's record first on equal timestamps. */
static void merge2(const item *v, size_t a, size_t m, size_t e, item *out) {
    size_t i = a, j = m, k = a;
    while (i < m && j < e) out[k++] = v[j].ts < v[i].ts ? v[j++] : v[i++];
    while (i < m) out[k++] = v[i++];
    while (j < e) out[k++] = v[j++];
}

/* The poll's items in timestamp order, records of one timestamp in their runs' order (their
 * rings', then oldest first): the runs merged pairwise, stably. False when out of memory. */
static bool merge_runs(tail_state *t) {
    if (t->nruns < 2 || in_order(t->items, t->nitems)) return true; /* (one run: as it came) */
    if (!grow(&t->merged, &t->merged_cap, t->nitems, sizeof *t->merged)) return false;
    size_t *at = malloc((t->nruns + 1) * sizeof *at), m = 0; /* the runs' starts, then the end */
    if (!at) return false;
    for (size_t k = 0; k < t->nruns; k++)
        if (t->runs[k].n) at[m++] = t->runs[k].first;
    at[m] = t->nitems;
    for (size_t w = 1; w < m; w *= 2) {
        for (size_t i = 0; i < m; i += 2 * w) {
            size_t a = at[i], mid = at[i + w < m ? i + w : m],
                   e = at[i + 2 * w < m ? i + 2 * w : m];
            merge2(t->items, a, mid, e, t->merged);
        }
        item *x = t->items; /* the merged stretches become the items */
        t->items = t->merged;
        t->merged = x;
        size_t c = t->cap;
        t->cap = t->merged_cap;
        t->merged_cap = c;
    }
    free(at);
    return true;
}

/* ---- printing ----------------------------------------------------------------------------- */

static bool is_padding(const bb_rfield *f) {
    return f->name.len >= 4 && !memcmp(f->name.ptr, "_pad", 4);
}

/* n spaces. */
static void put_spaces(em_obuf *b, size_t n) {
    static const char sp[] = "                                ";
    for (; n > sizeof sp - 1; n -= sizeof sp - 1) em_obuf_write(b, sp, sizeof sp - 1);
    em_obuf_write(b, sp, n);
}

/* A name as "%.*s" prints it: up to its first NUL byte. */
static void put_cut(em_obuf *b, bb_strview v) {
    const char *nul = memchr(v.ptr, 0, v.len);
    em_obuf_write(b, v.ptr, nul ? (size_t)(nul - v.ptr) : v.len);
}

/* A timestamp as seconds, '.', and 9 digits of nanoseconds. */
static void put_time(em_obuf *b, uint64_t ts) {
    uint32_t ns = (uint32_t)(ts % 1000000000u);
    char frac[10];
    frac[0] = '.';
    frac[1] = (char)('0' + ns / 100000000u);
    em_put8(frac + 2, ns % 100000000u);
    em_obuf_u64(b, ts / 1000000000u);
    em_obuf_write(b, frac, sizeof frac);
}

/* "pid PID INSTANCE/SHARD" ("%016llx/%-3u"; no "pid PID " without a pid), built once per run:
 * the text of run t->who_run. */
static void put_who(tail_state *t, const walk_run *ru) {
    if (t->who_run != ru) {
        em_obuf *w = &t->who;
        w->len = 0;
        if (ru->inst->has_process) {
            em_obuf_write(w, "pid ", 4);
            em_obuf_u64(w, ru->inst->pid);
            em_obuf_putc(w, ' ');
        }
        em_obuf_hex16(w, ru->inst->instance_id);
        em_obuf_putc(w, '/');
        em_obuf_u64(w, ru->shard);
        put_spaces(w, ru->shard < 10 ? 2 : ru->shard < 100 ? 1 : 0);
        t->who_run = w->failed ? NULL : ru;
        if (w->failed) t->out.failed = t->out.failed ? t->out.failed : ENOMEM;
    }
    em_obuf_write(&t->out, t->who.data, t->who.len);
}

static void print_text(tail_state *t, const item *it, const walk_run *ru) {
    em_obuf *b = &t->out;
    const bb_rschema *s = it->schema;
    const bb_rinstance *inst = ru->inst;
    const uint8_t *fields = it->fields;
    lf_site site;
    if (lf_site_parse(s, &site)) { /* a log line: time, who (as other lines), level, message */
        char line[8192], who[64];
        int k = inst->has_process
                    ? snprintf(who, sizeof who, "pid %llu ", (unsigned long long)inst->pid)
                    : 0;
        snprintf(who + k, sizeof who - (size_t)k, "%016llx/%-3u",
                 (unsigned long long)inst->instance_id, ru->shard);
        bb_record r = {.ts = it->ts, .schema = s, .fields = fields};
        size_t n = lf_line(&site, s, &r, inst, who, line, sizeof line);
        em_obuf_write(b, line, n);
        em_obuf_putc(b, '\n');
        return;
    }
    /* a span's enter and exit share the name: " (enter)" / " (exit)" tells them apart */
    const char *ph = s->phase ? bb__phase_name(s->phase) : "";
    size_t shown = s->name.len + (s->phase ? strlen(ph) + 3 : 0);
    if (shown > t->name_width) t->name_width = shown;
    put_time(b, it->ts);
    em_obuf_write(b, "  ", 2);
    put_cut(b, s->name);
    if (s->phase) {
        em_obuf_write(b, " (", 2);
        em_obuf_puts(b, ph);
        em_obuf_putc(b, ')');
    }
    put_spaces(b, t->name_width - shown + 2);
    put_who(t, ru);
    for (size_t i = 0; i < s->field_count; i++) {
        if (is_padding(&s->fields[i])) continue;
        em_obuf_write(b, "  ", 2);
        put_cut(b, s->fields[i].name);
        em_obuf_putc(b, '=');
        em_obuf_json_field(b, s, i, fields, inst);
    }
    em_obuf_putc(b, '\n');
}

/* Print and drop the poll's records, oldest first. False when stdout failed. */
static bool print_items(tail_state *t) {
    for (size_t i = 0; i < t->nfix; i++) /* the arena grows no more: point at it */
        t->items[t->fix[i].at_item].fields = t->arena ? t->arena + t->fix[i].at : NULL;
    if (!merge_runs(t)) {
        t->out.failed = ENOMEM;
        return false;
    }
    cli_tail_json_reset(t->json); /* the poll's schemas and instances go with its dumps */
    t->who_run = NULL;
    for (size_t i = 0; i < t->nitems; i++) {
        const item *it = &t->items[i];
        const walk_run *ru = &t->runs[it->run];
        if (t->o->jsonl)
            cli_tail_json_put(t->json, &t->out, it->schema, ru->inst, it->ts, ru->shard,
                              it->fields);
        else print_text(t, it, ru);
    }
    t->nitems = t->arena_len = t->nruns = t->nfix = 0;
    return em_obuf_flush(&t->out) == 0;
}

/* One poll of every source; *printed: records printed. False on a failure. */
static bool poll_all(tail_state *t, size_t *printed) {
    size_t n = t->nsrc;
    bb_dump **d = calloc(n ? n : 1, sizeof *d);
    void **mem = calloc(n ? n : 1, sizeof *mem);
    bool ok = d && mem;
    for (size_t i = 0; ok && i < n; i++) {
        source *s = &t->src[i];
        if (!s->done && !s->ring) ok = open_source(t, s);
        if (!ok || s->done) continue;
        ok = t->o->follow ? follow_source(t, s) : poll_source(t, s, &d[i], &mem[i]);
        if (!t->o->follow && s->ring) { /* read once: its dump is in memory, the file closed */
            bb_ring_close(s->ring);
            s->ring = NULL;
        }
    }
    *printed = t->nitems;
    if (ok && !print_items(t)) {
        if (t->out.failed != EPIPE)
            cli_error("cannot write the output: %s", strerror(t->out.failed));
        ok = false;
        cli_stop = t->out.failed == EPIPE ? 2 : 0;
    }
    for (size_t i = 0; d && mem && i < n; i++) {
        if (d[i]) bb_dump_close(d[i]);
        bb_ring_buffer_free(mem[i]);
    }
    free(d);
    free(mem);
    return ok;
}

static void rewind_sources(tail_state *t) {
    for (size_t i = 0; i < t->nsrc; i++) {
        source *s = &t->src[i];
        for (uint32_t k = 0; s->ring && k < bb_ring_get_info(s->ring)->shards; k++)
            s->cur[k].pos = BB_RING_OLDEST; /* (a file read once is opened again) */
        s->done = s->dropped;
    }
}

static bool all_done(const tail_state *t) {
    for (size_t i = 0; i < t->nsrc; i++)
        if (!t->src[i].done) return false;
    return true;
}

/* The records a poll aims at: few enough that a poll's window, items and output stay in the
 * caches, enough that its fixed cost (the follow calls, the renderer's plans) is spread thin. A
 * poll of BATCH or more found the follower behind: the next one comes at once. */
#define BATCH 8192

/* The nap after a poll that printed `printed` records gathered over `took` ns (since the last
 * poll began): at once when behind, else long enough for about BATCH records at that rate, at
 * most 10 ms; 20 ms when idle. */
static uint64_t nap_ns(size_t printed, uint64_t took) {
    if (!printed) return 20000000u;
    if (printed >= BATCH) return 0;
    uint64_t ns = (uint64_t)((double)took * (double)(BATCH - printed) / (double)printed);
    return ns < 10000000u ? ns : 10000000u;
}

/* Poll until stopped, or (following) until every process is gone and drained: as nap_ns says
 * (a slow writer's records every 10 ms, a busy one's in batches of about BATCH records, none
 * left waiting while behind); a --scan directory listed every 250 ms. */
static int run(tail_state *t) {
    uint64_t last_scan = cli_now_ns(), began = last_scan;
    for (int tries = 0;; tries++) {
        size_t printed = 0;
        uint64_t now = cli_now_ns(), took = now - began;
        began = now;
        t->retry = 0;
        if (!poll_all(t, &printed))
            return cli_stop == 2 && !(t->file_failed || t->skipped) ? CLI_OK : CLI_FAIL;
        if (!t->o->follow && !t->o->since_now && t->retry && !printed && tries < 20) {
            rewind_sources(t); /* a busy writer lapped the one read: read it again */
            continue;
        }
        if (!t->o->follow || cli_stop || (all_done(t) && t->nsrc))
            return t->file_failed || t->skipped ? CLI_FAIL : CLI_OK;
        uint64_t ns = nap_ns(printed, took);
        struct timespec nap = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
        if (ns) nanosleep(&nap, NULL);
        if (cli_stop) return t->file_failed || t->skipped ? CLI_FAIL : CLI_OK;
        if (t->o->scan && cli_now_ns() - last_scan > 250000000u) {
            if (!scan_dir(t)) return CLI_FAIL;
            last_scan = cli_now_ns();
        }
    }
}

static void state_free(tail_state *t) {
    for (size_t i = 0; i < t->nsrc; i++) {
        bb_ring_close(t->src[i].ring);
        free(t->src[i].cur);
        free(t->src[i].from);
        free(t->src[i].path);
        free(t->src[i].interns);
    }
    free(t->src);
    free(t->items);
    free(t->merged);
    free(t->runs);
    free(t->fix);
    free(t->arena);
    cli_tail_json_free(t->json);
    free(t->who.data);
    em_obuf_finish(&t->out);
}

static bool state_init(tail_state *t, const tail_opts *o) {
    memset(t, 0, sizeof *t);
    t->o = o;
    t->name_width = 20;
    if (!(t->json = cli_tail_json_new()) || !em_obuf_init(&t->who, -1, 64) ||
        !em_obuf_init(&t->out, STDOUT_FILENO, 1 << 20))
        return false;
    if (o->scan) return scan_dir(t);
    for (size_t i = 0; i < o->npaths; i++)
        if (!add_source(t, o->paths[i], false)) return false;
    return true;
}

/* ---- the command -------------------------------------------------------------------------- */

/* Parse the options into *o; CLI_OK, or the exit status of a usage error / --help. */
static int parse(int argc, char **argv, tail_opts *o) {
    static const struct option opts[] = {
        {"follow", no_argument, NULL, 'f'},      {"format", required_argument, NULL, 'F'},
        {"event", required_argument, NULL, 'e'}, {"instance", required_argument, NULL, 'i'},
        {"since-now", no_argument, NULL, 'n'},   {"scan", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->jsonl = !isatty(STDOUT_FILENO);
    o->events = calloc((size_t)argc + 1, sizeof *o->events); /* at most one per argument */
    o->ids = calloc((size_t)argc + 1, sizeof *o->ids);
    if (!o->events || !o->ids) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":fh", opts, NULL)) != -1) {
        switch (c) {
        case 'f': o->follow = true; break;
        case 'n': o->since_now = true; break;
        case 's': o->scan = optarg; break;
        case 'F':
            if (strcmp(optarg, "text") && strcmp(optarg, "jsonl"))
                return cli_usage_error("tail", "--format is text or jsonl");
            o->jsonl = !strcmp(optarg, "jsonl");
            break;
        case 'e': o->events[o->nevents++] = optarg; break;
        case 'i':
            if (!cli_parse_hex64(optarg, &o->ids[o->nids++]))
                return cli_usage_error("tail", "--instance takes a hex instance id: %s", optarg);
            break;
        case 'h': fputs(tail_help, stdout); return -1;
        default: return cli_option_error("tail", c, argv);
        }
    }
    o->paths = &argv[optind];
    o->npaths = (size_t)(argc - optind);
    if (o->scan && o->npaths) return cli_usage_error("tail", "--scan takes only a directory");
    if (!o->scan && !o->npaths) return cli_usage_error("tail", "no ring file given");
    return CLI_OK;
}

/* `backbeat tail`: see tail_help. */
int cmd_tail(int argc, char **argv) {
    tail_opts o;
    int st = parse(argc, argv, &o);
    if (st == CLI_OK) {
        cli_catch_stop();
        tail_state t;
        st = state_init(&t, &o) ? run(&t) : CLI_FAIL;
        state_free(&t);
    }
    free(o.events);
    free(o.ids);
    return st < 0 ? CLI_OK : st;
}
