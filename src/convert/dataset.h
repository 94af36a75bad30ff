/* dataset.h — `backbeat convert DUMP... --dataset DIR`: append dumps to a Hive-partitioned
 * Parquet dataset that DuckDB, Polars and Arrow read as one table.
 *
 *   DIR/host=<h>/date=<YYYY-MM-DD>/part-<instance 16 hex>-<n>.parquet   (keys: --partition-by)
 *   DIR/views.sql                  events over DIR/ **\/ *.parquet, then the views DDL
 *   DIR/_backbeat/schema.bb        the dataset schema: a dump holding only the union registry
 *                                  and view sets of everything appended so far
 *   DIR/_backbeat/index/<instance 16 hex>.keys   the duplicate keys already in the dataset
 *   DIR/_backbeat/partitioning     the partition keys, fixed by the first append
 *   DIR/_backbeat/lock             flock()ed by each appender for its whole run
 *
 * An append takes the lock (a second appender waits), opens the inputs plus the schema dump
 * as one model (so every part is written with the dataset's union schema, a superset of what
 * the dump itself holds), skips records whose duplicate key (FORMAT.md: ts_nanos, instance,
 * shard, offset) the index holds, writes each partition's records into a new part (temporary
 * name, renamed: a part is complete or absent; existing parts are never rewritten), then
 * replaces the index files, the schema dump and views.sql (each written aside and renamed).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_DATASET_H
#define BACKBEAT_CLI_DATASET_H

#include <stdbool.h>
#include <stddef.h>

#include "backbeat/error.h"
#include "backbeat/model.h"
#include "convert/writers.h"

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
 * with a message naming what is wrong (a usage error for the caller to report). */
bool ds_parse_spec(const char *text, ds_spec *out, bb_error *err);

/* An open dataset: its directory and the appender's lock. */
typedef struct ds_handle {
    char *dir;
    int lock_fd;
} ds_handle;

/* Create DIR (and DIR/_backbeat) if needed and take the lock, waiting for another appender.
 * False with a message naming DIR. */
bool ds_open(ds_handle *h, const char *dir, bb_error *err);
void ds_close(ds_handle *h);

/* The dataset's partition keys are fixed by its first append (DIR/_backbeat/partitioning):
 * later appends use them; one that gives other keys (`given`: --partition-by was on the
 * command line) is refused. On success *spec holds the keys to use. False with the message set. */
bool ds_settle_spec(const ds_handle *h, ds_spec *spec, bool given, bb_error *err);

/* DIR/_backbeat/schema.bb when it exists (malloc'ed), else NULL. */
char *ds_schema_dump(const ds_handle *h);

/* Append the model's records (opts->keep filters them further) to the dataset; 0, or 1 after
 * a message naming the file and the problem. */
int ds_append(const ds_handle *h, const bb_model *model, const convert_opts *opts,
              const ds_spec *spec, bb_error *err);

/* ---- dataset_index.c: the set of duplicate keys already in the dataset ---- */
typedef struct ds_index ds_index;
/* Load DIR/_backbeat/index/<id>.keys of every instance of the model; NULL with the message set. */
ds_index *ds_index_load(const char *dir, const bb_model *model, bb_error *err);
bool ds_index_has(const ds_index *x, const bb_record *r);
/* Remember a record written in this run (false: out of memory). */
bool ds_index_add(ds_index *x, const bb_record *r);
/* Write the index files of the instances that gained keys (aside, then renamed). */
bool ds_index_save(ds_index *x, const char *dir, bb_error *err);
void ds_index_free(ds_index *x);

/* ---- dataset_schema.c: the schema dump ---- */
/* Write DIR/_backbeat/schema.bb: the model's union registry and its distinct view sets. */
bool ds_schema_save(const char *dir, const bb_model *model, bb_error *err);

#endif /* BACKBEAT_CLI_DATASET_H */
