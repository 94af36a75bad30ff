/* emit/outfile.h — output files of the conversion stage and of the CLI: written to a hidden
 * temporary in the destination's directory, renamed into place on commit, unlinked on abort
 * (or when SIGINT/SIGTERM/SIGHUP/SIGPIPE ends the process; SIGXFSZ is ignored so a file-size
 * limit fails the write instead). "-" means stdout, and an existing non-regular file (FIFO,
 * device) is written in place (nothing to rename); through a symlink, its target is replaced.
 * Failures fill a bb_error ("cannot write PATH: reason") and print nothing. Internal.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_OUTFILE_H
#define BB_CONVERT_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "backbeat/error.h"

typedef struct em_out {
    char *path; /* final name (NULL for stdout) */
    char *tmp;  /* temporary name (NULL for stdout) */
    int fd;
} em_out;

/* Open `path` for writing; false with the message set. */
bool em_out_open(em_out *o, const char *path, bb_error *err);
/* Close and rename into place; on failure the temporary is removed, false with the message. */
bool em_out_commit(em_out *o, bb_error *err);
/* Close and remove the temporary (no-op on stdout). */
void em_out_abort(em_out *o);
/* The whole file `path` is `len` bytes of `data`, written aside and renamed, fsync'ed first
 * when `sync`. On failure no file is left behind: false with the message set. */
bool em_write_file(const char *path, const void *data, size_t len, bool sync, bb_error *err);

#endif /* BB_CONVERT_OUTFILE_H */
