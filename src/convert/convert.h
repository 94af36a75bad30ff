/* convert/convert.h — the conversion stage's API (src/convert/, the internal static library
 * bb_convert): what a caller (the `backbeat` CLI, tests, another program) uses to turn dumps
 * into Parquet, a trace, or a dataset append. The stage parses no command line and prints
 * nothing: it takes plain option structs, reports failures as bb_error values, warnings and
 * progress through callbacks.
 *
 *   cv_convert           input paths to one output file: one call (open, filter, rank, write)
 *   cv_dataset_append    input paths appended to a dataset: one call (open it, settle its
 *                        partition keys, open the inputs with its schema dump, filter, rank,
 *                        append, commit)
 *   cv_convert_file      an opened model to one file (temporary renamed into place; Parquet's
 *                        sidecar)
 *   cv_convert_dir       an opened model to a CTF trace directory (ctf/ctf.h), written aside,
 *                        renamed
 *   cv_filter_*          the record filters (convert/filter.h)
 *   cv_inputs_*          the inputs opened as dumps, ring files recovered (convert/inputs.h)
 *   tw_write, tr_write, tw_table_*, tw_views_ddl   the writers themselves, over an fd
 *                        (emit/writers.h)
 *   ds_*                 the partitioned dataset (dataset/dataset.h)
 *   em_out, em_write_file  output files written aside and renamed (emit/outfile.h)
 *   em_obuf              the buffered writer and its JSON rendering (emit/obuf.h)
 *   em_cpu_count         the online CPU count the worker pool sizes by (emit/workpool.h)
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_CONVERT_H
#define BB_CONVERT_CONVERT_H

#include <stdbool.h>

#include "backbeat/error.h"
#include "backbeat/model.h"
#include "convert/filter.h"
#include "convert/inputs.h"
#include "dataset/dataset.h"
#include "emit/obuf.h"
#include "emit/outfile.h"
#include "emit/workpool.h"
#include "emit/writers.h"

/* The output formats of cv_convert_file. */
typedef enum cv_format { CV_PARQUET, CV_TRACE, CV_CTF } cv_format;

/* The format a path names: .parquet, .json (a trace), both case-insensitive, or a directory
 * (a trailing '/' or an existing directory: a CTF trace); false for any other. */
bool cv_format_of_path(const char *path, cv_format *fmt);

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

/* One conversion as `backbeat convert` runs it. */
typedef struct cv_request {
    char *const *inputs; /* dumps and ring files, opened as one de-duplicating model */
    size_t ninputs;
    cv_filter_spec filter;
    const char *host; /* every instance's host label, or NULL */
    int codec;        /* a pq_codec (parquet/codec.h), 0 = zstd */
    int level;        /* its level (zstd 3 is the CLI's default) */
    int threads;      /* threads that walk and encode; 0: the online CPUs (a trace on 2 CPUs or
                         fewer: 1); the output is the same whatever the count */
    cv_warn_fn warn;  /* warnings ("warning: ...") and notes, one message a call; may be NULL */
    void *warn_ctx;
    void (*progress)(uint64_t done, uint64_t total, void *ctx); /* may be NULL */
    void *progress_ctx;
    const char *symbols; /* crash stacks: a directory searched first for module files, or NULL */
} cv_request;

/* The inputs of `rq`, filtered, written to `out` in format `fmt` (as cv_convert_file); refused
 * ("cannot write OUT: it is the input IN") when `out`, or the sidecar a Parquet file gets, is
 * one of the inputs. False with a message naming the file and the problem. */
bool cv_convert(const cv_request *rq, cv_format fmt, const char *out, bb_error *err);

/* The dataset an append goes to (dataset/dataset.h). */
typedef struct cv_dataset {
    const char *dir;
    ds_spec spec;    /* the partition keys ... */
    bool spec_given; /* ... given by the caller (refused when they differ from the dataset's) */
    bool no_rewrite; /* a changed schema leaves the earlier parts as they are */
} cv_dataset;

/* What an append did besides adding parts: ds_report, and the dataset's absolute directory. */
typedef struct cv_dataset_report {
    ds_report ds;
    char dir[4096];
} cv_dataset_report;

/* The inputs of `rq` appended to the dataset `ds` (Parquet, records it holds skipped) under
 * its lock, committed as a whole; a dataset this call created is removed again on failure.
 * *rep is also told through rq->warn: "DIR: the schema changed: rewrote ..." when earlier
 * parts were rewritten, a warning when some could not be. False with a message naming the file
 * and the problem. */
bool cv_dataset_append(const cv_request *rq, const cv_dataset *ds, cv_dataset_report *rep,
                       bb_error *err);

#endif /* BB_CONVERT_CONVERT_H */
