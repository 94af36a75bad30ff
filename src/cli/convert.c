/* convert.c — `backbeat convert DUMP... -o OUT`: options, record filters, opening the inputs as
 * one model, and the output discipline around the writers (convert.h).
 *
 * The output goes to a temporary name renamed into place only after the writer succeeded (or to
 * stdout for "-o -"). For Parquet output to a file, OUT.views.sql is written next to it: a line
 * binding the base view `events` to the Parquet file by absolute path, then the query DDL of
 * parquet_views_ddl(). (No sidecar for stdout or a device such as /dev/null.)
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/convert/writers.h"
#include "cli/u64map.h"

static const char convert_help[] =
    "usage: backbeat convert DUMP... -o OUT [options]\n"
    "\n"
    "Convert one or more dumps into one output, records in global time order, duplicates\n"
    "(overlapping successive dumps of one process) removed.\n"
    "\n"
    "output:\n"
    "  -o, --output OUT           output file; '-' for stdout (then --format is required)\n"
    "  -f, --format FMT           parquet | trace (default: from OUT's extension,\n"
    "                             .parquet -> parquet, .json -> trace)\n"
    "      --host NAME            override the host label of every instance\n"
    "      --compression-level N  zstd level for Parquet (default 3)\n"
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
    "Parquet output to a file also writes OUT.views.sql: load it in DuckDB with\n"
    "  duckdb -cmd \".read OUT.views.sql\"   (the `events` view, one view per event type,\n"
    "  backbeat_keys, and the dumps' own view sets).\n"
    "A trace (.json) opens in https://ui.perfetto.dev and chrome://tracing.\n"
    "\n"
    "  -h, --help                 show this help\n";

enum fmt { FMT_NONE, FMT_PARQUET, FMT_TRACE };

typedef struct filt {
    bool since_set, until_set;
    uint64_t since, until;
    bool by_event;
    u64map events; /* kept event ids */
    size_t ninst;
    uint64_t *inst;
} filt;

static bool filt_keep(const bb_mrecord *r, void *ctx) {
    const filt *f = ctx;
    if (f->since_set && r->rec.ts < f->since) return false;
    if (f->until_set && r->rec.ts > f->until) return false;
    if (f->by_event && !u64map_get(&f->events, r->rec.event_id)) return false;
    if (f->ninst) {
        size_t i = 0;
        while (i < f->ninst && f->inst[i] != r->rec.instance_id) i++;
        if (i == f->ninst) return false;
    }
    return true;
}

static bool ends_with(const char *s, const char *suf) {
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && !strcasecmp(s + n - k, suf);
}

/* The absolute path `path` will have: realpath of its directory + its base name. */
static char *absolute_path(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    if (!dir) return NULL;
    char *rdir = realpath(dir, NULL);
    free(dir);
    if (!rdir) return NULL;
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(rdir) + strlen(base) + 2;
    char *out = malloc(n);
    if (out) snprintf(out, n, "%s%s%s", rdir, strcmp(rdir, "/") ? "/" : "", base);
    free(rdir);
    return out;
}

/* Write the sidecar text (binding line + DDL) into a cli_out. */
static bool write_sidecar(cli_out *o, const char *sidecar, const char *parquet_abs,
                          const char *ddl) {
    cli_buf b;
    if (!cli_buf_init(&b, o->fd, 1 << 16)) {
        cli_error("cannot write %s: out of memory", sidecar);
        return false;
    }
    cli_buf_puts(&b, "-- backbeat query views; load with: duckdb -cmd \".read <this file>\"\n");
    cli_buf_puts(&b, "CREATE OR REPLACE VIEW events AS SELECT * FROM read_parquet('");
    for (const char *p = parquet_abs; *p; p++) {
        if (*p == '\'') cli_buf_putc(&b, '\'');
        cli_buf_putc(&b, *p);
    }
    cli_buf_puts(&b, "');\n");
    cli_buf_puts(&b, ddl);
    int err = cli_buf_finish(&b);
    if (err) {
        cli_error("cannot write %s: %s", sidecar, strerror(err));
        return false;
    }
    return true;
}

/* `backbeat convert`: see convert_help. */
int cmd_convert(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"format", required_argument, NULL, 'f'},
                                         {"host", required_argument, NULL, 'H'},
                                         {"compression-level", required_argument, NULL, 'c'},
                                         {"since", required_argument, NULL, 's'},
                                         {"until", required_argument, NULL, 'u'},
                                         {"event", required_argument, NULL, 'e'},
                                         {"instance", required_argument, NULL, 'i'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *out = NULL, *host = NULL;
    enum fmt fmt = FMT_NONE;
    int level = 3;
    const char *since_s = NULL, *until_s = NULL;
    uint64_t since = 0, until = 0;
    bool since_rel = false, until_rel = false;
    const char **events = calloc((size_t)argc + 1, sizeof *events);
    size_t nevents = 0;
    filt f;
    memset(&f, 0, sizeof f);
    u64map_init(&f.events);
    f.inst = calloc((size_t)argc + 1, sizeof *f.inst);
    int status = CLI_FAIL;
    bb_dump **dumps = NULL;
    size_t ndumps = 0;
    bb_model *model = NULL;
    char *ddl = NULL, *sidecar = NULL, *abs = NULL;
    if (!events || !f.inst) {
        cli_error("out of memory");
        goto done;
    }

    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":ho:f:", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'f':
            if (!strcmp(optarg, "parquet")) fmt = FMT_PARQUET;
            else if (!strcmp(optarg, "trace") || !strcmp(optarg, "json")) fmt = FMT_TRACE;
            else {
                status = cli_usage_error("convert", "unknown output format '%s' (use parquet or "
                                                    "trace)", optarg);
                goto done;
            }
            break;
        case 'H': host = optarg; break;
        case 'c':
            if (!cli_parse_int(optarg, -131072, 22, &level)) {
                status = cli_usage_error("convert", "--compression-level needs a zstd level "
                                                    "(up to 22), got '%s'", optarg);
                goto done;
            }
            break;
        case 's':
            since_s = optarg;
            if (!cli_parse_time(optarg, &since, &since_rel)) {
                status = cli_usage_error("convert", "bad --since '%s' (nanoseconds, or +1.5s, "
                                                    "+200ms, +10us, +5ns)", optarg);
                goto done;
            }
            break;
        case 'u':
            until_s = optarg;
            if (!cli_parse_time(optarg, &until, &until_rel)) {
                status = cli_usage_error("convert", "bad --until '%s' (nanoseconds, or +1.5s, "
                                                    "+200ms, +10us, +5ns)", optarg);
                goto done;
            }
            break;
        case 'e': events[nevents++] = optarg; break;
        case 'i':
            if (!cli_parse_hex64(optarg, &f.inst[f.ninst])) {
                status = cli_usage_error("convert", "bad --instance '%s' (up to 16 hex digits)",
                                         optarg);
                goto done;
            }
            f.ninst++;
            break;
        case 'h':
            fputs(convert_help, stdout);
            status = CLI_OK;
            goto done;
        case ':':
            status = cli_usage_error("convert", "option '%s' needs a value", argv[optind - 1]);
            goto done;
        default:
            status = cli_usage_error("convert", "unknown option '%s'", argv[optind - 1]);
            goto done;
        }
    }
    ndumps = (size_t)(argc - optind);
    if (!ndumps) {
        status = cli_usage_error("convert", "no dump given");
        goto done;
    }
    if (!out) {
        status = cli_usage_error("convert", "no output given (-o OUT)");
        goto done;
    }
    if (fmt == FMT_NONE) {
        if (!strcmp(out, "-")) {
            status = cli_usage_error("convert", "--format is required with -o -");
            goto done;
        }
        if (ends_with(out, ".parquet")) fmt = FMT_PARQUET;
        else if (ends_with(out, ".json")) fmt = FMT_TRACE;
        else {
            status = cli_usage_error("convert", "unknown output format for %s (use .parquet or "
                                                ".json, or --format)", out);
            goto done;
        }
    }
    (void)since_s;
    (void)until_s;

    if (!cli_open_dumps(&argv[optind], ndumps, &dumps)) {
        ndumps = 0;
        goto done;
    }
    bb_error err;
    memset(&err, 0, sizeof err);
    if (bb_model_open(dumps, ndumps, true, &model, &err) != BB_OK) {
        cli_error("%s", err.message[0] ? err.message : bb_strerror(err.status));
        goto done;
    }

    /* Filters. */
    if (since_rel || until_rel) {
        uint64_t first = 0;
        bb_model_iter *it;
        if (bb_model_iter_new(model, &it) != BB_OK) {
            cli_error("out of memory");
            goto done;
        }
        bb_mrecord r;
        if (bb_model_next(it, &r)) first = r.rec.ts;
        bb_model_iter_free(it);
        /* saturate: a window reaching past the end of time keeps everything to the end */
        if (since_rel) since = since > UINT64_MAX - first ? UINT64_MAX : first + since;
        if (until_rel) until = until > UINT64_MAX - first ? UINT64_MAX : first + until;
    }
    f.since_set = since_s != NULL;
    f.since = since;
    f.until_set = until_s != NULL;
    f.until = until;
    if (nevents) {
        f.by_event = true;
        for (size_t k = 0; k < nevents; k++) {
            bool any = false;
            for (size_t i = 0; i < bb_model_schema_count(model); i++) {
                const bb_rschema *s = bb_model_schema(model, i);
                char *qn = strndup(s->name.ptr, s->name.len);
                const char *dn = bb_model_display_name(model, s->id);
                if (!qn) {
                    cli_error("out of memory");
                    goto done;
                }
                if (!fnmatch(events[k], qn, 0) || (dn && !fnmatch(events[k], dn, 0))) {
                    any = true;
                    if (!u64map_put(&f.events, s->id, (void *)1)) {
                        free(qn);
                        cli_error("out of memory");
                        goto done;
                    }
                }
                free(qn);
            }
            if (!any) cli_error("warning: --event '%s' matches no event in the inputs", events[k]);
        }
    }
    for (size_t k = 0; k < f.ninst; k++) {
        bool any = false;
        for (size_t i = 0; i < bb_model_instance_count(model); i++)
            if (bb_model_instance(model, i)->instance_id == f.inst[k]) any = true;
        if (!any)
            cli_error("warning: --instance %016llx is not in the inputs",
                      (unsigned long long)f.inst[k]);
    }
    bool filtering = f.since_set || f.until_set || f.by_event || f.ninst;

    cli_progress prog;
    cli_progress_init(&prog, "convert");
    convert_opts co = {
        .out_name = out,
        .host_override = host,
        .compression_level = level,
        .keep = filtering ? filt_keep : NULL,
        .keep_ctx = &f,
        .progress = cli_progress_update,
        .progress_ctx = &prog,
    };

    cli_out o, so;
    if (!cli_out_open(&o, out)) goto done;
    char errbuf[512] = "";
    int rc = fmt == FMT_PARQUET ? parquet_write(model, &co, o.fd, errbuf, sizeof errbuf)
                                : trace_write(model, &co, o.fd, errbuf, sizeof errbuf);
    cli_progress_done(&prog);
    if (rc) {
        cli_out_abort(&o);
        if (strstr(errbuf, out))
            cli_error("%s", errbuf[0] ? errbuf : "conversion failed");
        else
            cli_error("%s: %s", out, errbuf[0] ? errbuf : "conversion failed");
        goto done;
    }
    if (fmt == FMT_PARQUET && o.tmp) { /* a regular file: write its sidecar */
        size_t n = strlen(out) + sizeof ".views.sql";
        sidecar = malloc(n);
        ddl = parquet_views_ddl(model);
        abs = absolute_path(out);
        if (!sidecar || !ddl || !abs) {
            cli_out_abort(&o);
            cli_error("cannot write %s: %s", out, abs ? "out of memory" : strerror(errno));
            goto done;
        }
        snprintf(sidecar, n, "%s.views.sql", out);
        if (!cli_out_open(&so, sidecar)) {
            cli_out_abort(&o);
            goto done;
        }
        if (!write_sidecar(&so, sidecar, abs, ddl)) {
            cli_out_abort(&so);
            cli_out_abort(&o);
            goto done;
        }
        if (!cli_out_commit(&o)) {
            cli_out_abort(&so);
            goto done;
        }
        if (!cli_out_commit(&so)) {
            unlink(out); /* no Parquet without its sidecar */
            goto done;
        }
    } else if (!cli_out_commit(&o)) {
        goto done;
    }
    status = CLI_OK;

done:
    free(ddl);
    free(sidecar);
    free(abs);
    if (model) bb_model_close(model);
    cli_close_dumps(dumps, ndumps);
    u64map_free(&f.events);
    free(f.inst);
    free(events);
    return status;
}
