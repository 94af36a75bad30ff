/* main.c — entry point of the `backbeat` tool: dispatches to a subcommand, prints the top-level
 * help and the version. Exit status: 0 success, 1 failure, 2 usage error. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "backbeat/version.h"
#include "cli/cli_util.h"
#include "cli/commands.h"

static const char top_help[] =
    "usage: backbeat <command> [options]\n"
    "\n"
    "Read backbeat flight-recorder dumps (.bb).\n"
    "\n"
    "commands:\n"
    "  inspect DUMP...            show a dump's envelope, registry, instances, views and shards\n"
    "  convert DUMP... -o OUT     convert to Parquet (.parquet) or a Perfetto/Chrome trace (.json)\n"
    "  merge DUMP... -o OUT.bb    combine dumps into one multi-instance dump\n"
    "  recover FILE... -o OUT.bb  turn ring files of dead processes into a dump (--scan DIR)\n"
    "  log INPUT...               the log lines of dumps and ring files, in one time order\n"
    "  tail RINGFILE...           print the records of running processes' ring files (--follow)\n"
    "  top [--scan DIR]           records per second, losses and ring fill of running processes\n"
    "  watch --when RULE RINGFILE...  dump a process's rings when a rule fires (--scan DIR)\n"
    "  skill                      print a Markdown guide to the tool and its output\n"
    "\n"
    "options:\n"
    "  -h, --help                 show this help (or 'backbeat <command> --help')\n"
    "  -V, --version              show the version\n"
    "\n"
    "Exit status: 0 success, 1 failure, 2 usage error.\n";

/* Run the subcommand named by argv[1]. */
/* glibc's malloc returns freed memory at the top of the heap to the kernel past 128 KiB and
 * serves blocks over its (adaptive) mmap threshold with fresh mappings, so the converters'
 * per-row-group buffers are faulted in again for every row group: ~8 % of a Parquet conversion's
 * CPU time. Keep up to 256 MiB of freed heap (never more than the peak in use). */
static void tune_malloc(void) {
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_TOP_PAD, 16 << 20);
#endif
}

int main(int argc, char **argv) {
    tune_malloc();
    if (argc < 2) {
        fputs(top_help, stderr);
        return CLI_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        if (!strcmp(cmd, "help") && argc > 2) {
            char *sub[] = {argv[2], "--help", NULL};
            if (!strcmp(argv[2], "inspect")) return cmd_inspect(2, sub);
            if (!strcmp(argv[2], "convert")) return cmd_convert(2, sub);
            if (!strcmp(argv[2], "merge")) return cmd_merge(2, sub);
            if (!strcmp(argv[2], "skill")) return cmd_skill(2, sub);
            if (!strcmp(argv[2], "recover")) return cmd_recover(2, sub);
            if (!strcmp(argv[2], "tail")) return cmd_tail(2, sub);
            if (!strcmp(argv[2], "log")) return cmd_log(2, sub);
            if (!strcmp(argv[2], "top")) return cmd_top(2, sub);
            if (!strcmp(argv[2], "watch")) return cmd_watch(2, sub);
            return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
        }
        fputs(top_help, stdout);
        return CLI_OK;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("backbeat %s (dump format 1)\n", BB_VERSION_STRING);
        return CLI_OK;
    }
    if (!strcmp(cmd, "inspect")) return cmd_inspect(argc - 1, argv + 1);
    if (!strcmp(cmd, "convert")) return cmd_convert(argc - 1, argv + 1);
    if (!strcmp(cmd, "merge")) return cmd_merge(argc - 1, argv + 1);
    if (!strcmp(cmd, "skill")) return cmd_skill(argc - 1, argv + 1);
    if (!strcmp(cmd, "recover")) return cmd_recover(argc - 1, argv + 1);
    if (!strcmp(cmd, "tail")) return cmd_tail(argc - 1, argv + 1);
    if (!strcmp(cmd, "log")) return cmd_log(argc - 1, argv + 1);
    if (!strcmp(cmd, "top")) return cmd_top(argc - 1, argv + 1);
    if (!strcmp(cmd, "watch")) return cmd_watch(argc - 1, argv + 1);
    return cli_usage_error(NULL, "unknown command '%s'", cmd);
}
