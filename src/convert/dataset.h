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
 * shard, offset) the index holds, writes each partition's records into a new part, the new
 * index files, the schema dump and views.sql as temporaries, then commits them as a whole
 * (dataset_txn.c: a journal, then renames; existing parts are never rewritten).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_DATASET_H
#define BACKBEAT_CLI_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 * with a usage message naming what is wrong. */
bool ds_parse_spec(const char *text, ds_spec *out, bb_error *err);

/* An open dataset: its directory and the appender's lock. */
typedef struct ds_handle {
    char *dir;
    int dfd, bfd;   /* DIR and DIR/_backbeat, opened O_NOFOLLOW inside the dataset */
    int lock_fd;
    bool spec_new;  /* no DIR/_backbeat/partitioning yet: this append writes it */
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

/* Append the model's records (opts->keep filters them further) to the dataset; 0, or 1 after
 * a message naming the file and the problem. */
int ds_append(const ds_handle *h, const bb_model *model, const convert_opts *opts,
              const ds_spec *spec, bb_error *err);

/* ---- dataset_txn.c: an append's files, committed as a whole ---- */
typedef struct ds_txn ds_txn;
/* Open `rel` ("a/b") under directory fd dfd one component at a time with O_NOFOLLOW (a symlink
 * is ELOOP / ENOTDIR), creating missing ones when `create`; the fd, or -1 with errno. */
int ds_open_dirs(int dfd, const char *rel, bool create);
/* A small regular file `name` in dfd (O_NOFOLLOW) into buf[cap], NUL-terminated; *exists false
 * when there is none. False with errno when it cannot be read or is not a regular file. */
bool ds_read_small(int dfd, const char *name, char *buf, size_t cap, bool *exists);
/* The whole regular file `name` of directory dfd (-1: none), O_NOFOLLOW, at most `max` bytes,
 * into a malloc'ed buffer with a NUL after its `len` bytes; *data NULL and true when it does not
 * exist; false with errno when it cannot be read. */
bool ds_slurp(int dfd, const char *name, size_t max, uint8_t **data, size_t *len);
/* Complete the append a dead appender committed (its journal), remove temporaries. */
bool ds_recover(const ds_handle *h, bb_error *err);
ds_txn *ds_txn_begin(const ds_handle *h, bb_error *err);
/* A temporary for the file `final` (a path under DIR), or for a new part of instance `inst`
 * in partition directory `rel`, named at the commit; the fd (the txn closes it), or -1 after a
 * message. */
int ds_txn_file(ds_txn *t, const char *final, bb_error *err);
int ds_txn_part(ds_txn *t, const char *rel, uint64_t inst, bb_error *err);
/* ds_txn_file with its whole content. */
bool ds_txn_put(ds_txn *t, const char *final, const void *data, size_t len, bb_error *err);
/* Commit every file of the transaction as a whole; false after a message. Test hook:
 * BACKBEAT_DATASET_FAULT=K makes the appender _exit(70) at its K-th step (a temporary closed,
 * the journal written, committed, each rename), as a kill there would. */
bool ds_txn_commit(ds_txn *t, bb_error *err);
/* Free; the temporaries of an uncommitted transaction are removed. */
void ds_txn_free(ds_txn *t);

/* ---- dataset_index.c: the set of duplicate keys already in the dataset ---- */
typedef struct ds_index ds_index;
/* Load DIR/_backbeat/index/<id>.keys of every instance of the model; NULL + message. */
ds_index *ds_index_load(const ds_handle *h, const bb_model *model, bb_error *err);
bool ds_index_has(const ds_index *x, const bb_record *r);
/* Remember a record written in this run (false: out of memory). */
bool ds_index_add(ds_index *x, const bb_record *r);
/* Add the new index files of the instances that gained keys to the transaction. */
bool ds_index_save(ds_index *x, const ds_handle *h, ds_txn *t, bb_error *err);
void ds_index_free(ds_index *x);

/* ---- dataset_schema.c: the schema dump ---- */
/* Add DIR/_backbeat/schema.bb to the transaction: the model's union registry and its
 * distinct view sets. */
bool ds_schema_save(const char *dir, const bb_model *model, ds_txn *t, bb_error *err);

#endif /* BACKBEAT_CLI_DATASET_H */
