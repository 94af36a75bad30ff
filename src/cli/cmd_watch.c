/* watch.c — `backbeat watch`: condition triggers from outside, with no daemon. Follows ring
 * files read-only (bb_ring_follow_records, backbeat/ring_reader.h), evaluates the --when rules
 * (trigger/rule.h, cli/watch_rules.c) on every record committed and on spans still open, and
 * when one fires waits the after-window, then writes that process's rings as a dump into the
 * output directory (as recover does) with the backbeat::Trigger record of the firing (the
 * rule, the matching record, the after-window: what an in-process triggered dump carries), and
 * prints one line: the rule, the process, the matching
 * record, the file. Firings of a process while its dump is pending, or within a second of its
 * previous dump, are counted, not dumped. A process that exits (its ring file's lock free, as
 * tail --follow sees it) is read to the end and said ended; watch ends when all of them have. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "backbeat/reader.h"
#include "backbeat/ring_reader.h"
#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/ring_scan.h"
#include "cli/watch_rules.h"
#include "trigger/rule.h"
#include "trigger/trigger_event.h"

static const char watch_help[] =
    "usage: backbeat watch --when RULE [--when RULE]... [--after DURATION] [-o DIR] [--max N]\n"
    "                      (RINGFILE... | --scan DIR)\n"
    "\n"
    "Follow ring files (BACKBEAT_RING_DIR) read-only and, when a rule fires, write a dump of\n"
    "that process's rings into DIR after the after-window, printing one line per dump: the rule,\n"
    "the process, the matching record, the file. Rules (as BACKBEAT_TRIGGER), ';' separated:\n"
    "  span NS::Name > DURATION   a span that lasted longer, or is still open that long\n"
    "  NS::Name                   any record of that event\n"
    "  NS::Name FIELD OP VALUE    OP: == != < <= > >=; a number, an enum label or a \"string\"\n"
    "  log OP LEVEL               a log line whose level compares so (log >= error)\n"
    "Each dump holds a backbeat::Trigger record of what fired it (inspect shows it).\n"
    "Firings while a process's dump is pending or within 1 s of its last are counted only.\n"
    "When a watched process exits, its rings are read to the end (a pending dump is written\n"
    "then) and stderr says it ended; watch exits 0 once every RINGFILE's process has ended\n"
    "(with --scan it goes on, for new ring files).\n"
    "When the writers lap watch, stderr says how many bytes of which ring were lost (records\n"
    "the rules did not see).\n"
    "\n"
    "options:\n"
    "  --when RULE      a rule (repeatable; a bad one: exit 2)\n"
    "  --after DURATION keep following that long after a firing before the dump (250us, 50ms,\n"
    "                   2s; default 0)\n"
    "  -o, --output DIR where dumps go: DIR/watch.<pid>.<instance>.<n>.bb (default .)\n"
    "  --max N          exit 0 after N dumps (default: until SIGINT)\n"
    "  --scan DIR       follow every ring file of DIR, new ones included\n"
    "  -h, --help       show this help\n";

typedef struct watch_opts {
    tg_rule rules[TG_MAX_RULES];
    size_t nrules;
    uint64_t after_ns;
    const char *dir, *scan;
    uint64_t max;
    char **paths;
    size_t npaths;
} watch_opts;

typedef struct source {
    char *path;
    bb_ring *ring;
    bb_ring_cursor *cur;
    cli_watch_rules *rules;
    uint64_t *from; /* each ring's cursor before the last follow call (its losses) */
    bool pending;
    cli_firing firing;
    uint64_t due_ns, counted;
    uint64_t fired_at;     /* CLOCK_REALTIME of the firing: the backbeat::Trigger record's ts */
    uint64_t last_dump_ns; /* monotonic; 0: none yet */
    unsigned n;
    bool ended; /* its process is gone and its rings were read to the end (ring closed) */
} source;

/* A record of one poll that a rule looks at, held until the poll's records are handed to the
 * rules in time order (rings come one after the other, and a span's exit seen before its enter
 * would leave the span open: a "hung" firing for a span that lasted 5 ms). Its field bytes
 * stay in the follow call's buffer until the next call: only the place is held. */
typedef struct held {
    cli_watch_rec r;
    uint64_t pos;
} held;

typedef struct walk_ctx {
    cli_watch_rules *rules; /* of the source walked */
    const bb_rschema *last; /* the schema of the last record looked at, and */
    bool last_wanted;       /* whether a rule looks at it (records no rule looks at are
                             * not held: most of a busy process's, usually) */
    held *v;
    size_t n, cap;
    bool failed;
} walk_ctx;

typedef struct watch_state {
    const watch_opts *o;
    source *src;
    size_t nsrc, cap;
    uint64_t dumps;
    walk_ctx keep; /* the arrays of a poll, kept for the next (fresh pages every poll, each a
                    * fault, were most of a busy follower's time: issue 37) */
} watch_state;

static uint64_t clock_ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The pages of [p, p + n) faulted in (written) with one system call, not a fault a page, then
 * written once: a poll that read a lap holds ~500 000 records (20 MiB), and 5 000 faults of
 * ~10 us each on a VM would make it lose the next lap (issue 37). On a VM the first write of a
 * page costs ~5 us even after MADV_POPULATE_WRITE (the hypervisor fills its own tables on
 * access): polls that met the writer's first storm with the array only populated ran 4x slower
 * than later ones, and lost a lap. */
static void prefault(void *p, size_t n) {
#ifdef MADV_POPULATE_WRITE
    uintptr_t page = 4096, a = ((uintptr_t)p + page - 1) & ~(page - 1), e = (uintptr_t)p + n;
    if (e > a + page) (void)madvise((void *)a, (e - a) & ~(page - 1), MADV_POPULATE_WRITE);
#endif
    memset(p, 0, n);
}

/* *p (of *cap elements of `size` bytes) reallocated to c elements, the new ones faulted in
 * when `fault` (a large array), else left to fault a page at a time. */
static bool resize(void **p, size_t *cap, size_t c, size_t size, bool fault) {
    void *g = realloc(*p, c * size);
    if (!g) return false;
    if (fault) prefault((char *)g + *cap * size, (c - *cap) * size);
    *p = g;
    *cap = c;
    return true;
}

static bool grow(void **p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return true;
    size_t c = *cap ? *cap * 4 : 1024;
    while (c < need) c *= 2;
    return resize(p, cap, c, size, c * size >= ((size_t)1 << 20));
}

/* The held array sized, and its pages faulted in, for a lap of a ring of `capacity` bytes
 * before the first poll: grown during the first busy polls, after the writer starts, it made
 * them lose the next laps (35 MB lost in the first 50 ms at 20 M records/s; issue 37). A lap
 * holds at most a record per WATCH_MIN_FRAME bytes; the array is shared by every source, so
 * it costs one lap of the largest ring (40 bytes a record: ~28 MB for 16 MiB rings). */
#define WATCH_MIN_FRAME 24
static bool presize(walk_ctx *c, uint64_t capacity) {
    uint64_t want = capacity / WATCH_MIN_FRAME;
    if (want > ((size_t)1 << 26)) want = (size_t)1 << 26; /* 2.5 GiB: a bound, not a target */
    return want <= c->cap || resize((void **)&c->v, &c->cap, (size_t)want, sizeof *c->v, true);
}

static bool add_source(watch_state *w, const char *path, bool scanned) {
    for (size_t i = 0; i < w->nsrc; i++)
        if (!strcmp(w->src[i].path, path)) return true;
    if (w->nsrc == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 8;
        source *g = realloc(w->src, cap * sizeof *g);
        if (!g) return false;
        w->src = g;
        w->cap = cap;
    }
    source *s = &w->src[w->nsrc];
    memset(s, 0, sizeof *s);
    bb_error err;
    if (cli_ring_open_wait(path, 100, &s->ring, &err) != BB_OK) {
        cli_error("%s%s", scanned ? "skipped: " : "", err.message);
        return scanned;
    }
    uint32_t n = bb_ring_get_info(s->ring)->shards;
    s->path = strdup(path);
    s->cur = calloc(n, sizeof *s->cur);
    s->from = calloc(n, sizeof *s->from);
    s->rules = cli_watch_rules_new(w->o->rules, w->o->nrules);
    if (!s->path || !s->cur || !s->from || !s->rules) return false;
    for (uint32_t i = 0; i < n; i++) s->cur[i].pos = BB_RING_NOW;
    w->nsrc++;
    return presize(&w->keep, bb_ring_get_info(s->ring)->capacity);
}

static bool add_scanned(void *ctx, const char *path) { return add_source(ctx, path, true); }

/* Dumps of one process are at least this far apart (a storm fills no disk). */
#define WATCH_THROTTLE_NS 1000000000ull

/* A firing of source s: pending until its after-window is over; counted while pending or
 * within the throttle window of the previous dump. */
static void fired(watch_state *w, source *s, const cli_firing *f) {
    uint64_t now = clock_ns(CLOCK_MONOTONIC);
    if (s->pending || (s->last_dump_ns && now - s->last_dump_ns < WATCH_THROTTLE_NS)) {
        s->counted++;
        return;
    }
    s->pending = true;
    s->firing = *f;
    s->fired_at = clock_ns(CLOCK_REALTIME);
    s->due_ns = now + w->o->after_ns;
}

static int on_record(void *vctx, const bb_ring_record *r) {
    walk_ctx *c = vctx;
    if (r->schema != c->last) {
        c->last = r->schema;
        c->last_wanted = cli_watch_wants(c->rules, r->schema);
    }
    if (!c->last_wanted) return 0;
    if (!grow((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v)) {
        c->failed = true;
        return 1;
    }
    c->v[c->n++] = (held){{r->ts, r->schema, r->fields, r->shard}, r->pos};
    return 0;
}

/* Time order; within a timestamp, ring by ring, each ring's records by position. */
static int held_cmp(const void *a, const void *b) {
    const held *x = a, *y = b;
    if (x->r.ts != y->r.ts) return x->r.ts < y->r.ts ? -1 : 1;
    if (x->r.shard != y->r.shard) return x->r.shard < y->r.shard ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The records committed since the last poll, to the rules oldest first; then the spans still
 * open past their rule's duration at the time the rings were read. */
static bool poll_source(watch_state *w, source *s) {
    bb_error err;
    uint64_t now = clock_ns(CLOCK_REALTIME); /* no record committed later is in this poll */
    uint32_t nring = bb_ring_get_info(s->ring)->shards;
    for (uint32_t i = 0; i < nring; i++) s->from[i] = s->cur[i].pos;
    bool gone = bb_ring_liveness(s->ring) == BB_RING_GONE; /* then this poll reads the rest */
    walk_ctx c = w->keep; /* its array reused: emptied, capacity kept */
    c.n = 0;
    c.failed = false;
    c.rules = s->rules;
    c.last = NULL;
    if (bb_ring_follow_records(s->ring, s->cur, on_record, &c, &err) != BB_OK) {
        w->keep = c;
        cli_error("%s", err.message);
        return false;
    }
    for (uint32_t i = 0; i < nring; i++) { /* a lap lost: the rules did not see it */
        uint64_t bytes;
        cli_ring_loss what = cli_ring_loss_of(s->from[i], &s->cur[i], &bytes);
        cli_ring_report_loss("watch", s->path, i, s->from[i], what, bytes);
    }
    bool sorted = true; /* one busy ring: in order already */
    for (size_t i = 1; !c.failed && sorted && i < c.n; i++)
        sorted = held_cmp(&c.v[i - 1], &c.v[i]) <= 0;
    if (!c.failed && !sorted) qsort(c.v, c.n, sizeof *c.v, held_cmp); /* never qsort(NULL, 0) */
    cli_firing f;
    for (size_t i = 0; !c.failed && i < c.n; i++)
        if (cli_watch_record(s->rules, &c.v[i].r, s->ring, &f)) fired(w, s, &f);
    w->keep = c;
    if (c.failed) {
        cli_error("%s: out of memory", s->path);
        return false;
    }
    while (cli_watch_hung(s->rules, now, &f)) fired(w, s, &f);
    s->ended = gone;
    return true;
}

/* The process's rings as a dump into fd, with the backbeat::Trigger record of the firing (as
 * the in-process recorder records it), so the dump says what fired it. */
static bb_status snapshot(watch_state *w, source *s, int fd, bb_error *err) {
    const cli_firing *f = &s->firing;
    tg_trigger_rec rec = {.ts = f->ts,
                          .span_id = f->span_id,
                          .after_ns = w->o->after_ns,
                          .duration_ns = f->duration_ns,
                          .shard = f->shard,
                          .hung = f->hung};
    const char *strings[16] = {NULL};
    strings[TG_TRIGGER_FIELD_RULE] = f->rule->text;
    strings[TG_TRIGGER_FIELD_EVENT] = f->event;
    bb_ring_extra x = {&tg_trigger_desc, s->fired_at, &rec, strings};
    return bb_ring_snapshot_extra_fd(s->ring, fd, &x, 1, NULL, err);
}

/* The after-window is over: the process's rings as a dump, and its line. */
static bool write_dump(watch_state *w, source *s) {
    const bb_ring_info *in = bb_ring_get_info(s->ring);
    char path[4096];
    int fd = -1;
    for (int k = 0; k < 1000 && fd < 0; k++) {
        snprintf(path, sizeof path, "%s/watch.%llu.%016llx.%u.bb", w->o->dir,
                 (unsigned long long)in->pid, (unsigned long long)in->instance_id, ++s->n);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) break;
    }
    bb_error err;
    if (fd < 0 || snapshot(w, s, fd, &err) != BB_OK || close(fd) != 0) {
        cli_error("%s: %s", path, fd < 0 ? strerror(errno) : err.message);
        if (fd >= 0) unlink(path);
        return false;
    }
    const cli_firing *f = &s->firing;
    printf("%s\tpid %llu\t%s ts=%llu shard=%u span=%llx%s%s\t%s\n", f->rule->text,
           (unsigned long long)in->pid, f->event, (unsigned long long)f->ts, f->shard,
           (unsigned long long)f->span_id, f->hung ? " (still open)" : "",
           s->counted ? " (more firings counted)" : "", path);
    fflush(stdout);
    s->pending = false;
    s->counted = 0;
    s->last_dump_ns = clock_ns(CLOCK_MONOTONIC);
    w->dumps++;
    return true;
}

/* Source s's process is gone and its rings were read: say so, let its file go (a --scan keeps
 * its path, so that a file left behind is not watched again). */
static void end_source(source *s) {
    cli_error("watch: %s: process %llu ended; its rings were read to the end", s->path,
              (unsigned long long)bb_ring_get_info(s->ring)->pid);
    bb_ring_close(s->ring);
    s->ring = NULL;
}

/* Whether a source's last poll found its busiest ring moved an eighth of its capacity or more
 * (bytes read plus lost): its writer laps the ring in a few naps, so the next poll comes at
 * once (a 5 ms nap after every poll lost records at 20 M records/s; issue 37). */
static bool behind(const source *s) {
    if (!s->ring || s->ended) return false;
    const bb_ring_info *in = bb_ring_get_info(s->ring);
    for (uint32_t k = 0; k < in->shards; k++)
        if ((s->cur[k].bytes + s->cur[k].lost) * 8 >= in->capacity) return true;
    return false;
}

static int run(watch_state *w) {
    uint64_t next_scan = 0;
    while (!cli_stop) {
        uint64_t now = clock_ns(CLOCK_MONOTONIC);
        if (w->o->scan && now >= next_scan) {
            if (!cli_ring_scan(w->o->scan, add_scanned, w)) return CLI_FAIL;
            next_scan = now + 200000000u;
        }
        size_t live = 0;
        bool busy = false;
        for (size_t i = 0; i < w->nsrc; i++) {
            source *s = &w->src[i];
            if (s->ended) continue;
            if (!poll_source(w, s)) return CLI_FAIL;
            busy |= behind(s);
            /* a process gone records nothing more: its after-window is over */
            if (s->pending && (s->ended || clock_ns(CLOCK_MONOTONIC) >= s->due_ns) &&
                !write_dump(w, s))
                return CLI_FAIL;
            if (w->o->max && w->dumps >= w->o->max) return CLI_OK;
            if (s->ended) end_source(s);
            else live++;
        }
        if (!w->o->scan && !live) return CLI_OK; /* every watched process ended */
        if (!busy) nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
    return CLI_OK;
}

static int add_rules(watch_opts *o, const char *text) {
    size_t n;
    char msg[320];
    if (!tg_parse(text, o->rules + o->nrules, TG_MAX_RULES - o->nrules, &n, msg, sizeof msg))
        return cli_usage_error("watch", "--when: %s", msg);
    o->nrules += n;
    return CLI_OK;
}

static int parse(int argc, char **argv, watch_opts *o) {
    static const struct option opts[] = {{"when", required_argument, NULL, 'w'},
                                         {"after", required_argument, NULL, 'a'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"max", required_argument, NULL, 'm'},
                                         {"scan", required_argument, NULL, 's'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->dir = ".";
    optind = 1;
    opterr = 0;
    int c, st;
    while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'w':
            if ((st = add_rules(o, optarg)) != CLI_OK) return st;
            break;
        case 'a':
            if (!tg_parse_duration(optarg, &o->after_ns))
                return cli_usage_error("watch", "--after takes a duration (250us, 50ms, 2s): %s",
                                       optarg);
            break;
        case 'o': o->dir = optarg; break;
        case 'm':
            if (!cli_parse_u64(optarg, false, &o->max) || !o->max)
                return cli_usage_error("watch", "--max takes a positive count: %s", optarg);
            break;
        case 's': o->scan = optarg; break;
        case 'h': fputs(watch_help, stdout); return -1;
        default: return cli_option_error("watch", c, argv);
        }
    }
    o->paths = &argv[optind];
    o->npaths = (size_t)(argc - optind);
    if (!o->nrules) return cli_usage_error("watch", "no --when rule given");
    if (o->scan && o->npaths) return cli_usage_error("watch", "--scan takes only a directory");
    if (!o->scan && !o->npaths) return cli_usage_error("watch", "no ring file given");
    return CLI_OK;
}

/* `backbeat watch`: see watch_help. */
int cmd_watch(int argc, char **argv) {
    static watch_opts o;
    int st = parse(argc, argv, &o);
    if (st != CLI_OK) return st < 0 ? CLI_OK : st;
    cli_catch_stop();
    watch_state w = {&o, NULL, 0, 0, 0, {0}};
    st = CLI_OK;
    for (size_t i = 0; i < o.npaths && st == CLI_OK; i++)
        if (!add_source(&w, o.paths[i], false)) st = CLI_FAIL;
    if (st == CLI_OK) st = run(&w);
    for (size_t i = 0; i < w.nsrc; i++) {
        bb_ring_close(w.src[i].ring);
        free(w.src[i].cur);
        free(w.src[i].from);
        free(w.src[i].path);
        cli_watch_rules_free(w.src[i].rules);
    }
    free(w.src);
    free(w.keep.v);
    return st;
}
