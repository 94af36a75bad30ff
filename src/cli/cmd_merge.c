/* merge.c — `backbeat merge DUMP... -o OUT.bb`: combine dumps into one multi-instance dump.
 *
 * The options and the messages; the re-encoding itself is the conversion stage's
 * (merge/merge.h, whose file comment describes the method).
 */
/* SPDX-License-Identifier: MIT */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "merge/merge.h"

static const char merge_help[] =
    "usage: backbeat merge DUMP... -o OUT.bb [--no-dedup]\n"
    "\n"
    "Combine dumps (of one or several processes) into one multi-instance dump.\n"
    "\n"
    "  -o, --output OUT.bb  the merged dump (a file; written to a temporary name, then renamed)\n"
    "      --no-dedup       splice the inputs' sections verbatim (registries unioned) instead of\n"
    "                       decoding, dropping duplicate records and re-packing each shard\n"
    "  -h, --help           show this help\n"
    "\n"
    "Converting the merged dump gives the same rows as converting its inputs together.\n";

/* ------------------------------------------------------------------ growable byte buffer */

/* `backbeat merge`: see merge_help. */
int cmd_merge(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"no-dedup", no_argument, NULL, 'n'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *out = NULL;
    bool dedup = true;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'n': dedup = false; break;
        case 'h': fputs(merge_help, stdout); return CLI_OK;
        default: return cli_option_error("merge", c, argv);
        }
    }
    size_t nd = (size_t)(argc - optind);
    if (!nd) return cli_usage_error("merge", "no dump given");
    if (!out) return cli_usage_error("merge", "no output given (-o OUT.bb)");
    if (!strcmp(out, "-"))
        return cli_usage_error("merge", "merge writes a file; -o - is not supported");
    size_t on = strlen(out);
    if (on < 4 || strcmp(out + on - 3, ".bb") || out[on - 4] == '/')
        return cli_usage_error("merge",
                               "the output '%s' does not end in .bb: merge writes a .bb dump "
                               "(convert writes Parquet and traces)",
                               out);
    if (cli_out_is_input(out, &argv[optind], nd)) return CLI_FAIL;
    bb_dump **dumps;
    if (!cli_open_dumps(&argv[optind], nd, &dumps)) return CLI_FAIL;
    cli_progress prog;
    cli_progress_init(&prog, "merge");
    mg_opts o = {.dedup = dedup,
                 .warn = cli_warn,
                 .progress = cli_progress_update,
                 .progress_ctx = &prog,
                 .dump_memory = cli_dump_memory};
    bb_error err;
    bool ok = mg_merge(dumps, nd, &argv[optind], out, &o, &err);
    cli_progress_done(&prog);
    if (!ok) cli_error("%s", err.message);
    cli_close_dumps(dumps, nd);
    return ok ? CLI_OK : CLI_FAIL;
}
