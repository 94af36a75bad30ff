/* cli/messages.c — the `backbeat` tool's messages on stderr ("backbeat: ..."), usage errors and
 * their exit status (see cli_util.h). */
/* SPDX-License-Identifier: MIT */
#include "cli/cli_util.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>

void cli_error(const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "backbeat: %s\n", msg);
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "backbeat: %s\nTry 'backbeat %s%s--help'.\n", msg, cmd ? cmd : "",
            cmd ? " " : "");
    return CLI_USAGE;
}

int cli_option_error(const char *cmd, int c, char **argv) {
    if (c == ':') return cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
    return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
}

void cli_warn(const char *msg, void *ctx) {
    (void)ctx;
    cli_error("%s", msg);
}
