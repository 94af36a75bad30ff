/* top.c — `backbeat top`: records per second per event, per process (ring file) and per shard,
 * the losses and the ring fill of running processes' ring files (docs/RING_FILE.md), read
 * read-only through the read library's record-level follow call (bb_ring_follow_records: no
 * dump built), refreshed every interval on a terminal or printed --once / --iterations N times
 * as text or JSON lines (top_render.c). New ring files of a --scan directory are picked up;
 * SIGINT / SIGTERM exit 0. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "backbeat/reader.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/ring_scan.h"
#include "cli/ringfile.h"
#include "cli/top.h"
#include "format/names.h"

static const char top_help[] =
    "usage: backbeat top [--scan DIR | RINGFILE...] [--interval MS] [--shards]\n"
    "                    [--once | --iterations N] [--format text|jsonl]\n"
    "\n"
    "Show, per ring file (BACKBEAT_RING_DIR, bb_recorder_create_ring) of running processes,\n"
    "the records per second per event (and per shard with --shards), the bytes written per\n"
    "second, the ring fill, the bytes lost when the writers lapped top and the metadata entries\n"
    "the writer dropped. The files are read only: the writers are not affected.\n"
    "\n"
    "      --scan DIR       every backbeat.*.ring file of DIR (symbolic links and\n"
    "                       non-regular entries skipped, never followed);\n"
    "                       new files are picked up and counted from their first record\n"
    "      --interval MS    the refresh interval in milliseconds (10..3600000; default 1000)\n"
    "      --shards         a row per shard (ring) too\n"
    "      --once           print one interval and exit (--iterations 1)\n"
    "      --iterations N   print N intervals and exit\n"
    "      --format F       text (a table; on a terminal without --once / --iterations,\n"
    "                       redrawn in place) or jsonl (one JSON object per row per interval:\n"
    "                       see backbeat(1) for the keys)\n"
    "  -h, --help           show this help\n"
    "\n"
    "Files open when top starts are counted from their current heads. Exit 0 on SIGINT /\n"
    "SIGTERM or after the iterations asked for; 1 when a watched file could not be read\n"
    "(named on stderr and no longer shown; the others go on), or a --scan file was skipped (a\n"
    "link, not a ring file, over the open-file limit: named on stderr once).\n";

/* What the command line asks for. */
typedef struct top_opts {
    const char *scan;
    char **paths;
    size_t npaths;
    uint64_t interval_ns;
    uint64_t iterations; /* 0: until stopped */
    bool shards, jsonl, screen;
} top_opts;

typedef struct top_state {
    const top_opts *o;
    top_proc *procs;
    size_t nprocs, cap;
    em_obuf out;
    bool file_failed; /* a watched file could not be read (named, dropped; exit 1) */
    bool skipped;     /* a scanned file could not be opened (named, skipped; exit 1) */
} top_state;

static bool grow(void *v, size_t *cap, size_t need, size_t size) {
    return cli_grow(v, cap, need, size, 16);
}

/* ---- ring files ----------------------------------------------------------------------------- */

static void proc_free(top_proc *p) {
    bb_ring_close(p->ring);
    for (size_t k = 0; k < p->nev; k++) free(p->ev[k].name);
    free(p->ev);
    free(p->cur);
    free(p->head0);
    free(p->from);
    free(p->shard_n);
    free(p->shard_lost);
    free(p->path);
}

/* From the heads nothing is handed over. */
static int count_none(void *ctx, const bb_ring_record *r) {
    (void)ctx;
    (void)r;
    return 0;
}

/* Position p's cursors: at the heads (a file open when top starts) or at the oldest record (a
 * file that appeared since: every record it holds is new). */
static bool proc_start(top_proc *p, bool now) {
    uint32_t n = bb_ring_get_info(p->ring)->shards;
    p->cur = calloc(n, sizeof *p->cur);
    p->head0 = calloc(n, sizeof *p->head0);
    p->shard_n = calloc(n, sizeof *p->shard_n);
    p->shard_lost = calloc(n, sizeof *p->shard_lost);
    p->from = calloc(n, sizeof *p->from);
    if (!p->cur || !p->head0 || !p->shard_n || !p->shard_lost || !p->from) return false;
    if (!now) return true;
    for (uint32_t i = 0; i < n; i++) p->cur[i].pos = BB_RING_NOW;
    bb_error err;
    if (bb_ring_follow_records(p->ring, p->cur, count_none, NULL, &err) != BB_OK) {
        cli_error("%s", err.message);
        return false;
    }
    for (uint32_t i = 0; i < n; i++) p->head0[i] = p->cur[i].head;
    return true;
}

static bool have_proc(const top_state *t, const char *path) {
    for (size_t i = 0; i < t->nprocs; i++)
        if (!strcmp(t->procs[i].path, path)) return true;
    return false;
}

/* Open `path` and watch it; an explicit input that fails is an error (false), a scanned one is
 * named once and skipped. */
static bool add_proc(top_state *t, const char *path, bool scanned, bool now) {
    if (!grow(&t->procs, &t->cap, t->nprocs + 1, sizeof *t->procs)) return false;
    top_proc *p = &t->procs[t->nprocs];
    memset(p, 0, sizeof *p);
    p->live = BB_RING_UNKNOWN;
    if (!(p->path = strdup(path))) return false;
    t->nprocs++;
    bb_error err;
    /* A file just created has no header yet: give its writer a moment. */
    if ((scanned && cli_ring_is_link(path, &err)) ||
        cli_ring_open_wait(path, scanned ? 50 : 0, &p->ring, &err) != BB_OK) {
        cli_error("%s%s", scanned ? "skipped: " : "", err.message);
        t->skipped |= scanned;
        return scanned;
    }
    return proc_start(p, now);
}

typedef struct scan_ctx {
    top_state *t;
    bool now;
} scan_ctx;

/* A ring file of the --scan directory, unless it is watched already. */
static bool add_scanned(void *ctx, const char *path) {
    scan_ctx *c = ctx;
    return have_proc(c->t, path) || add_proc(c->t, path, true, c->now);
}

/* The ring files of the --scan directory not watched yet. */
static bool scan_dir(top_state *t, bool now) {
    scan_ctx c = {t, now};
    return cli_ring_scan(t->o->scan, add_scanned, &c);
}

/* Forget the files shown once as gone whose file was removed (the process exited). */
static void prune(top_state *t) {
    size_t k = 0;
    for (size_t i = 0; i < t->nprocs; i++) {
        top_proc *p = &t->procs[i];
        if (p->ring && p->gone_shown) {
            proc_free(p);
            continue;
        }
        if (p->ring && p->live == BB_RING_GONE && access(p->path, F_OK) != 0) p->gone_shown = true;
        t->procs[k++] = *p;
    }
    t->nprocs = k;
}

/* ---- counting ------------------------------------------------------------------------------- */

static top_event *event_of(top_proc *p, const bb_rschema *s) {
    for (size_t k = 0; k < p->nev; k++)
        if (p->ev[k].id == s->id) return &p->ev[k];
    if (!grow(&p->ev, &p->evcap, p->nev + 1, sizeof *p->ev)) return NULL;
    top_event *e = &p->ev[p->nev];
    memset(e, 0, sizeof *e);
    e->id = s->id;
    /* a span's enter and exit are two events of one name: "name (enter)", "name (exit)" */
    const char *ph = s->phase ? bb__phase_name(s->phase) : NULL;
    size_t len = s->name.len + (ph ? strlen(ph) + 3 : 0);
    if (!(e->name = malloc(len + 1))) return NULL;
    memcpy(e->name, s->name.ptr, s->name.len);
    if (ph) snprintf(e->name + s->name.len, len + 1 - s->name.len, " (%s)", ph);
    e->name[len] = '\0';
    p->nev++;
    return e;
}

typedef struct count_ctx {
    top_proc *p;
    const bb_rschema *last; /* the schema of the last record counted (a bb_ring's schemas stay
                             * put while it is open), and its event's index in p->ev */
    size_t last_ix;
    bool failed;
} count_ctx;

static int count_one(void *vctx, const bb_ring_record *r) {
    count_ctx *c = vctx;
    if (r->schema != c->last) {
        top_event *e = event_of(c->p, r->schema);
        if (!e) {
            c->failed = true;
            return 1;
        }
        c->last = r->schema;
        c->last_ix = (size_t)(e - c->p->ev);
    }
    top_event *e = &c->p->ev[c->last_ix];
    e->n++;
    e->total++;
    c->p->n++;
    c->p->total++;
    c->p->shard_n[r->shard]++;
    return 0;
}

/* Follow p once: count the records committed since the last call, and the bytes lost. */
static bool poll_proc(top_proc *p, bb_status *st) {
    bb_error err;
    uint32_t n = bb_ring_get_info(p->ring)->shards;
    for (uint32_t i = 0; i < n; i++) p->from[i] = p->cur[i].pos;
    count_ctx c = {p, NULL, 0, false};
    if (bb_ring_follow_records(p->ring, p->cur, count_one, &c, &err) != BB_OK) {
        cli_error("%s", err.message);
        *st = err.status;
        return false;
    }
    if (c.failed) {
        cli_error("out of memory");
        *st = BB_ERR_NOMEM;
        return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t bytes;
        cli_ring_loss what = cli_ring_loss_of(p->from[i], &p->cur[i], &bytes);
        if (what == CLI_LOSS_LAPPED) {
            p->shard_lost[i] = cli_sat_add(p->shard_lost[i], bytes);
            p->lost_total = cli_sat_add(p->lost_total, bytes);
        } else if (what != CLI_LOSS_NONE) {
            cli_ring_report_loss("top", p->path, i, p->from[i], what, bytes);
        }
    }
    return true;
}

/* The interval is over: next one counts from zero, bytes from the heads as read now. */
static void reset_counts(top_state *t) {
    for (size_t i = 0; i < t->nprocs; i++) {
        top_proc *p = &t->procs[i];
        if (!p->ring) continue;
        uint32_t n = bb_ring_get_info(p->ring)->shards;
        for (uint32_t k = 0; k < n; k++) {
            p->head0[k] = p->cur[k].head;
            p->shard_n[k] = p->shard_lost[k] = 0;
        }
        for (size_t k = 0; k < p->nev; k++) p->ev[k].n = 0;
        p->n = 0;
    }
}

/* Follow every file once. A file that cannot be read (truncated under the reader, damaged)
 * is named by poll_proc, closed and no longer shown: the others go on, the exit status is 1. */
static bool poll_all(top_state *t) {
    for (size_t i = 0; i < t->nprocs; i++) {
        top_proc *p = &t->procs[i];
        bb_status st = BB_OK;
        if (!p->ring || poll_proc(p, &st)) continue;
        if (st == BB_ERR_NOMEM) return false;
        bb_ring_close(p->ring);
        p->ring = NULL;
        t->file_failed = true;
    }
    return true;
}

/* ---- the loop ------------------------------------------------------------------------------- */

static void sleep_until(uint64_t deadline) {
    uint64_t now = cli_now_ns();
    if (now >= deadline) return;
    uint64_t d = deadline - now;
    struct timespec ts = {(time_t)(d / 1000000000u), (long)(d % 1000000000u)};
    nanosleep(&ts, NULL); /* a signal ends it early */
}

/* The nap after a poll that began `took` ns after the last one: long enough for the busiest
 * ring to move an eighth of its capacity at the rate that poll saw (bytes read plus lost), at
 * once when it moved more (top is behind), at most 10 ms while a ring moves (one poll's rate is
 * a noisy guess), 20 ms when none moved. A writer filling 16 MiB in 30 ms (20 M records/s) is
 * followed every ~4 ms. */
static uint64_t nap_ns(const top_state *t, uint64_t took) {
    double most = 0; /* the largest share of a ring moved since the last poll */
    for (size_t i = 0; i < t->nprocs; i++) {
        const top_proc *p = &t->procs[i];
        if (!p->ring) continue;
        const bb_ring_info *in = bb_ring_get_info(p->ring);
        for (uint32_t k = 0; k < in->shards; k++) {
            double f = (double)(p->cur[k].bytes + p->cur[k].lost) / (double)in->capacity;
            if (f > most) most = f;
        }
    }
    if (most <= 0) return 20000000u;
    if (most >= 0.125) return 0;
    double ns = (double)took * (0.125 - most) / most;
    return ns < 1e7 ? (uint64_t)ns : 10000000u;
}

/* Count one interval: follow every file as nap_ns says, scan every 250 ms. */
static bool one_interval(top_state *t, uint64_t start) {
    uint64_t end = start + t->o->interval_ns, last_scan = start, began = start;
    for (;;) {
        uint64_t polled = cli_now_ns(), took = polled - began;
        began = polled;
        if (!poll_all(t)) return false;
        uint64_t now = cli_now_ns();
        if (cli_stop || now >= end) return true;
        if (t->o->scan && now - last_scan >= 250000000u) {
            if (!scan_dir(t, false)) return false;
            last_scan = now;
        }
        uint64_t next = now + nap_ns(t, took ? took : 1);
        sleep_until(next < end ? next : end);
        if (cli_stop) return true;
    }
}

static int screen_rows(void) {
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 1) return ws.ws_row - 1;
    return 0;
}

static bool render(top_state *t, uint64_t iteration, uint64_t elapsed) {
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    for (size_t i = 0; i < t->nprocs; i++)
        if (t->procs[i].ring) t->procs[i].live = bb_ring_liveness(t->procs[i].ring);
    top_view v = {t->procs,
                  t->nprocs,
                  iteration,
                  elapsed,
                  (uint64_t)wall.tv_sec * 1000000000u + (uint64_t)wall.tv_nsec,
                  t->o->shards,
                  t->o->jsonl,
                  t->o->screen ? screen_rows() : 0};
    if (t->o->screen) em_obuf_puts(&t->out, "\033[H\033[2J");
    cli_top_render(&t->out, &v);
    if (em_obuf_flush(&t->out) == 0) return true;
    if (t->out.failed != EPIPE) cli_error("cannot write the output: %s", strerror(t->out.failed));
    return false;
}

static int run(top_state *t) {
    uint64_t start = cli_now_ns();
    for (uint64_t it = 1; !t->o->iterations || it <= t->o->iterations; it++) {
        if (!one_interval(t, start)) return CLI_FAIL;
        if (cli_stop) break;
        uint64_t now = cli_now_ns();
        if (!render(t, it, now - start))
            return t->out.failed == EPIPE && !(t->file_failed || t->skipped) ? CLI_OK : CLI_FAIL;
        reset_counts(t);
        prune(t);
        start = now;
    }
    return t->file_failed || t->skipped ? CLI_FAIL : CLI_OK;
}

static bool state_init(top_state *t, const top_opts *o) {
    memset(t, 0, sizeof *t);
    t->o = o;
    if (!em_obuf_init(&t->out, STDOUT_FILENO, 1 << 16)) return false;
    if (o->scan) return scan_dir(t, true);
    for (size_t i = 0; i < o->npaths; i++)
        if (!add_proc(t, o->paths[i], false, true)) return false;
    return true;
}

static void state_free(top_state *t) {
    for (size_t i = 0; i < t->nprocs; i++) proc_free(&t->procs[i]);
    free(t->procs);
    em_obuf_finish(&t->out);
}

/* ---- the command ---------------------------------------------------------------------------- */

static int parse_count(const char *what, const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
    if (!cli_parse_u64(s, false, out) || *out < lo || *out > hi)
        return cli_usage_error("top", "%s takes a number from %llu to %llu: '%s'", what,
                               (unsigned long long)lo, (unsigned long long)hi, s);
    return CLI_OK;
}

static int parse_opt(top_opts *o, int c, char **argv) {
    uint64_t v;
    switch (c) {
    case 's': o->scan = optarg; return CLI_OK;
    case 'S': o->shards = true; return CLI_OK;
    case '1': o->iterations = 1; return CLI_OK;
    case 'I':
        if (parse_count("--interval", optarg, 10, 3600000, &v)) return CLI_USAGE;
        o->interval_ns = v * 1000000u;
        return CLI_OK;
    case 'n': return parse_count("--iterations", optarg, 1, UINT32_MAX, &o->iterations);
    case 'F':
        if (strcmp(optarg, "text") && strcmp(optarg, "jsonl"))
            return cli_usage_error("top", "--format is text or jsonl: '%s'", optarg);
        o->jsonl = !strcmp(optarg, "jsonl");
        return CLI_OK;
    case 'h': fputs(top_help, stdout); return -1;
    default: return cli_option_error("top", c, argv);
    }
}

/* Parse the options into *o; CLI_OK, or the exit status of a usage error / --help (-1). */
static int parse(int argc, char **argv, top_opts *o) {
    static const struct option opts[] = {{"scan", required_argument, NULL, 's'},
                                         {"interval", required_argument, NULL, 'I'},
                                         {"shards", no_argument, NULL, 'S'},
                                         {"once", no_argument, NULL, '1'},
                                         {"iterations", required_argument, NULL, 'n'},
                                         {"format", required_argument, NULL, 'F'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->interval_ns = 1000000000u;
    optind = 1;
    opterr = 0;
    int c, st;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1)
        if ((st = parse_opt(o, c, argv)) != CLI_OK) return st;
    o->paths = &argv[optind];
    o->npaths = (size_t)(argc - optind);
    if (o->scan && o->npaths) return cli_usage_error("top", "--scan takes only a directory");
    if (!o->scan && !o->npaths) return cli_usage_error("top", "no ring file given (or --scan DIR)");
    o->screen = !o->jsonl && !o->iterations && isatty(STDOUT_FILENO);
    return CLI_OK;
}

/* `backbeat top`: see top_help. */
int cmd_top(int argc, char **argv) {
    top_opts o;
    int st = parse(argc, argv, &o);
    if (st != CLI_OK) return st < 0 ? CLI_OK : st;
    cli_catch_stop();
    top_state t;
    st = state_init(&t, &o) ? run(&t) : CLI_FAIL;
    state_free(&t);
    return st;
}
