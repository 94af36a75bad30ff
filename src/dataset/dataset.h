/* dataset.h — `backbeat convert DUMP... --dataset DIR`: append dumps to a Hive-partitioned
 * Parquet dataset that DuckDB, Polars and Arrow read as one table.
 *
 *   DIR/host=<h>/date=<YYYY-MM-DD>/part-<instance 16 hex>-<n>.parquet   (keys: --partition-by)
 *   DIR/views.sql                  events over DIR/ **\/ *.parquet, then the views DDL
 *   DIR/_backbeat/schema.bb        the dataset schema: a dump holding only the union registry
 *                                  and view sets of everything appended so far
 *   DIR/_backbeat/view_ranks       each view set's rank (the newest data that carried it)
 *   DIR/_backbeat/index/<instance 16 hex>.keys   the duplicate keys already in the dataset
 *   DIR/_backbeat/partitioning     the partition keys, fixed by the first append
 *   DIR/_backbeat/sources/<key>.bb every append's input dumps; DIR/_backbeat/appends/<n> its
 *                                  manifest (dataset_manifest.c)
 *   DIR/_backbeat/lock             flock()ed by each appender for its whole run
 *
 * An append takes the lock (a second appender waits), opens the inputs plus the schema dump
 * as one model (so every part is written with the dataset's union schema, a superset of what
 * the dump itself holds), skips records whose duplicate key (FORMAT.md: ts_nanos, instance,
 * shard, offset) the index holds, writes each partition's records into a new part, the new
 * index files, the schema dump and views.sql as temporaries, then commits them as a whole
 * (dataset_txn.c: a journal, then renames). It also keeps its inputs (DIR/_backbeat/sources/)
 * and a manifest (DIR/_backbeat/appends/<n>); when the union's Parquet schema changes, the
 * earlier appends are re-converted from them in the same transaction (dataset_rewrite.c), so
 * every part has one schema.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_DATASET_H
#define BACKBEAT_CLI_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/error.h"
#include "backbeat/model.h"
#include "emit/writers.h"

/* Every function below that can fail fills a bb_error with a message naming the file and the
 * problem, and prints nothing; the caller reports it. The dataset files' failure setter: */
#define ds_err(err, ...) bb__err_set((err), BB_ERR_IO, UINT64_MAX, NULL, __VA_ARGS__)

/* Partition keys, in directory order. */
typedef enum ds_key { DS_HOST, DS_DATE, DS_EVENT, DS_INSTANCE } ds_key;
#define DS_MAX_KEYS 4

typedef struct ds_spec {
    ds_key keys[DS_MAX_KEYS];
    size_t nkeys;
} ds_spec;

/* Parse --partition-by ("host,date", any of host, date, event, instance, each once); false
 * with a usage message naming what is wrong. */
bool ds_parse_spec(const char *text, ds_spec *out, bb_error *err);
/* The keys as --partition-by text ("host,date"), into buf[cap]. */
void ds_spec_text(const ds_spec *spec, char *buf, size_t cap);

/* An open dataset: its directory and the appender's lock. */
typedef struct ds_handle {
    char *dir;
    int dfd, bfd; /* DIR and DIR/_backbeat, opened O_NOFOLLOW inside the dataset */
    int lock_fd;
    bool spec_new;           /* no DIR/_backbeat/partitioning yet: this append writes it */
    bool made_dir, made_sub; /* this run created DIR, DIR/_backbeat (undone on failure) */
} ds_handle;

/* Create DIR (and DIR/_backbeat) if needed, take the lock (waiting for another appender), then
 * complete a dead appender's committed append and remove its temporaries (ds_recover). False
 * with a message naming DIR. */
bool ds_open(ds_handle *h, const char *dir, bb_error *err);
/* Release the lock; after a failed append (`failed`) of a dataset this run created, remove what
 * it created, so a failed first append leaves nothing. */
void ds_close(ds_handle *h, bool failed);

/* The dataset's partition keys are fixed by its first append (DIR/_backbeat/partitioning):
 * later appends use them; one that gives other keys (`given`: --partition-by was on the
 * command line) is refused. On success *spec holds the keys to use. False after a message. */
bool ds_settle_spec(ds_handle *h, ds_spec *spec, bool given, bb_error *err);

/* DIR/_backbeat/schema.bb into *path (malloc'ed) when it exists, else NULL; false after a
 * message when it is not a regular file. */
bool ds_schema_dump(const ds_handle *h, char **path, bb_error *err);

/* What shapes an append's rows besides its inputs (kept in its manifest, so a rewrite is
 * exact): the record filters (absolute times, event ids sorted, instance ids), --host, the
 * codec, its level, the row-group size and budget. */
typedef struct ds_shape {
    bool since_set, until_set, by_event;
    uint64_t since, until;
    uint64_t *events, *inst; /* sorted */
    size_t nevents, ninst;
    char *host; /* NULL: none */
    int codec, level;
    uint64_t row_group, budget;
} ds_shape;
/* convert_pred over a ds_shape (ctx). */
bool ds_shape_keep(const bb_mrecord *r, void *ctx);

/* One input of an append: a dump file, or a dump in memory (a ring file recovered). */
typedef struct ds_input {
    const char *path;
    const uint8_t *mem; /* NULL: read `path` */
    size_t len;
} ds_input;

typedef struct ds_append_args {
    const bb_model *model;    /* the inputs and the dataset's schema dump */
    const convert_opts *opts; /* opts->keep filters the records as `shape` says */
    const ds_spec *spec;
    const ds_shape *shape;
    const ds_input *inputs;
    size_t ninputs;
    bool no_rewrite; /* --no-rewrite: earlier parts keep their schema */
} ds_append_args;

/* What an append did besides adding parts, for the caller to report. */
typedef struct ds_report {
    size_t parts, appends; /* earlier parts rewritten, of that many earlier appends */
    uint64_t bytes;        /* their new bytes */
    double seconds;
    bool legacy_mixed; /* parts without sources keep an older schema (warn once) */
} ds_report;

/* Append the model's records to the dataset, with the sources and a manifest; when the union's
 * Parquet schema changed, the earlier appends re-converted from their sources with it (unless
 * no_rewrite), all in one transaction. 0, or 1 after a message naming the file and the
 * problem. */
int ds_append(const ds_handle *h, const ds_append_args *a, ds_report *rep, bb_error *err);

/* ---- dataset_schema.c ---- */
/* The ranks of the schema dump's views (bb_dump_view order) that DIR/_backbeat/view_ranks
 * keeps, into rank[] (0 for a set it does not list); false after a message. */
bool ds_schema_ranks(const ds_handle *h, const bb_dump *schema, uint64_t *rank, bb_error *err);

#endif /* BACKBEAT_CLI_DATASET_H */
