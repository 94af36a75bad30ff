/* table/table_priv.h — the Parquet table writer's state (table/table.c), shared with
 * its row rendering (table/table_row.c) and its parallel engine (table/table_par.c,
 * convert --threads N > 1). Private to the three; the writer is on top, the engine calls the
 * rendering, the rendering calls neither.
 *
 * A row's values go column by column (each leaf a pq_column); the serial writer renders each
 * row into every column at once. The parallel engine batches rows and has worker threads
 * render a batch, a leaf (column) at a time, each leaf on one thread: a column sees the very
 * calls of the serial run in the same order, so its bytes are the same, and the row-group
 * cuts, decided on the reading thread between batches from the same counts, are the same too.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_PARQUET_WRITER_H
#define BB_CONVERT_PARQUET_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/model.h"
#include "table/layout.h"
#include "emit/writers.h"
#include "read/u64map.h"
#include "parquet/buf.h"
#include "parquet/column.h"
#include "parquet/footer.h"

/* Rows are checked against the memory budget every this many rows of a row group. */
#define PQW_CHECK_ROWS 8192u

/* Each part on its own cache line (the array is 64-byte aligned): with --threads the reading
 * thread reads `id` and counts `rows` on every row while a worker updates `cache` on every
 * row, and a line they share moves between the CPUs on every row. */
typedef struct instance_slot { /* 256 bytes */
    uint64_t id;               /* read-only once set */
    const bb_rinstance *inst;
    _Alignas(64) pq_dict_cache cache;     /* the instance_id column's: that column's thread only */
    _Alignas(64) pq_dict_cache pid_cache; /* the pid column's (inst's pid): its thread only */
    _Alignas(64) uint64_t rows;           /* rows written: counted by the reading thread */
} instance_slot;

/* A decoded enum label or interned text that can go in as stable bytes (pq_col_str_stable):
 * the field (its schema's), the instance for interned text (NULL for a label), the raw value. */
typedef struct tw_str_hit {
    const void *field;
    const void *inst;
    uint64_t raw;
    const void *p;
    size_t n;
    pq_dict_cache cache; /* its index in the leaf's dictionary (pq_col_str_stable_c) */
} tw_str_hit;

#define PQW_STR_HITS 256 /* direct-mapped */

/* What one rendering thread owns: its scratch and its caches of UTF-8 checks and texts. */
typedef struct tw_lane {
    pq_buf text;     /* rendering scratch */
    bb__u64map utf8; /* interned text address -> (length << 1 | valid UTF-8) + 1 */
    tw_str_hit hits[PQW_STR_HITS];
} tw_lane;

/* What rendering needs of one record (a bb_mrecord's, slimmed: the parallel engine stages
 * one per row). `fields` points into the dump (or a copy the engine holds). */
typedef struct tw_rec {
    const uint8_t *fields;
    const bb_rschema *schema; /* the schema it was written with, NULL: the plan's */
    const bb_rinstance *instance;
    uint64_t ts;
    uint64_t instance_id;
} tw_rec;

/* The tw_rec of model record `mr`. */
static inline tw_rec tw_rec_of(const bb_mrecord *mr) {
    return (tw_rec){mr->rec.fields, mr->rec.schema, mr->instance, mr->rec.ts, mr->rec.instance_id};
}

/* A row staged by the parallel engine (one cache line). */
typedef struct tw_item {
    tw_rec rc;   /* rc.fields: into the dump (which outlives the write), or into the batch's
                    bytes (its copy of the record that wraps) */
    size_t foff; /* the engine's: offset of the copied field bytes in the batch */
    tw_plan *pl;
    instance_slot *is;
} tw_item;

typedef struct tw_par tw_par;

typedef struct writer {
    const bb_model *model;
    const convert_opts *opts;
    tw_layout lay;
    pq_out out;
    pq_ctx ctx;
    pq_column *cols;
    pq_rowgroup *rgs;
    size_t nrg, rg_cap;
    uint64_t rg_rows; /* rows in the open row group */
    uint64_t rows;    /* rows written */
    uint64_t rg_max;
    uint64_t budget; /* buffered bytes that close a row group early */
    instance_slot *inst;
    size_t ninst;
    size_t last_inst;
    tw_lane lane; /* the serial path's */
    tw_par *par;  /* the parallel engine, NULL when serial */
    char *err;
    size_t errlen;
} writer;

/* ---- table/table_row.c: rendering, below both the writer and its parallel engine ---- */

/* Render record `rc` (plan `pl`, instance slot `is` or NULL) as row `r` of the open row group,
 * with `seq` as its seq. tw_render writes every column; tw_render_field only field `f` of
 * the plan into its leaf (nothing when the record's own schema has no field f: the row's gap
 * is NULL, as tw_render leaves it). tw_render_dense writes dense leaf `leaf` (< PQ_DENSE) of
 * n staged rows, rows r0.. with seqs seq0.., in one loop. A plan's missing leaves (other
 * versions' fields) get pq_col_null(.., r, 1) from tw_render and from the engine. */
void tw_render(writer *w, tw_lane *ln, const tw_rec *rc, tw_plan *pl, instance_slot *is, uint64_t r,
               uint64_t seq);
void tw_render_field(writer *w, tw_lane *ln, const tw_rec *rc, tw_plan *pl, uint32_t f, uint64_t r);
/* tw_render_field for the n staged rows items[rows[k]] (rows ascending) of plan pl, each as
 * row r0 + rows[k]: an integer or bool field's place looked up once per schema. */
void tw_render_rows(writer *w, tw_lane *ln, const tw_item *items, const uint32_t *rows, size_t n,
                    tw_plan *pl, uint32_t f, uint64_t r0);
void tw_render_dense(writer *w, int32_t leaf, const tw_item *items, size_t n, uint64_t r0,
                     uint64_t seq0);
/* The `log_message` leaf (w->lay.log_leaf) of n staged rows, rows r0..: as tw_render writes it. */
void tw_render_log(writer *w, tw_lane *ln, const tw_item *items, size_t n, uint64_t r0);

/* After rows were added (w->rg_rows, w->rows counted): close the row group when it is full or
 * at a budget check over the budget. 0, or 1 with the message set. The writer's
 * (table/table.c), handed to the parallel engine as a function: the engine never calls
 * into the writer by name. */
typedef int (*tw_after_rows_fn)(writer *w);

/* ---- table/table_par.c: the parallel engine, below the writer ---- */

/* tw_par_start sets w->par for `threads` (> 1) threads, threads - 1 workers and
 * the caller's (which calls `after_rows` once a batch's rows are counted), or leaves them NULL
 * (serial) if threads could not be had; 0, or 1 with the message set (out of memory).
 * tw_par_add stages a row (encoded later, in order); tw_par_drain encodes every staged row;
 * tw_par_close seals every column of the open row group into chunks[] on the workers and the
 * caller (nothing in flight) and leaves them to be written in order while the next rows are
 * encoded (their offsets in chunks[] are set as they are: chunks[] must stay until
 * tw_par_flush); false if a seal or an earlier write failed. tw_par_flush writes what is left
 * (before the footer); false if a write failed. tw_par_free stops the workers. */
int tw_par_start(writer *w, unsigned threads, tw_after_rows_fn after_rows);
int tw_par_add(writer *w, const bb_mrecord *mr, tw_plan *pl, instance_slot *is);
int tw_par_drain(writer *w);
bool tw_par_close(writer *w, pq_chunk_meta *chunks);
bool tw_par_flush(writer *w);
void tw_par_free(writer *w);
/* The budget check's count with the engine's deferred pages (full pages are compressed by
 * whichever thread is idle, outside the batches, so a chunk's size is not known at a check):
 * at most `budget` when the serial writer's count (the compressed chunks and the open pages)
 * would be, else that count exactly, after every cut page is compressed. Called between
 * batches. */
size_t tw_par_buffered(writer *w, size_t budget);

#endif /* BB_CONVERT_PARQUET_WRITER_H */
