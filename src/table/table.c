/* table/table.c — tw_write (emit/writers.h): the model's records, in global order and
 * filtered, as backbeat's sparse-wide Parquet table (layout: table/layout.h).
 *
 * One pass over the model. Each record becomes one row: the dense columns, then each field
 * decoded and rendered into its leaf (promoted column or the event's group). Row groups of
 * BACKBEAT_PARQUET_ROW_GROUP rows (default 1 Mi) are written as they fill, or earlier when the
 * buffered column chunks pass a memory budget (BACKBEAT_PARQUET_BUDGET bytes, default 64 MiB,
 * checked every 8192 rows), so memory does not grow with the input. The
 * pages are compressed with the codec of --compression (zstd by default). The
 * footer carries the schema, the row groups with statistics, and key-value metadata:
 * backbeat.format, backbeat.host, backbeat.views (tw_views_ddl), backbeat.columns
 * (table/semantics.h), backbeat.instances (JSON: id, host, rows of each instance) and, for a
 * triggered dump, what fired it (table/trigger_meta.h).
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/version.h"
#include "backbeat/schema.h"
#include "emit/writers.h"
#include "table/table_priv.h"
#include "common/le_bytes.h"
#include "parquet/column.h"
#include "parquet/footer.h"
#include "table/layout.h"
#include "table/semantics.h"
#include "table/trigger_meta.h"
#include "emit/text.h"

#define DEFAULT_ROW_GROUP (1u << 20)
#define MEMORY_BUDGET (64u << 20) /* buffered compressed chunks before an early row group */
#define PAGE_BUDGET (32u << 20)   /* all columns' open pages together */

static int tw_after_rows(writer *w); /* the parallel engine calls it back (parquet_writer.h) */

/* Set the error message; returns 1. */
static int fail(writer *w, const char *fmt, const char *arg) {
    if (w->err && w->errlen) snprintf(w->err, w->errlen, fmt, arg);
    return 1;
}

/* Set "cannot write OUT: <errno text>"; returns 1. */
static int fail_io(writer *w) {
    const char *name = w->opts && w->opts->out_name ? w->opts->out_name : "output";
    if (w->err && w->errlen)
        snprintf(w->err, w->errlen, "cannot write %s: %s", name, strerror(w->out.error));
    return 1;
}

/* A positive integer from the environment, or `def`. */
static uint64_t env_size(const char *name, uint64_t def) {
    const char *e = getenv(name);
    if (e && *e) {
        char *end;
        unsigned long long v = strtoull(e, &end, 10);
        if (*end == 0 && v > 0) return v;
    }
    return def;
}

void tw_sizes(const convert_opts *opts, uint64_t *row_group, uint64_t *budget) {
    *row_group = opts && opts->row_group
                     ? opts->row_group
                     : env_size("BACKBEAT_PARQUET_ROW_GROUP", DEFAULT_ROW_GROUP);
    *budget =
        opts && opts->budget ? opts->budget : env_size("BACKBEAT_PARQUET_BUDGET", MEMORY_BUDGET);
}

bool tw_schema_key(const bb_model *model, uint64_t *key) {
    tw_layout lay;
    if (!tw_layout_build(model, &lay)) return false;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < lay.nnodes; i++) {
        const pq_node *n = &lay.nodes[i];
        uint64_t v[] = {n->optional,       (uint64_t)n->num_children,
                        (uint64_t)n->type, (uint64_t)(int64_t)n->parent,
                        n->logical,        strlen(n->name)};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) h = (h ^ v[k]) * 0x100000001b3ull;
        for (const char *c = n->name; *c; c++) h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
    }
    tw_layout_free(&lay);
    *key = h;
    return true;
}

/* The slot of instance `id` (last hit first, then binary search), or NULL. */
static instance_slot *find_instance(writer *w, uint64_t id) {
    if (w->last_inst < w->ninst && w->inst[w->last_inst].id == id) return &w->inst[w->last_inst];
    size_t lo = 0, hi = w->ninst;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->inst[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    if (lo < w->ninst && w->inst[lo].id == id) {
        w->last_inst = lo;
        return &w->inst[lo];
    }
    return NULL;
}

/* Bytes held by all columns for the open row group (chunks, pages, dictionaries). */
static size_t buffered_bytes(const writer *w) {
    size_t n = 0;
    for (size_t i = 0; i < w->lay.nleaves; i++) n += pq_col_buffered(&w->cols[i]);
    return n;
}

/* The columns' chunk buffers kept for the next row group, at most half the budget: the
 * buffered bytes of a row group count what the columns hold, not these. */
static void bound_kept(writer *w) {
    size_t kept = 0;
    for (size_t i = 0; i < w->lay.nleaves; i++) {
        size_t k = pq_col_kept(&w->cols[i]);
        if (kept + k > w->budget / 2) pq_col_release(&w->cols[i]);
        else kept += k;
    }
}

/* Write the open row group (if any rows) and keep its metadata; false on failure. */
static bool flush_row_group(writer *w) {
    if (w->rg_rows == 0) return true;
    if (w->nrg == w->rg_cap) {
        size_t cap = w->rg_cap ? w->rg_cap * 2 : 16;
        pq_rowgroup *n = realloc(w->rgs, cap * sizeof *n);
        if (!n) return false;
        w->rgs = n;
        w->rg_cap = cap;
    }
    pq_rowgroup *rg = &w->rgs[w->nrg];
    rg->num_rows = w->rg_rows;
    rg->codec = w->ctx.codec;
    rg->chunks = calloc(w->lay.nleaves, sizeof *rg->chunks);
    if (!rg->chunks) return false;
    w->nrg++;
    bool ok = true;
    if (w->par) {
        ok = tw_par_close(w, rg->chunks); /* it bounds the kept buffers as it writes them */
    } else {
        for (size_t i = 0; i < w->lay.nleaves && ok; i++)
            ok = pq_col_finish(&w->cols[i], w->rg_rows, &rg->chunks[i]);
        bound_kept(w);
    }
    w->rg_rows = 0;
    return ok;
}

/* backbeat.host: the override, else the distinct non-empty hosts of the instances that gave
 * rows (all instances when none did), comma-separated in instance-id order. */
static void host_text(writer *w, pq_buf *b) {
    if (w->opts && w->opts->host_override) {
        em_cstr(b, w->opts->host_override);
        return;
    }
    bool any_rows = false;
    for (size_t i = 0; i < w->ninst; i++) any_rows |= w->inst[i].rows > 0;
    size_t start = b->len;
    for (size_t i = 0; i < w->ninst; i++) {
        const bb_rinstance *in = w->inst[i].inst;
        if ((any_rows && w->inst[i].rows == 0) || in->host.len == 0) continue;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) {
            const bb_rinstance *o = w->inst[j].inst;
            seen = (!any_rows || w->inst[j].rows > 0) && o->host.len == in->host.len &&
                   memcmp(o->host.ptr, in->host.ptr, in->host.len) == 0;
        }
        if (seen) continue;
        if (b->len > start) pq_buf_byte(b, ',');
        em_utf8_lossy(b, (const uint8_t *)in->host.ptr, in->host.len);
    }
}

/* `backbeat.instances`: each instance's id, host, OS pid (null: unknown) and rows written. */
static void instances_json(writer *w, pq_buf *b) {
    pq_buf_byte(b, '[');
    for (size_t i = 0; i < w->ninst; i++) {
        if (i) pq_buf_byte(b, ',');
        em_cstr(b, "{\"instance_id\":\"");
        em_hex16(b, w->inst[i].id);
        em_cstr(b, "\",\"host\":");
        em_json_str(b, w->inst[i].inst->host.ptr, w->inst[i].inst->host.len);
        em_cstr(b, ",\"pid\":");
        if (w->inst[i].inst->has_process) em_dec_u64(b, w->inst[i].inst->pid);
        else em_cstr(b, "null");
        em_cstr(b, ",\"rows\":");
        em_dec_u64(b, w->inst[i].rows);
        pq_buf_byte(b, '}');
    }
    pq_buf_byte(b, ']');
}

/* Write FileMetaData, its length and the closing magic; 0 or 1 (message set). */
static int write_footer(writer *w) {
    pq_buf host = {0}, insts = {0}, foot = {0}, trig = {0};
    host_text(w, &host);
    pq_buf_byte(&host, 0);
    instances_json(w, &insts);
    pq_buf_byte(&insts, 0);
    char *views =
        w->opts ? tw_views_ddl(w->model, w->opts->view_rank, w->opts->crashes, w->opts->ncrashes)
                : tw_views_ddl(w->model, NULL, NULL, 0);
    char *cols = tw_semantics_json(&w->lay);
    int rc = 0;
    if (host.failed || insts.failed || !views || !cols) {
        rc = fail(w, "%s", "out of memory");
        goto out;
    }
    pq_kv kv[5 + TW_TRIGGER_KV] = {
        {"backbeat.format", "1"},
        {"backbeat.host", (const char *)host.data},
        {"backbeat.views", views},
        {"backbeat.columns", cols},
        {"backbeat.instances", (const char *)insts.data},
    };
    size_t ntrig = 0;
    if (w->opts && !tw_trigger_kv(w->opts->triggers, w->opts->ntriggers, &trig, kv + 5, &ntrig)) {
        rc = fail(w, "%s", "out of memory");
        goto out;
    }
    if (!pq_footer_encode(&foot, w->lay.nodes, w->lay.nnodes, w->rgs, w->nrg, w->rows, kv,
                          5 + ntrig, "backbeat version " BB_VERSION_STRING)) {
        rc = fail(w, "%s", "out of memory");
        goto out;
    }
    if (foot.len > UINT32_MAX) {
        rc = fail(w, "%s", "Parquet footer too large");
        goto out;
    }
    pq_buf_u32le(&foot, (uint32_t)foot.len);
    pq_buf_put(&foot, "PAR1", 4);
    if (foot.failed) {
        rc = fail(w, "%s", "out of memory");
        goto out;
    }
    if (!pq_out_write(&w->out, foot.data, foot.len)) rc = fail_io(w);
out:
    pq_buf_free(&host);
    pq_buf_free(&insts);
    pq_buf_free(&foot);
    pq_buf_free(&trig);
    free(views);
    free(cols);
    return rc;
}

/* Layout, compressor, columns and instances (the model's, or `only`) of a new table; 0, or 1
 * with the message set. */
static int start(writer *w, const bb_rinstance *only) {
    const convert_opts *o = w->opts;
    if (!tw_layout_build(w->model, &w->lay)) return fail(w, "%s", "out of memory");
    if (!pq_ctx_init(&w->ctx, &w->out, o ? o->compression_level : 3))
        return fail(w, "%s", "out of memory");
    size_t per = PAGE_BUDGET / (w->lay.nleaves ? w->lay.nleaves : 1);
    if (per > (1u << 20)) per = 1u << 20;
    if (per < (64u << 10)) per = 64u << 10;
    w->ctx.codec = o ? o->codec : 0;
    w->ctx.page_bytes = per;
    w->ctx.dict_max = per;
    w->cols = calloc(w->lay.nleaves, sizeof *w->cols);
    if (!w->cols) return fail(w, "%s", "out of memory");
    for (size_t i = 0; i < w->lay.nleaves; i++)
        pq_col_init(&w->cols[i], &w->ctx, w->lay.leaves[i].type, w->lay.leaves[i].max_def,
                    w->lay.leaves[i].dict);
    w->ninst = only ? 1 : bb_model_instance_count(w->model);
    size_t ni = w->ninst ? w->ninst : 1;
    w->inst = aligned_alloc(_Alignof(instance_slot), ni * sizeof *w->inst); /* a multiple */
    if (!w->inst) return fail(w, "%s", "out of memory");
    memset(w->inst, 0, ni * sizeof *w->inst);
    for (size_t i = 0; i < w->ninst; i++) {
        w->inst[i].inst = only ? only : bb_model_instance(w->model, i);
        w->inst[i].id = w->inst[i].inst->instance_id;
    }
    tw_sizes(o, &w->rg_max, &w->budget);
    if (o && o->threads > 1 && tw_par_start(w, o->threads, tw_after_rows))
        return fail(w, "%s", "out of memory");
    if (!pq_out_write(&w->out, "PAR1", 4)) return fail_io(w);
    return 0;
}

/* Append one record (the caller's filter already applied); 0, or 1 with the message set. */
static int add_row(writer *w, const bb_mrecord *mr) {
    tw_plan *pl = tw_layout_find(&w->lay, mr->rec.event_id);
    if (!pl) return 0; /* the model yields registered events only */
    instance_slot *is = find_instance(w, mr->rec.instance_id);
    if (w->par) return tw_par_add(w, mr, pl, is);
    tw_rec rc = tw_rec_of(mr);
    tw_render(w, &w->lane, &rc, pl, is, w->rg_rows, w->rows);
    w->rg_rows++;
    w->rows++;
    return tw_after_rows(w);
}

static int tw_after_rows(writer *w) {
    bool full = w->rg_rows >= w->rg_max;
    if (!full && (w->rg_rows & (PQW_CHECK_ROWS - 1)) == 0)
        full = (w->par ? tw_par_buffered(w, w->budget) : buffered_bytes(w)) > w->budget;
    if (full && !flush_row_group(w))
        return w->out.error ? fail_io(w) : fail(w, "%s", "out of memory");
    return 0;
}

/* The last row group and the footer; 0, or 1 with the message set. */
static int finish(writer *w) {
    if (w->par) {
        int rc = tw_par_drain(w);
        if (rc) return rc;
    }
    if (!flush_row_group(w) || (w->par && !tw_par_flush(w)))
        return w->out.error ? fail_io(w) : fail(w, "%s", "out of memory");
    if (w->lane.text.failed) return fail(w, "%s", "out of memory");
    return write_footer(w);
}

/* The whole conversion; 0, or 1 with the message set. */
static int run(writer *w) {
    const convert_opts *o = w->opts;
    int rc = start(w, NULL);
    if (rc) return rc;
    bb_model_iter *it;
    if (bb_model_iter_new(w->model, &it) != BB_OK) return fail(w, "%s", "out of memory");
    uint64_t total = bb_model_record_count(w->model), seen = 0;
    bb_mrecord mr;
    while (rc == 0 && bb_model_next(it, &mr)) {
        seen++;
        if (o && o->progress && (seen & 0xFFFF) == 0) o->progress(w->rows, total, o->progress_ctx);
        if (o && o->keep && !o->keep(&mr, o->keep_ctx)) continue;
        rc = add_row(w, &mr);
    }
    bb_model_iter_free(it);
    if (rc) return rc;
    if (o && o->progress) o->progress(w->rows, total, o->progress_ctx);
    return finish(w);
}

/* Release everything a writer holds (not the writer itself). */
static void release(writer *w) {
    tw_par_free(w);
    if (w->cols)
        for (size_t i = 0; i < w->lay.nleaves; i++) pq_col_free(&w->cols[i]);
    free(w->cols);
    for (size_t g = 0; g < w->nrg; g++) {
        if (w->rgs[g].chunks)
            for (size_t i = 0; i < w->lay.nleaves; i++) pq_chunk_meta_free(&w->rgs[g].chunks[i]);
        free(w->rgs[g].chunks);
    }
    free(w->rgs);
    free(w->inst);
    pq_buf_free(&w->lane.text);
    bb__u64map_free(&w->lane.utf8);
    if (w->ctx.zstd) pq_ctx_free(&w->ctx);
    tw_layout_free(&w->lay);
}

int tw_write(const bb_model *model, const convert_opts *opts, int out_fd, char *errbuf,
             size_t errlen) {
    writer w = {
        .model = model, .opts = opts, .out = {.fd = out_fd}, .err = errbuf, .errlen = errlen};
    if (errbuf && errlen) errbuf[0] = 0;
    int rc = run(&w);
    release(&w);
    return rc;
}

struct tw_table {
    writer w;
};

tw_table *tw_table_open(const bb_model *model, const convert_opts *opts, const bb_rinstance *only,
                        int out_fd, char *errbuf, size_t errlen) {
    if (errbuf && errlen) errbuf[0] = 0;
    tw_table *t = calloc(1, sizeof *t);
    if (!t) {
        if (errbuf && errlen) snprintf(errbuf, errlen, "out of memory");
        return NULL;
    }
    t->w = (writer){
        .model = model, .opts = opts, .out = {.fd = out_fd}, .err = errbuf, .errlen = errlen};
    if (start(&t->w, only)) {
        tw_table_free(t);
        return NULL;
    }
    return t;
}

int tw_table_row(tw_table *t, const bb_mrecord *rec) { return add_row(&t->w, rec); }

int tw_table_finish(tw_table *t) { return finish(&t->w); }

void tw_table_free(tw_table *t) {
    if (!t) return;
    release(&t->w);
    free(t);
}
