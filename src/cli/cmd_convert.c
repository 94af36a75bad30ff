/* convert.c — `backbeat convert DUMP... -o OUT`: options, record filters, opening the inputs as
 * one model, and the output discipline around the writers (emit/writers.h); with --dataset
 * DIR, the append to a partitioned dataset (dataset/dataset.h) under the dataset's lock.
 *
 * The output goes to a temporary name renamed into place only after the writer succeeded (or to
 * stdout for "-o -"). For Parquet output to a file, OUT.views.sql is written next to it: a line
 * binding the base view `events` to the Parquet file by absolute path, then the query DDL of
 * tw_views_ddl(). (No sidecar for stdout or a device such as /dev/null.)
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "convert/convert.h"
#include "emit/view_order.h"
#include "read/u64map.h"
#include "parquet/codec.h"

static const char convert_help[] =
    "usage: backbeat convert DUMP... -o OUT [options]\n"
    "       backbeat convert DUMP... --dataset DIR [--partition-by KEYS] [options]\n"
    "\n"
    "Convert one or more dumps into one output, records in global time order, duplicates\n"
    "(overlapping successive dumps of one process) removed.\n"
    "\n"
    "output:\n"
    "  -o, --output OUT           output file; '-' for stdout (then --format is required);\n"
    "                             a directory for ctf\n"
    "  -f, --format FMT           parquet | trace | ctf (default: from OUT: .parquet ->\n"
    "                             parquet, .json -> trace, DIR/ or a directory -> ctf)\n"
    "      --host NAME            override the host label of every instance\n"
    "      --compression C        Parquet page codec: zstd (default), snappy, gzip, none\n"
    "      --compression-level N  zstd level for Parquet (default 3; gzip: 1..9)\n"
    "      --threads N            threads that walk the inputs' rings and encode (default:\n"
    "                             the online CPUs; a trace encodes on 1 on 2 CPUs or\n"
    "                             fewer; 1: no threads);\n"
    "                             the output is the same byte for byte whatever N\n"
    "\n"
    "filters (a record is kept when it passes all of them):\n"
    "      --since T              keep records with ts >= T\n"
    "      --until T              keep records with ts <= T\n"
    "                             T: absolute nanoseconds, or relative to the first record:\n"
    "                             +1.5s, +200ms, +10us, +5ns\n"
    "      --event NAME           keep events whose qualified or display name matches NAME\n"
    "                             ('*' and '?' glob; repeatable)\n"
    "      --instance HEX         keep records of this instance id (repeatable)\n"
    "\n"
    "Parquet output to a file also writes OUT.views.sql (the `events` view, one view per event\n"
    "type, backbeat_keys, and the dumps' own view sets; OUT named relative to that file, so the\n"
    "pair can move together). Load it in DuckDB, DIR being the directory that holds them:\n"
    "  duckdb -cmd \"SET file_search_path = 'DIR'\" -cmd \".read DIR/OUT.views.sql\"\n"
    "A trace (.json) opens in https://ui.perfetto.dev and chrome://tracing.\n"
    "A CTF 1.8 trace (a directory: metadata + one stream file per instance and shard) opens\n"
    "in babeltrace2 and Trace Compass (docs/guide/read.md).\n"
    "\n"
    "dataset (instead of -o):\n"
    "      --dataset DIR          append to the Hive-partitioned Parquet dataset DIR:\n"
    "                             DIR/host=H/date=YYYY-MM-DD/part-INSTANCE-N.parquet, records\n"
    "                             already in DIR skipped, every part with the dataset's union\n"
    "                             schema, DIR/views.sql over all parts (see docs/PARQUET_TABLE.md)\n"
    "      --partition-by KEYS    partition keys, in order (default host,date): any of host,\n"
    "                             date, event, instance, comma-separated; fixed by the\n"
    "                             dataset's first append\n"
    "      --no-rewrite           when the append changes the dataset's schema, leave the\n"
    "                             earlier parts as they are (default: re-convert them from\n"
    "                             their kept sources, so every part has one schema);\n"
    "                             views.sql then reads with union_by_name\n"
    "\n"
    "  -h, --help                 show this help\n";

enum fmt { FMT_NONE, FMT_PARQUET, FMT_TRACE, FMT_CTF };

typedef struct filt {
    bool since_set, until_set;
    uint64_t since, until;
    bool by_event;
    bb__u64map events; /* kept event ids */
    size_t ninst;
    uint64_t *inst;
} filt;

static bool filt_keep(const bb_mrecord *r, void *ctx) {
    const filt *f = ctx;
    if (f->since_set && r->rec.ts < f->since) return false;
    if (f->until_set && r->rec.ts > f->until) return false;
    if (f->by_event && !bb__u64map_get(&f->events, r->rec.event_id)) return false;
    if (f->ninst) {
        size_t i = 0;
        while (i < f->ninst && f->inst[i] != r->rec.instance_id) i++;
        if (i == f->ninst) return false;
    }
    return true;
}

/* An existing directory (through symlinks): `-o DIR` of a CTF trace. */
static bool cli_is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool ends_with(const char *s, const char *suf) {
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && !strcasecmp(s + n - k, suf);
}

/* What the command line asks for; the filter is filled in as the options are read. */
typedef struct conv {
    const char *out, *host;
    const char *dataset; /* --dataset DIR */
    ds_spec parts;       /* --partition-by */
    bool parts_given;
    bool codec_given; /* --compression */
    bool no_rewrite;  /* --no-rewrite */
    enum fmt fmt;
    int level;
    int threads; /* --threads, 0 = the online CPU count */
    pq_codec codec;
    bool since_rel, until_rel; /* --since / --until relative to the first record */
    const char **events;       /* --event patterns */
    size_t nevents;
    filt f;
    char **inputs; /* the dumps' paths */
    size_t ninputs;
    uint64_t *view_rank; /* per bb_model_view (emit/view_order.h) */
} conv;

#define CONV_GO (-1) /* an option phase's "carry on" (else: the exit status) */

static int conv_format(conv *c, const char *arg) {
    if (!strcmp(arg, "parquet")) c->fmt = FMT_PARQUET;
    else if (!strcmp(arg, "trace") || !strcmp(arg, "json")) c->fmt = FMT_TRACE;
    else if (!strcmp(arg, "ctf")) c->fmt = FMT_CTF;
    else
        return cli_usage_error("convert", "unknown output format '%s' (use parquet, trace or ctf)",
                               arg);
    return CONV_GO;
}

/* convert_help with the codec list of this build: a codec it was built without is not offered
 * (the static release binaries have no snappy). */
static void put_convert_help(void) {
    static const char list[] = "zstd (default), snappy, gzip, none\n";
    const char *at = strstr(convert_help, list);
    if (!at) {
        fputs(convert_help, stdout);
        return;
    }
    fwrite(convert_help, 1, (size_t)(at - convert_help), stdout);
    fputs("zstd (default)", stdout);
    for (pq_codec c = PQ_CODEC_SNAPPY; c <= PQ_CODEC_NONE; c++)
        if (pq_codec_available(c)) printf(", %s", pq_codec_name(c));
    fputs("\n", stdout);
    fputs(at + strlen(list), stdout);
}

/* --compression: a codec this build has. */
static int conv_codec(conv *c, const char *arg) {
    if (!pq_codec_parse(arg, &c->codec))
        return cli_usage_error("convert",
                               "unknown --compression '%s' (use zstd, snappy, gzip or "
                               "none)",
                               arg);
    if (!pq_codec_available(c->codec))
        return cli_usage_error("convert",
                               "--compression %s: this backbeat was built without it "
                               "(%s missing at build time)",
                               arg, c->codec == PQ_CODEC_SNAPPY ? "libsnappy" : "zlib");
    return CONV_GO;
}

/* --since / --until (`name`) into *set, *ns and *relative. */
static int conv_time(const char *arg, const char *name, bool *set, uint64_t *ns, bool *relative) {
    *set = true;
    if (cli_parse_time(arg, ns, relative)) return CONV_GO;
    return cli_usage_error("convert", "bad %s '%s' (nanoseconds, or +1.5s, +200ms, +10us, +5ns)",
                           name, arg);
}

/* One option (getopt_long's `opt`, its value in optarg). */
static int conv_option(conv *c, int opt, char **argv) {
    bb_error err;
    switch (opt) {
    case 'o': c->out = optarg; return CONV_GO;
    case 'f': return conv_format(c, optarg);
    case 'H': c->host = optarg; return CONV_GO;
    case 'c':
        if (cli_parse_int(optarg, -131072, 22, &c->level)) return CONV_GO;
        return cli_usage_error("convert",
                               "--compression-level needs a zstd level (up to 22), "
                               "got '%s'",
                               optarg);
    case 'C': c->codec_given = true; return conv_codec(c, optarg);
    case 'T':
        if (cli_parse_int(optarg, 1, 256, &c->threads)) return CONV_GO;
        return cli_usage_error("convert",
                               "--threads needs a number of threads from 1 to 256, "
                               "got '%s'",
                               optarg);
    case 'D': c->dataset = optarg; return CONV_GO;
    case 'R': c->no_rewrite = true; return CONV_GO;
    case 'P':
        c->parts_given = true;
        return ds_parse_spec(optarg, &c->parts, &err)
                   ? CONV_GO
                   : cli_usage_error("convert", "%s", err.message);
    case 's': return conv_time(optarg, "--since", &c->f.since_set, &c->f.since, &c->since_rel);
    case 'u': return conv_time(optarg, "--until", &c->f.until_set, &c->f.until, &c->until_rel);
    case 'e': c->events[c->nevents++] = optarg; return CONV_GO;
    case 'i':
        if (!cli_parse_hex64(optarg, &c->f.inst[c->f.ninst]))
            return cli_usage_error("convert", "bad --instance '%s' (up to 16 hex digits)", optarg);
        c->f.ninst++;
        return CONV_GO;
    case 'h': put_convert_help(); return CLI_OK;
    default: return cli_option_error("convert", opt, argv);
    }
}

/* Whether OUT.views.sql, which a Parquet output to a file also writes, is one of the inputs
 * (the error is printed). */
static bool sidecar_is_input(const conv *c) {
    size_t n = strlen(c->out) + sizeof ".views.sql";
    char *sidecar = malloc(n);
    if (!sidecar) return false; /* the write itself reports the lack of memory */
    snprintf(sidecar, n, "%s.views.sql", c->out);
    bool is = cli_out_is_input(sidecar, c->inputs, c->ninputs);
    free(sidecar);
    return is;
}

/* After the options: the inputs, the output, and its format (from its extension if not
 * given). */
static int conv_operands(conv *c, int argc, char **argv) {
    c->inputs = &argv[optind];
    c->ninputs = (size_t)(argc - optind);
    if (!c->ninputs) return cli_usage_error("convert", "no dump given");
    if (c->parts_given && !c->dataset)
        return cli_usage_error("convert", "--partition-by needs --dataset DIR");
    if (c->no_rewrite && !c->dataset)
        return cli_usage_error("convert", "--no-rewrite needs --dataset DIR");
    if (c->dataset) {
        if (!c->dataset[0] || !strcmp(c->dataset, "-"))
            return cli_usage_error("convert", "--dataset needs a directory, got '%s'", c->dataset);
        if (c->out) return cli_usage_error("convert", "give -o OUT or --dataset DIR, not both");
        if (c->fmt == FMT_TRACE || c->fmt == FMT_CTF)
            return cli_usage_error("convert", "a dataset is Parquet only");
        c->fmt = FMT_PARQUET;
        return CONV_GO;
    }
    if (!c->out) return cli_usage_error("convert", "no output given (-o OUT)");
    if (cli_out_is_input(c->out, c->inputs, c->ninputs)) return CLI_FAIL;
    if (c->fmt == FMT_NONE) {
        if (!strcmp(c->out, "-"))
            return cli_usage_error("convert", "--format is required with -o -");
        if (ends_with(c->out, ".parquet")) c->fmt = FMT_PARQUET;
        else if (ends_with(c->out, ".json")) c->fmt = FMT_TRACE;
        else if (ends_with(c->out, "/") || cli_is_dir(c->out)) c->fmt = FMT_CTF;
        else
            return cli_usage_error("convert",
                                   "unknown output format for %s (use .parquet, "
                                   ".json or DIR/, or --format)",
                                   c->out);
    }
    if (c->fmt != FMT_PARQUET && c->codec_given)
        return cli_usage_error("convert", "--compression applies to Parquet output only");
    if (c->fmt == FMT_PARQUET && strcmp(c->out, "-") && sidecar_is_input(c)) return CLI_FAIL;
    return CONV_GO;
}

/* Options: see convert_help. */
static int conv_options(conv *c, int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"host", required_argument, NULL, 'H'},
                                         {"compression-level", required_argument, NULL, 'c'},
                                         {"compression", required_argument, NULL, 'C'},
                                         {"threads", required_argument, NULL, 'T'},
                                         {"dataset", required_argument, NULL, 'D'},
                                         {"partition-by", required_argument, NULL, 'P'},
                                         {"no-rewrite", no_argument, NULL, 'R'},
                                         {"since", required_argument, NULL, 's'},
                                         {"until", required_argument, NULL, 'u'},
                                         {"event", required_argument, NULL, 'e'},
                                         {"instance", required_argument, NULL, 'i'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, ":ho:f:", opts, NULL)) != -1) {
        int st = conv_option(c, opt, argv);
        if (st != CONV_GO) return st;
    }
    return conv_operands(c, argc, argv);
}

/* Relative --since / --until from the first record's timestamp; saturating, so a window
 * reaching past the end of time keeps everything to the end. */
static bool resolve_relative(conv *c, const bb_model *model) {
    if (!c->since_rel && !c->until_rel) return true;
    uint64_t first = 0;
    bb_model_iter *it;
    if (bb_model_iter_new(model, &it) != BB_OK) {
        cli_error("out of memory");
        return false;
    }
    bb_mrecord r;
    if (bb_model_next(it, &r)) first = r.rec.ts;
    bb_model_iter_free(it);
    filt *f = &c->f;
    if (c->since_rel) f->since = f->since > UINT64_MAX - first ? UINT64_MAX : first + f->since;
    if (c->until_rel) f->until = f->until > UINT64_MAX - first ? UINT64_MAX : first + f->until;
    return true;
}

/* Keep schema s when its qualified or display name matches `pat` (setting *any); false when
 * out of memory. */
static bool match_event(filt *f, const bb_model *model, const bb_rschema *s, const char *pat,
                        bool *any) {
    char *qn = strndup(s->name.ptr, s->name.len);
    const char *dn = bb_model_display_name(model, s->id);
    if (!qn) return false;
    bool ok = true;
    if (!fnmatch(pat, qn, 0) || (dn && !fnmatch(pat, dn, 0))) {
        *any = true;
        ok = bb__u64map_put(&f->events, s->id, (void *)1);
    }
    free(qn);
    return ok;
}

/* --event: the ids of the events some pattern matches (a warning for a pattern none does). */
static bool select_events(conv *c, const bb_model *model) {
    if (!c->nevents) return true;
    c->f.by_event = true;
    for (size_t k = 0; k < c->nevents; k++) {
        bool any = false;
        for (size_t i = 0; i < bb_model_schema_count(model); i++)
            if (!match_event(&c->f, model, bb_model_schema(model, i), c->events[k], &any)) {
                cli_error("out of memory");
                return false;
            }
        if (!any) cli_error("warning: --event '%s' matches no event in the inputs", c->events[k]);
    }
    return true;
}

/* --instance: a warning for an id no input has. */
static void check_instances(const filt *f, const bb_model *model) {
    for (size_t k = 0; k < f->ninst; k++) {
        bool any = false;
        for (size_t i = 0; i < bb_model_instance_count(model); i++)
            if (bb_model_instance(model, i)->instance_id == f->inst[k]) any = true;
        if (!any)
            cli_error("warning: --instance %016llx is not in the inputs",
                      (unsigned long long)f->inst[k]);
    }
}

/* Filters: the time window made absolute, the selected events, the instances checked. */
static bool conv_filters(conv *c, const bb_model *model) {
    if (!resolve_relative(c, model) || !select_events(c, model)) return false;
    check_instances(&c->f, model);
    return true;
}

/* --threads, or the online CPU count; a trace on a host of 2 CPUs or fewer defaults to 1: its
 * workers only render fields while one thread walks, merges and assembles, and the hand-over
 * cost more than it saved there (10 M records: 7.1 M records/s with 1 thread, 4.6 with 2;
 * docs/PERFORMANCE.md). The output is the same whatever the count. */
static unsigned conv_threads(const conv *c) {
    if (c->threads > 0) return (unsigned)c->threads;
    unsigned cpus = em_cpu_count();
    return c->fmt == FMT_TRACE && cpus <= 2 ? 1 : cpus;
}

/* Threads that walk the rings when the inputs are opened: --threads, or the online CPUs (the
 * walk hands nothing over, so it pays on any host). */
static unsigned conv_walk_threads(const conv *c) {
    return c->threads > 0 ? (unsigned)c->threads : em_cpu_count();
}

/* The options as the writers take them. */
static convert_opts conv_opts(conv *c) {
    const filt *f = &c->f;
    bool filtering = f->since_set || f->until_set || f->by_event || f->ninst;
    convert_opts co = {.out_name = c->out ? c->out : c->dataset,
                       .host_override = c->host,
                       .compression_level = c->level,
                       .codec = (int)c->codec,
                       .threads = conv_threads(c),
                       .keep = filtering ? filt_keep : NULL,
                       .keep_ctx = &c->f,
                       .view_rank = c->view_rank};
    return co;
}

/* Output discipline (convert/convert.h): the stage writes a temporary and commits it, with the
 * Parquet sidecar, only when it succeeded; progress on the terminal meanwhile. */
static int conv_write(conv *c, const bb_model *model) {
    cli_progress prog;
    cli_progress_init(&prog, "convert");
    convert_opts co = conv_opts(c);
    co.progress = cli_progress_update;
    co.progress_ctx = &prog;
    bb_error err;
    cv_format fmt = c->fmt == FMT_PARQUET ? CV_PARQUET : c->fmt == FMT_CTF ? CV_CTF : CV_TRACE;
    bool ok = cv_convert_file(model, fmt, &co, c->out, &err);
    cli_progress_done(&prog);
    if (!ok) cli_error("%s", err.message);
    return ok ? CLI_OK : CLI_FAIL;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The filters as the dataset's manifest keeps them (times absolute, ids sorted); false when
 * out of memory. */
static bool conv_shape(conv *c, const bb_model *model, ds_shape *s) {
    const filt *f = &c->f;
    *s = (ds_shape){.since_set = f->since_set,
                    .until_set = f->until_set,
                    .by_event = f->by_event,
                    .since = f->since,
                    .until = f->until,
                    .ninst = f->ninst};
    size_t ns = bb_model_schema_count(model);
    s->events = calloc(ns ? ns : 1, sizeof *s->events);
    s->inst = calloc(f->ninst ? f->ninst : 1, sizeof *s->inst);
    if (!s->events || !s->inst) return false;
    for (size_t i = 0; f->by_event && i < ns; i++) {
        uint64_t id = bb_model_schema(model, i)->id;
        if (bb__u64map_get(&f->events, id)) s->events[s->nevents++] = id;
    }
    memcpy(s->inst, f->inst, f->ninst * sizeof *s->inst);
    qsort(s->events, s->nevents, sizeof *s->events, cmp_u64);
    qsort(s->inst, s->ninst, sizeof *s->inst, cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < s->ninst; i++)
        if (!k || s->inst[k - 1] != s->inst[i]) s->inst[k++] = s->inst[i];
    s->ninst = k;
    return true;
}

/* The append of the opened inputs (dumps[skip..n): the inputs; the dataset's schema dump
 * before them), with its report. */
static int conv_append(conv *c, ds_handle *h, const bb_model *model, bb_dump **dumps, size_t skip,
                       size_t n) {
    ds_shape shape;
    ds_input *in = calloc(n, sizeof *in);
    bb_error err;
    int st = CLI_FAIL;
    if (!in || !conv_shape(c, model, &shape)) {
        cli_error("out of memory");
    } else {
        for (size_t i = skip; i < n; i++) {
            in[i - skip].path = c->inputs[i - skip];
            in[i - skip].mem = cli_dump_memory(dumps[i], &in[i - skip].len);
        }
        convert_opts co = conv_opts(c);
        ds_append_args a = {.model = model,
                            .opts = &co,
                            .spec = &c->parts,
                            .shape = &shape,
                            .inputs = in,
                            .ninputs = n - skip,
                            .no_rewrite = c->no_rewrite};
        ds_report rep;
        st = ds_append(h, &a, &rep, &err) == 0 ? CLI_OK : CLI_FAIL;
        if (st != CLI_OK) cli_error("%s", err.message);
        if (st == CLI_OK && rep.appends)
            cli_error("%s: the schema changed: rewrote %zu parts of %zu earlier appends, %llu "
                      "bytes, in %.2f s",
                      h->dir, rep.parts, rep.appends, (unsigned long long)rep.bytes, rep.seconds);
        if (st == CLI_OK && rep.legacy_mixed)
            cli_error("warning: %s: the schema changed and parts written before backbeat kept "
                      "sources cannot be rewritten: read the dataset with union_by_name "
                      "(views.sql does)",
                      h->dir);
    }
    if (in) {
        free(shape.events);
        free(shape.inst);
    }
    free(in);
    return st;
}

/* The rank of every view set of the inputs (emit/view_order.h): the dumps' newest record
 * times; with the schema dump first (`schema`), its sets' ranks as the dataset keeps them.
 * One input outside a dataset (h NULL) gives all its sets one rank, which orders them as any
 * other would (by rank, then input order) and is written nowhere: they stay 0, and its
 * records are not walked for their newest time. False after a message. */
static bool conv_ranks(conv *c, const ds_handle *h, bb_dump **dumps, size_t n, bool schema) {
    size_t nv = 0;
    for (size_t i = 0; i < n; i++) nv += bb_dump_view_count(dumps[i]);
    c->view_rank = calloc(nv ? nv : 1, sizeof *c->view_rank);
    if (!c->view_rank) {
        cli_error("out of memory");
        return false;
    }
    if (h || n > 1) em_view_ranks(dumps, n, c->view_rank);
    bb_error err;
    if (schema && !ds_schema_ranks(h, dumps[0], c->view_rank, &err)) {
        cli_error("%s", err.message);
        return false;
    }
    return true;
}

/* --dataset: under the dataset's lock, the inputs and the dataset's schema dump as one model,
 * appended. */
static int conv_dataset(conv *c) {
    ds_handle h;
    bb_error err;
    if (!ds_open(&h, c->dataset, &err)) {
        cli_error("%s", err.message);
        return CLI_FAIL;
    }
    char *schema = NULL;
    if (!ds_settle_spec(&h, &c->parts, c->parts_given, &err) ||
        !ds_schema_dump(&h, &schema, &err)) {
        cli_error("%s", err.message);
        ds_close(&h, true);
        return CLI_FAIL;
    }
    char **inputs = calloc(c->ninputs + 1, sizeof *inputs);
    int st = CLI_FAIL;
    bb_dump **dumps = NULL;
    bb_model *model = NULL;
    size_t skip = schema != NULL, n = c->ninputs + skip;
    if (!inputs) {
        cli_error("out of memory");
    } else {
        /* The schema dump first (its view sets before the inputs' among equal ranks); the sets
         * then go by rank, so the newest data's definitions win (emit/view_order.h). */
        if (schema) inputs[0] = schema;
        memcpy(inputs + skip, c->inputs, c->ninputs * sizeof *inputs);
        if (cli_open_dumps(inputs, n, &dumps)) {
            if (cli_open_model(dumps, n, conv_walk_threads(c), &model) && conv_filters(c, model) &&
                conv_ranks(c, &h, dumps, n, skip))
                st = conv_append(c, &h, model, dumps, skip, n);
            if (model) bb_model_close(model);
            cli_close_dumps(dumps, n);
        }
    }
    free(inputs);
    free(schema);
    ds_close(&h, st != CLI_OK);
    return st;
}

/* Options, inputs (one de-duplicating model), filters, then the output. */
static int conv_run(conv *c, int argc, char **argv) {
    int st = conv_options(c, argc, argv);
    if (st != CONV_GO) return st;
    if (c->dataset) return conv_dataset(c);
    bb_dump **dumps;
    if (!cli_open_dumps(c->inputs, c->ninputs, &dumps)) return CLI_FAIL;
    bb_model *model = NULL;
    st = CLI_FAIL;
    if (cli_open_model(dumps, c->ninputs, conv_walk_threads(c), &model) && conv_filters(c, model) &&
        conv_ranks(c, NULL, dumps, c->ninputs, false))
        st = conv_write(c, model);
    if (model) bb_model_close(model);
    cli_close_dumps(dumps, c->ninputs);
    return st;
}

/* `backbeat convert`: see convert_help. */
int cmd_convert(int argc, char **argv) {
    conv c;
    memset(&c, 0, sizeof c);
    c.level = 3;
    ds_parse_spec("host,date", &c.parts, NULL);
    bb__u64map_init(&c.f.events);
    c.events = calloc((size_t)argc + 1, sizeof *c.events);
    c.f.inst = calloc((size_t)argc + 1, sizeof *c.f.inst);
    int status = CLI_FAIL;
    if (!c.events || !c.f.inst) cli_error("out of memory");
    else status = conv_run(&c, argc, argv);
    bb__u64map_free(&c.f.events);
    free(c.view_rank);
    free(c.f.inst);
    free(c.events);
    return status;
}
