/* cmd_convert.c — `backbeat convert DUMP... -o OUT` and `... --dataset DIR`: the options read
 * into a conversion request (convert/convert.h), one library call (cv_convert, or
 * cv_dataset_append), its warnings, progress and failure printed. The stage does the rest:
 * opening the inputs (ring files recovered), the record filters, the output written aside and
 * renamed into place with its OUT.views.sql for Parquet, the dataset's lock and transaction.
 */
/* SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "convert/convert.h"
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
    "      --compression C        Parquet page codec: %s\n"
    "      --compression-level N  zstd level for Parquet (default 3; gzip: 1..9)\n"
    "      --threads N            threads that walk the inputs' rings and encode (default:\n"
    "                             the online CPUs; a trace encodes on 1 on 2 CPUs or\n"
    "                             fewer; 1: no threads);\n"
    "                             the output is the same byte for byte whatever N\n"
    "      --symbols DIR          crash stacks (the table's crash view, the trace's crash\n"
    "                             instant): look for module files there first (unstripped\n"
    "                             copies, BUILDID.debug, .build-id/xx/yyyy.debug, NAME.debug)\n"
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

/* What the command line asks for. */
typedef struct conv {
    cv_request rq; /* inputs, filters, --host, codec, level, --threads */
    const char *out;
    cv_dataset ds;               /* --dataset DIR, --partition-by, --no-rewrite */
    bool codec_given, fmt_given; /* --compression, --format */
    cv_format fmt;
    const char **events; /* --event patterns */
    uint64_t *inst;      /* --instance ids */
} conv;

#define CONV_GO (-1) /* an option phase's "carry on" (else: the exit status) */

static int conv_format(conv *c, const char *arg) {
    c->fmt_given = true;
    if (!strcmp(arg, "parquet")) c->fmt = CV_PARQUET;
    else if (!strcmp(arg, "trace") || !strcmp(arg, "json")) c->fmt = CV_TRACE;
    else if (!strcmp(arg, "ctf")) c->fmt = CV_CTF;
    else
        return cli_usage_error("convert", "unknown output format '%s' (use parquet, trace or ctf)",
                               arg);
    return CONV_GO;
}

/* convert_help with the codec list of this build: a codec it was built without is not offered
 * (the static release binaries have no snappy). */
static void put_convert_help(void) {
    char list[64] = "zstd (default)";
    for (pq_codec k = PQ_CODEC_SNAPPY; k <= PQ_CODEC_NONE; k++)
        if (pq_codec_available(k))
            snprintf(list + strlen(list), sizeof list - strlen(list), ", %s", pq_codec_name(k));
    printf(convert_help, list);
}

/* --compression: a codec this build has. */
static int conv_codec(conv *c, const char *arg) {
    pq_codec codec;
    if (!pq_codec_parse(arg, &codec))
        return cli_usage_error("convert",
                               "unknown --compression '%s' (use zstd, snappy, gzip or none)", arg);
    c->rq.codec = (int)codec;
    if (!pq_codec_available(codec))
        return cli_usage_error("convert",
                               "--compression %s: this backbeat was built without it "
                               "(%s missing at build time)",
                               arg, codec == PQ_CODEC_SNAPPY ? "libsnappy" : "zlib");
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
    cv_filter_spec *f = &c->rq.filter;
    bb_error err;
    switch (opt) {
    case 'o': c->out = optarg; return CONV_GO;
    case 'f': return conv_format(c, optarg);
    case 'H': c->rq.host = optarg; return CONV_GO;
    case 'S': c->rq.symbols = optarg; return CONV_GO;
    case 'c':
        if (cli_parse_int(optarg, -131072, 22, &c->rq.level)) return CONV_GO;
        return cli_usage_error(
            "convert", "--compression-level needs a zstd level (up to 22), got '%s'", optarg);
    case 'C': c->codec_given = true; return conv_codec(c, optarg);
    case 'T':
        if (cli_parse_int(optarg, 1, 256, &c->rq.threads)) return CONV_GO;
        return cli_usage_error(
            "convert", "--threads needs a number of threads from 1 to 256, got '%s'", optarg);
    case 'D': c->ds.dir = optarg; return CONV_GO;
    case 'R': c->ds.no_rewrite = true; return CONV_GO;
    case 'P':
        c->ds.spec_given = true;
        return ds_parse_spec(optarg, &c->ds.spec, &err)
                   ? CONV_GO
                   : cli_usage_error("convert", "%s", err.message);
    case 's': return conv_time(optarg, "--since", &f->since_set, &f->since, &f->since_rel);
    case 'u': return conv_time(optarg, "--until", &f->until_set, &f->until, &f->until_rel);
    case 'e': c->events[f->nevents++] = optarg; return CONV_GO;
    case 'i':
        if (!cli_parse_hex64(optarg, &c->inst[f->ninst]))
            return cli_usage_error("convert", "bad --instance '%s' (up to 16 hex digits)", optarg);
        f->ninst++;
        return CONV_GO;
    case 'h': put_convert_help(); return CLI_OK;
    default: return cli_option_error("convert", opt, argv);
    }
}

/* After the options: the inputs, the output, its format (else from its extension). */
static int conv_operands(conv *c, int argc, char **argv) {
    c->rq.inputs = &argv[optind];
    c->rq.ninputs = (size_t)(argc - optind);
    if (!c->rq.ninputs) return cli_usage_error("convert", "no dump given");
    if (c->ds.spec_given && !c->ds.dir)
        return cli_usage_error("convert", "--partition-by needs --dataset DIR");
    if (c->ds.no_rewrite && !c->ds.dir)
        return cli_usage_error("convert", "--no-rewrite needs --dataset DIR");
    if (c->ds.dir) {
        if (!c->ds.dir[0] || !strcmp(c->ds.dir, "-"))
            return cli_usage_error("convert", "--dataset needs a directory, got '%s'", c->ds.dir);
        if (c->out) return cli_usage_error("convert", "give -o OUT or --dataset DIR, not both");
        if (c->fmt_given && c->fmt != CV_PARQUET)
            return cli_usage_error("convert", "a dataset is Parquet only");
        return CONV_GO;
    }
    if (!c->out) return cli_usage_error("convert", "no output given (-o OUT)");
    if (cli_out_is_input(c->out, c->rq.inputs, c->rq.ninputs)) return CLI_FAIL;
    if (!c->fmt_given && !strcmp(c->out, "-"))
        return cli_usage_error("convert", "--format is required with -o -");
    if (!c->fmt_given && !cv_format_of_path(c->out, &c->fmt))
        return cli_usage_error(
            "convert", "unknown output format for %s (use .parquet, .json or DIR/, or --format)",
            c->out);
    if (c->fmt != CV_PARQUET && c->codec_given)
        return cli_usage_error("convert", "--compression applies to Parquet output only");
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
                                         {"symbols", required_argument, NULL, 'S'},
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

/* The one call (-o OUT: with progress on the terminal meanwhile). */
static int conv_run(conv *c) {
    cli_progress prog;
    cli_progress_init(&prog, "convert");
    c->rq.progress = c->ds.dir ? NULL : cli_progress_update;
    c->rq.progress_ctx = &prog;
    cv_dataset_report rep;
    bb_error err;
    bool ok = c->ds.dir ? cv_dataset_append(&c->rq, &c->ds, &rep, &err)
                        : cv_convert(&c->rq, c->fmt, c->out, &err);
    if (!c->ds.dir) cli_progress_done(&prog);
    if (!ok) cli_error("%s", err.message);
    return ok ? CLI_OK : CLI_FAIL;
}

/* `backbeat convert`: see convert_help. */
int cmd_convert(int argc, char **argv) {
    conv c = {.rq = {.level = 3}};
    c.rq.warn = cli_warn;
    ds_parse_spec("host,date", &c.ds.spec, NULL);
    c.rq.filter.events = c.events = calloc((size_t)argc + 1, sizeof *c.events);
    c.rq.filter.inst = c.inst = calloc((size_t)argc + 1, sizeof *c.inst);
    int st = CLI_FAIL;
    if (!c.events || !c.inst) cli_error("out of memory");
    else if ((st = conv_options(&c, argc, argv)) == CONV_GO) st = conv_run(&c);
    free(c.inst);
    free(c.events);
    return st;
}
