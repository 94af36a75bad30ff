/* cli/output.c — the `backbeat` tool's output files: the stage's temp-and-rename files
 * (emit/outfile.h) with their failures printed, and the refusal to overwrite an input (see
 * cli_util.h). */
/* SPDX-License-Identifier: MIT */
#include "cli/cli_util.h"

#include <string.h>
#include <sys/stat.h>

bool cli_out_is_input(const char *out, char *const *inputs, size_t n) {
    struct stat so, si;
    if (!out || !strcmp(out, "-") || stat(out, &so) != 0) return false;
    for (size_t i = 0; i < n; i++)
        if (stat(inputs[i], &si) == 0 && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
            cli_error("cannot write %s: it is the input %s", out, inputs[i]);
            return true;
        }
    return false;
}

bool cli_out_open(cli_out *o, const char *path) {
    bb_error err;
    if (em_out_open(o, path, &err)) return true;
    cli_error("%s", err.message);
    return false;
}

bool cli_out_commit(cli_out *o) {
    bb_error err;
    if (em_out_commit(o, &err)) return true;
    cli_error("%s", err.message);
    return false;
}

void cli_out_abort(cli_out *o) { em_out_abort(o); }

bool cli_write_file(const char *path, const void *data, size_t len, bool sync) {
    bb_error err;
    if (em_write_file(path, data, len, sync, &err)) return true;
    cli_error("%s", err.message);
    return false;
}
