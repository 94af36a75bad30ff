/* emit/writers.h — the contract of convert's output writers: tw_write, tr_write
 * and tw_views_ddl, what `backbeat convert` (convert.c) hands them and what they return.
 *
 * The caller parses options, opens the inputs as a bb_model, builds the record filter and
 * opens the output (a temporary file renamed into place on success, or stdout). A writer then
 * pulls records from the model in global order, keeps those the filter accepts, and streams
 * its format into `out_fd`. Writers never create or rename files themselves (the Parquet
 * sidecar OUT.views.sql is the caller's, from tw_views_ddl), and depend on this header,
 * never on the caller.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_CONVERT_WRITERS_H
#define BACKBEAT_CLI_CONVERT_WRITERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/model.h"

/* Record filter: returns true to keep the record. */
typedef bool (*convert_pred)(const bb_mrecord *rec, void *ctx);

/* A crash's stack symbolized on the converting host (convert/crash_notes.c over symbols/): one
 * line per frame, "#N function+0xOFF (module+0xOFF) file:line" or "#N module+0xOFF [build-id]".
 * The table's `crash` view and the trace's crash instant carry it; it belongs to the
 * backbeat::Crash record of that instance and timestamp. */
typedef struct convert_crash {
    uint64_t instance_id, ts;
    const char *stack;
} convert_crash;

/* What fired a triggered dump: one backbeat::Trigger record of the inputs (convert/
 * trigger_notes.c), decoded. The table's key-value metadata and the trace's "trigger: RULE"
 * instant (on the matching record's thread) carry it. */
typedef struct convert_trigger {
    uint64_t instance_id;
    uint64_t rec_ts;    /* the backbeat::Trigger record's own timestamp (the firing) */
    uint32_t rec_shard; /* the shard it was recorded in */
    uint64_t ts;        /* the matching record's timestamp (a hung span: its enter's) */
    uint64_t span_id, after_ns, duration_ns;
    uint32_t shard; /* the matching record's shard (its thread in the trace) */
    bool hung;
    const char *rule, *event;
} convert_trigger;

typedef struct convert_opts {
    const char *out_name;      /* output path as the user gave it ("-" for stdout), for messages */
    const char *host_override; /* --host, or NULL */
    int compression_level;     /* --compression-level (zstd), default 3 */
    int codec;                 /* --compression: a pq_codec (parquet/codec.h), 0 = zstd */
    unsigned threads;          /* --threads: encoding threads; 0 or 1 = serial (the output is
                                  the same byte for byte whatever the number) */
    convert_pred keep;         /* NULL keeps everything */
    void *keep_ctx;
    /* Progress: called every so often with the records written so far (may be NULL). */
    void (*progress)(uint64_t done, uint64_t total, void *ctx);
    void *progress_ctx;
    /* Rows per row group and the buffered-bytes budget; 0: BACKBEAT_PARQUET_ROW_GROUP and
     * BACKBEAT_PARQUET_BUDGET, else the defaults (tw_sizes gives the values in force). */
    uint64_t row_group, budget;
    /* The rank of each bb_model_view (emit/view_order.h), NULL: the inputs' order. */
    const uint64_t *view_rank;
    /* The inputs' crashes with their stacks symbolized (none: NULL, 0). */
    const convert_crash *crashes;
    size_t ncrashes;
    /* The inputs' triggers, in firing order (none: NULL, 0). */
    const convert_trigger *triggers;
    size_t ntriggers;
} convert_opts;

/* Each writer returns 0 on success, or non-zero after writing a message naming the problem
 * into errbuf (no trailing newline). */
int tw_write(const bb_model *model, const convert_opts *opts, int out_fd, char *errbuf,
             size_t errlen);
int tr_write(const bb_model *model, const convert_opts *opts, int out_fd, char *errbuf,
             size_t errlen);

/* The Parquet table writer as a stream, for outputs that split one model's records over
 * several files (convert --dataset): every table has the whole model's layout. With `only`
 * (non-NULL), every row comes from that one instance of the model: its footer lists only it
 * (backbeat.instances, backbeat.host), so a table costs the same whatever the count of the
 * model's instances (rows of another instance are written, not listed). The errbuf
 * given to open stays the table's message buffer. open returns NULL (message set) on failure;
 * row and finish return 0, or non-zero with the message set; finish writes the last row group
 * and the footer; free releases (after finish, or to give up). */
typedef struct tw_table tw_table;
tw_table *tw_table_open(const bb_model *model, const convert_opts *opts, const bb_rinstance *only,
                        int out_fd, char *errbuf, size_t errlen);
int tw_table_row(tw_table *t, const bb_mrecord *rec);
int tw_table_finish(tw_table *t);
void tw_table_free(tw_table *t);

/* The row-group size and budget a table with these options is written with. */
void tw_sizes(const convert_opts *opts, uint64_t *row_group, uint64_t *budget);
/* A 64-bit key of the Parquet schema (the footer's schema elements) of the model's table: two
 * models with one union registry give one key, whatever their inputs' order. False when out
 * of memory. */
bool tw_schema_key(const bb_model *model, uint64_t *key);

/* The query DDL of FORMAT.md ("What the reference CLI makes of a dump"), without the binding
 * of `events`: per-event views, backbeat_keys, the `crash` view when the model has the event
 * backbeat::Crash (its rows with their symbolized stacks, `crashes`), then every view set of the
 * inputs, oldest rank first (rank: per bb_model_view, as convert_opts.view_rank; NULL: the
 * inputs' order). Returns a malloc'ed NUL-terminated string (NULL on allocation failure). Owned
 * by the Parquet writer. */
char *tw_views_ddl(const bb_model *model, const uint64_t *rank, const convert_crash *crashes,
                   size_t ncrashes);

#endif /* BACKBEAT_CLI_CONVERT_WRITERS_H */
