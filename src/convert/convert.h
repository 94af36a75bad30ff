/* convert/convert.h — the conversion stage's API (src/convert/, the internal static library
 * bb_convert): what a caller (the `backbeat` CLI, tests, another program) uses to turn opened
 * dumps into Parquet, a trace, or a dataset append. The stage parses no command line and
 * prints nothing: it takes plain option structs, reports failures as bb_error values (or, for
 * the writers, a message buffer) and progress through a callback.
 *
 *   cv_convert_file      a model to one file (temporary renamed into place; Parquet's sidecar)
 *   cv_convert_dir       a model to a CTF trace directory (ctf/ctf.h), written aside, renamed
 *   tw_write, tr_write, parquet_table_*, tw_views_ddl   the writers themselves,
 *                        over an fd (emit/writers.h)
 *   ds_*                 the partitioned dataset (dataset/dataset.h)
 *   cv_merge_*           merge's re-encoding (merge/merge.h)
 *   em_out, em_write_file  output files written aside and renamed (emit/outfile.h)
 *   em_obuf                 the buffered writer and its JSON rendering (emit/obuf.h)
 *   em_cpu_count         the online CPU count the worker pool sizes by (emit/workpool.h)
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_CONVERT_H
#define BB_CONVERT_CONVERT_H

#include <stdbool.h>

#include "backbeat/error.h"
#include "backbeat/model.h"
#include "dataset/dataset.h"
#include "merge/merge.h"
#include "emit/obuf.h"
#include "emit/outfile.h"
#include "emit/workpool.h"
#include "emit/writers.h"

/* The output formats of cv_convert_file. */
typedef enum cv_format { CV_PARQUET, CV_TRACE, CV_CTF } cv_format;

/* Convert the model's records (opts->keep filters them) to `path` ("-": stdout) in format
 * `fmt`. The output is a temporary renamed into place on success, never a partial file that
 * looks complete; a Parquet file written to a regular file gets PATH.views.sql (the binding of
 * `events` to the file's absolute path, then tw_views_ddl), both or neither. False with a
 * message naming the file and the problem. */
bool cv_convert_file(const bb_model *model, cv_format fmt, const convert_opts *opts,
                     const char *path, bb_error *err);

/* A conversion to a directory (CV_CTF: a CTF 1.8 trace, ctf/ctf.h): written into a hidden
 * temporary directory beside `path` (trailing slashes ignored) and renamed into place on
 * success; an existing `path` is replaced only when it is an empty directory or a CTF trace
 * backbeat wrote. cv_convert_file calls it for CV_CTF. False with a message naming the
 * directory, and nothing left behind. */
bool cv_convert_dir(const bb_model *model, const convert_opts *opts, const char *path,
                    bb_error *err);

#endif /* BB_CONVERT_CONVERT_H */
