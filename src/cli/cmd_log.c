/* cmd_log.c — `backbeat log`: the log lines (BB_LOG, include/backbeat/log.h) of several dumps
 * and ring files, formatted (src/logfmt) and written in one time order, like one merged log
 * file. */
/* SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "logfmt/logfmt.h"

static const char log_help[] =
    "usage: backbeat log [-o OUT] [--level LEVEL] INPUT...\n"
    "\n"
    "Write the log lines (BB_LOG, BB_GLOG) of dumps and ring files, formatted as printf would\n"
    "have, in one time order: one line per record, \"<seconds>.<ns> [<host>/<instance>] <level>\n"
    "<file>:<line> <message>\" (the host and instance only when the inputs hold several).\n"
    "\n"
    "  -o, --output OUT     write to OUT instead of stdout ('-')\n"
    "      --level LEVEL    only lines at LEVEL or above (trace, debug, info, warn, error, fatal)\n"
    "  -h, --help           show this help\n";

/* Write the lines of an open model; false when the output failed. */
static bool write_lines(const bb_model *m, int min, em_obuf *b) {
    bb_model_iter *it = NULL;
    lf_cache *cache = lf_cache_new();
    bool several = bb_model_instance_count(m) > 1, ok = cache && bb_model_iter_new(m, &it) == BB_OK;
    char line[8192], who[96];
    bb_mrecord r;
    while (ok && bb_model_next(it, &r)) {
        const lf_site *s = lf_cache_get(cache, r.rec.schema);
        if (!s || s->level < min) continue;
        if (several)
            snprintf(who, sizeof who, "%.*s/%016llx",
                     (int)(r.instance->host.len < 64 ? r.instance->host.len : 64),
                     r.instance->host.ptr, (unsigned long long)r.instance->instance_id);
        size_t n =
            lf_line(s, r.rec.schema, &r.rec, r.instance, several ? who : NULL, line, sizeof line);
        em_obuf_write(b, line, n);
        em_obuf_putc(b, '\n');
    }
    if (!cache || !it) cli_error("out of memory");
    bb_model_iter_free(it);
    lf_cache_free(cache);
    return ok;
}

int cmd_log(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"level", required_argument, NULL, 'l'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *out = "-";
    int min = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'l':
            if (!lf_level_parse(optarg, &min))
                return cli_usage_error("log",
                                       "--level is trace, debug, info, warn, error or fatal");
            break;
        case 'h': fputs(log_help, stdout); return CLI_OK;
        default: return cli_option_error("log", c, argv);
        }
    }
    size_t n = (size_t)(argc - optind);
    if (!n) return cli_usage_error("log", "no input");
    if (cli_out_is_input(out, &argv[optind], n)) return CLI_FAIL;
    bb_dump **dumps = NULL;
    bb_model *m = NULL;
    bb_error err;
    if (!cli_open_dumps(&argv[optind], n, &dumps)) return CLI_FAIL;
    if (bb_model_open(dumps, n, true, &m, &err) != BB_OK) {
        cli_error("%s", err.message);
        cli_close_dumps(dumps, n);
        return CLI_FAIL;
    }
    cli_out o;
    em_obuf b;
    bool ok = cli_out_open(&o, out);
    if (ok && !em_obuf_init(&b, o.fd, 1 << 16)) {
        cli_error("out of memory");
        cli_out_abort(&o);
        ok = false;
    } else if (ok) {
        bool wrote = write_lines(m, min, &b);
        ok = em_obuf_finish(&b) == 0 && wrote;
        if (!ok) cli_error("cannot write %s", out);
        ok = ok ? cli_out_commit(&o) : (cli_out_abort(&o), false);
    }
    bb_model_close(m);
    cli_close_dumps(dumps, n);
    return ok ? CLI_OK : CLI_FAIL;
}
