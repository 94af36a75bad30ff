/* merge/merge.c — merge's re-encoding (merge/merge.h): combine dumps into one multi-instance dump.
 *
 * Default: decode every input through one de-duplicating model and write each (instance,
 * shard) anew. When every input had the shard with one capacity and its surviving records span
 * at most that capacity, they are written at their own positions in a ring of that capacity
 * (head: the end of the newest), so they keep their duplicate keys (FORMAT.md: the offset is
 * the position in the region) and the merged dump de-duplicates against its inputs. Otherwise
 * the shard is re-packed compactly: its records, in global (= ring) order, back to back
 * from position 0 of a new ring whose capacity is the next power of two, so the head is the byte
 * count and a reader's walk recovers exactly those records in the same order. Kept per
 * instance: the union of its intern tables (first input wins an id; an Intern section only when
 * the union has entries: FORMAT.md allows any number, and none reads as an empty table), its
 * host (Meta), and every (instance, shard) an input had, even empty ones. One Schema section holds the union registry;
 * the inputs' view texts follow, each distinct text once.
 *
 * --no-dedup: one Schema section with the union registry (first input wins an id, file order),
 * then every other section of every input copied verbatim (unknown kinds too), inputs in order.
 *
 * bb_dump_write (backbeat/dump_writer.h) writes one instance from program descriptors, while a
 * merge writes many instances from decoded ones; both encode through format/sections.h, here
 * fed from the reader's forms, and record frames through backbeat/detail/frame.h. Output goes
 * to a temporary file renamed into place on success (emit/outfile.h); nothing is printed.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backbeat/detail/frame.h"
#include "backbeat/model.h"
#include "format/sections.h"
#include "common/error_set.h"
#include "merge/merge.h"
#include "emit/view_order.h"
#include "emit/outfile.h"
#include "read/u64map.h"

/* A growing memory buffer (format/sink.h; {0} is an empty one): `failed` once an append ran
 * out of memory. */
typedef bb__membuf bytes;

/* A decoded string as a wire string (the reader bounded its length to u16). */
static bb__wire_str wire_view(bb_strview v, bool present) {
    bb__wire_str w = {v.ptr, (uint16_t)v.len, present ? 1 : 0};
    return w;
}

/* ------------------------------------------------------------------ output plumbing */

static bool pwrite_all(int fd, const void *data, size_t len, uint64_t off) {
    const uint8_t *p = data;
    while (len) {
        ssize_t w = pwrite(fd, p, len, (off_t)off);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        len -= (size_t)w;
        off += (uint64_t)w;
    }
    return true;
}

typedef bb__section_ref section;

/* How a phase of either merge ended; merge_report sets the message of the last two. */
enum { MG_OK = 0, MG_FAIL /* message set */, MG_OOM, MG_IO /* errno saved */ };

#define mg_err(e, ...) bb__err_set((e), BB_ERR_IO, UINT64_MAX, NULL, __VA_ARGS__)

/* A warning, handed to the caller's callback (if any). */
static void merge_warn(const mg_opts *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void merge_warn(const mg_opts *o, const char *fmt, ...) {
    if (!o->warn) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    o->warn(msg, o->warn_ctx);
}

/* MG_IO, saving errno into *err before anything (a close, a free) can change it. */
static int io_fail(int *err) {
    *err = errno;
    return MG_IO;
}

/* The message of a merge that ended in `st` (MG_FAIL's was set where it happened); true when
 * it succeeded. */
static bool merge_report(int st, const char *out, int err, bb_error *e) {
    if (st == MG_IO) mg_err(e, "cannot write %s: %s", out, strerror(err));
    if (st == MG_OOM) bb__err_set(e, BB_ERR_NOMEM, UINT64_MAX, NULL, "out of memory");
    return st == MG_OK;
}

/* False, with the message, when `ns` sections are more than the format's u16 count holds. */
static bool section_count_ok(const char *out, size_t ns, bb_error *e) {
    if (ns <= 65535) return true;
    mg_err(e, "cannot write %s: %zu sections exceed the format's limit of 65535", out, ns);
    return false;
}

/* ------------------------------------------------------------------ default: re-pack */

typedef struct bucket {
    uint64_t instance_id;
    uint32_t shard_id;
    uint64_t bytes;    /* records' total size = new head (re-packed) */
    uint64_t capacity; /* power of two >= bytes (re-packed), or the inputs' capacity (kept) */
    /* Positions kept: when every input had this shard with one capacity and the surviving
     * records span at most that capacity, they are written where they were (same head-relative
     * positions, so the same duplicate keys) instead of re-packed. */
    uint64_t cap0;   /* the inputs' capacity (plan_instances); UINT64_MAX when they differ */
    uint64_t lo, hi; /* lowest payload start, highest frame end of the records */
    bool keep;
    uint64_t region_off;
    uint64_t fill; /* bytes written so far */
    uint8_t *buf;
    size_t blen;
} bucket;

typedef struct inst_out {
    uint64_t id;
    bool has_meta;
    bb_strview host;
    bool has_process; /* the first input's Process section naming its pid */
    bb__wire_process process;
    bb_rintern *intern;
    size_t nintern;
    bb__u64map shards; /* shard id -> bucket index + 1 */
    bb__u64map caps;   /* shard id -> the inputs' capacity, or UINT64_MAX when they differ */
} inst_out;

/* Everything a re-pack carries from phase to phase (see merge_repack). */
typedef struct repack {
    bb_dump **dumps;
    size_t nd;
    const char *out;
    bb_model *model;
    inst_out *insts; /* the model's instances, in its (id) order */
    size_t ni;
    bucket *bk; /* one per (instance, shard), in that order once planned */
    size_t nb, bcap;
    uint64_t nrec;
    bb_strview *views; /* distinct view texts, first occurrence order */
    size_t nviews;
    bytes schema, env; /* the Schema section; the envelope and section table */
    bytes *interns, *metas,
        *procs; /* per instance: its Intern section (if entries), its Meta (if a host), its
                 * Process (if a pid) */
    size_t nintern, nmeta, nproc; /* instances with an Intern, a Meta, a Process section */
    section *secs;
    size_t ns, cur; /* sections; the next one to write */
    uint64_t total; /* the output's size */
    size_t bufcap;  /* each bucket's write buffer */
    em_out o;
    bool opened;
    int err; /* errno of an MG_IO */
    const mg_opts *opts;
    bb_error *e; /* the message of an MG_FAIL */
} repack;

static int cmp_bucket(const void *a, const void *b) {
    const bucket *x = a, *y = b;
    if (x->instance_id != y->instance_id) return x->instance_id < y->instance_id ? -1 : 1;
    return x->shard_id < y->shard_id ? -1 : x->shard_id > y->shard_id;
}

static int cmp_intern(const void *a, const void *b) {
    const bb_rintern *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static inst_out *find_inst(inst_out *v, size_t n, uint64_t id) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && v[lo].id == id ? &v[lo] : NULL;
}

static bool flush_bucket(int fd, bucket *b) {
    if (!b->blen) return true;
    bool ok = pwrite_all(fd, b->buf, b->blen, b->region_off + b->fill);
    b->fill += b->blen;
    b->blen = 0;
    return ok;
}

/* Open the de-duplicating model over the inputs. */
static int open_model(repack *rp) {
    if (bb_model_open(rp->dumps, rp->nd, true, &rp->model, rp->e) == BB_OK) return MG_OK;
    if (!rp->e->message[0]) mg_err(rp->e, "%s", bb_strerror(rp->e->status));
    return MG_FAIL;
}

/* A new, empty bucket for (instance, shard). */
static bool add_bucket(repack *rp, uint64_t instance_id, uint32_t shard_id) {
    if (rp->nb == rp->bcap) {
        size_t cap = rp->bcap ? rp->bcap * 2 : 16;
        bucket *nbk = realloc(rp->bk, cap * sizeof *nbk);
        if (!nbk) return false;
        rp->bk = nbk;
        rp->bcap = cap;
    }
    memset(&rp->bk[rp->nb], 0, sizeof rp->bk[rp->nb]);
    rp->bk[rp->nb].instance_id = instance_id;
    rp->bk[rp->nb].shard_id = shard_id;
    rp->nb++;
    return true;
}

/* Input instance `in`'s intern entries into io's union (`seen`: id -> first entry): the first
 * input wins an id, and a later one that differs is warned about. */
static bool union_interns(const mg_opts *o, inst_out *io, const bb_rinstance *in,
                          bb__u64map *seen) {
    for (size_t k = 0; k < in->intern_count; k++) {
        const bb_rintern *e = &in->intern[k];
        const bb_rintern *prev = bb__u64map_get(seen, e->id);
        if (prev) {
            if (prev->bytes.len != e->bytes.len ||
                memcmp(prev->bytes.ptr, e->bytes.ptr, e->bytes.len))
                merge_warn(o,
                           "warning: instance %016llx: intern id %u differs between "
                           "inputs; keeping the first",
                           (unsigned long long)io->id, e->id);
            continue;
        }
        if (!bb__u64map_put(seen, e->id, (void *)e)) return false;
        io->intern[io->nintern++] = *e;
    }
    return true;
}

/* A bucket for every shard input instance `in` had (even an empty one) that io lacks. */
static bool union_shards(repack *rp, inst_out *io, const bb_rinstance *in) {
    for (size_t k = 0; k < in->shard_count; k++) {
        uint32_t sid = in->shards[k].shard_id;
        uint64_t cap = in->shards[k].capacity,
                 had = (uint64_t)(uintptr_t)bb__u64map_get(&io->caps, sid);
        if (had != cap &&
            !bb__u64map_put(&io->caps, sid, (void *)(uintptr_t)(had ? UINT64_MAX : cap)))
            return false;
        if (bb__u64map_get(&io->shards, sid)) continue;
        if (!add_bucket(rp, io->id, sid) || !bb__u64map_put(&io->shards, sid, (void *)1))
            return false;
    }
    return true;
}

/* One output instance, over the inputs in order: its host (the first Meta), the union of its
 * intern tables (then sorted by id) and of its shards. */
static bool gather_instance(repack *rp, inst_out *io) {
    size_t total = 0;
    for (size_t d = 0; d < rp->nd; d++) {
        const bb_rinstance *in = bb_dump_find_instance(rp->dumps[d], io->id);
        if (in) total += in->intern_count;
    }
    io->intern = calloc(total ? total : 1, sizeof *io->intern);
    if (!io->intern) return false;
    bb__u64map seen;
    bb__u64map_init(&seen);
    bool ok = true;
    for (size_t d = 0; d < rp->nd && ok; d++) {
        const bb_rinstance *in = bb_dump_find_instance(rp->dumps[d], io->id);
        if (!in) continue;
        if (in->has_meta && !io->has_meta) {
            io->has_meta = true;
            io->host = in->host;
        }
        if (in->has_process && !io->has_process) {
            io->has_process = true;
            io->process.pid = in->pid;
            io->process.start_ns = in->start_ns;
            io->process.program = wire_view(in->program, true);
        }
        ok = union_interns(rp->opts, io, in, &seen) && union_shards(rp, io, in);
    }
    bb__u64map_free(&seen);
    if (ok) qsort(io->intern, io->nintern, sizeof *io->intern, cmp_intern);
    return ok;
}

/* Plan: the model's instances with what they gather, then the buckets sorted by (instance,
 * shard), each instance's shard map pointing at its bucket (index + 1). */
static int plan_instances(repack *rp) {
    rp->ni = bb_model_instance_count(rp->model);
    rp->insts = calloc(rp->ni ? rp->ni : 1, sizeof *rp->insts);
    if (!rp->insts) return MG_OOM;
    for (size_t i = 0; i < rp->ni; i++) {
        rp->insts[i].id = bb_model_instance(rp->model, i)->instance_id;
        bb__u64map_init(&rp->insts[i].shards);
        bb__u64map_init(&rp->insts[i].caps);
    }
    for (size_t i = 0; i < rp->ni; i++)
        if (!gather_instance(rp, &rp->insts[i])) return MG_OOM;
    if (rp->nb) qsort(rp->bk, rp->nb, sizeof *rp->bk, cmp_bucket);
    for (size_t i = 0; i < rp->nb; i++) {
        inst_out *io = find_inst(rp->insts, rp->ni, rp->bk[i].instance_id);
        if (!io || !bb__u64map_put(&io->shards, rp->bk[i].shard_id, (void *)(uintptr_t)(i + 1)))
            return MG_OOM;
        rp->bk[i].cap0 = (uint64_t)(uintptr_t)bb__u64map_get(&io->caps, rp->bk[i].shard_id);
    }
    return MG_OK;
}

/* The bucket of record r, or NULL for an (instance, shard) the plan lacks; *last caches the
 * instance of the previous record. */
static bucket *bucket_of(repack *rp, inst_out **last, const bb_mrecord *r) {
    if (!*last || (*last)->id != r->rec.instance_id)
        *last = find_inst(rp->insts, rp->ni, r->rec.instance_id);
    uintptr_t bi = *last ? (uintptr_t)bb__u64map_get(&(*last)->shards, r->rec.shard_id) : 0;
    return bi ? &rp->bk[bi - 1] : NULL;
}

/* Pass 1's view of record r's position: the span of the bucket's records. */
static void note_position(bucket *b, const bb_mrecord *r) {
    uint64_t end = r->rec.position + BB__FRAME_SIZE(r->rec.schema->record_size);
    if (!b->bytes || r->rec.position < b->lo) b->lo = r->rec.position;
    if (!b->bytes || end > b->hi) b->hi = end;
}

/* Pass 1: bytes per bucket. */
static int pass1_sizes(repack *rp) {
    bb_model_iter *it;
    if (bb_model_iter_new(rp->model, &it) != BB_OK) return MG_OOM;
    inst_out *last = NULL;
    bb_mrecord r;
    int st = MG_OK;
    while (bb_model_next(it, &r)) {
        bucket *b = bucket_of(rp, &last, &r);
        if (!b) {
            mg_err(rp->e, "internal error: record of an unknown (instance, shard)");
            st = MG_FAIL;
            break;
        }
        note_position(b, &r);
        b->bytes += BB__FRAME_SIZE(r.rec.schema->record_size);
        rp->nrec++;
    }
    bb_model_iter_free(it);
    return st;
}

/* Views: each distinct text once, in convert's order (emit/view_order.h: oldest rank first,
 * so a later convert of the merged dump, whose sets all share one rank, keeps the newest
 * data's definitions winning). */
static int collect_views(repack *rp) {
    size_t n = bb_model_view_count(rp->model), k = 0;
    rp->views = calloc(n ? n : 1, sizeof *rp->views);
    uint64_t *rank = calloc(n ? n : 1, sizeof *rank);
    size_t *order = calloc(n ? n : 1, sizeof *order);
    int st = rp->views && rank && order ? MG_OK : MG_OOM;
    if (st == MG_OK) em_view_ranks(rp->model, rp->dumps, rp->nd, rank);
    if (st == MG_OK && !em_view_order(rp->model, rank, order, NULL, &k)) st = MG_OOM;
    for (size_t i = 0; st == MG_OK && i < k; i++)
        rp->views[rp->nviews++] = bb_model_view(rp->model, order[i]);
    free(order);
    free(rank);
    return st;
}

/* Instance io's Intern section into *in when it has entries, its Meta section into *meta
 * when it has a host, its Process section into *proc when it has a pid. */
static bool encode_instance(const inst_out *io, bytes *in, bytes *meta, bytes *proc) {
    if (io->has_meta) bb__enc_meta(bb__sink_membuf(meta), io->id, wire_view(io->host, true));
    if (meta->failed) return false;
    if (io->has_process) bb__enc_process(bb__sink_membuf(proc), io->id, &io->process);
    if (proc->failed) return false;
    if (!io->nintern) return true;
    bb__sink is = bb__sink_membuf(in);
    bb__enc_intern_header(is, io->id, (uint32_t)io->nintern);
    for (size_t k = 0; k < io->nintern; k++)
        bb__enc_intern_entry(is, io->intern[k].id, (uint32_t)io->intern[k].bytes.len,
                             io->intern[k].bytes.ptr);
    return !in->failed;
}

/* Encode the small sections: the union Schema, and per instance its Intern and Meta. */
static int encode_small(repack *rp) {
    size_t nschemas = bb_model_schema_count(rp->model);
    bb__enc_schema_count(bb__sink_membuf(&rp->schema), (uint32_t)nschemas);
    for (size_t i = 0; i < nschemas; i++)
        bb__enc_schema_decoded(bb__sink_membuf(&rp->schema), bb_model_schema(rp->model, i));
    rp->interns = calloc(rp->ni ? rp->ni : 1, sizeof *rp->interns);
    rp->metas = calloc(rp->ni ? rp->ni : 1, sizeof *rp->metas);
    rp->procs = calloc(rp->ni ? rp->ni : 1, sizeof *rp->procs);
    if (!rp->interns || !rp->metas || !rp->procs) return MG_OOM;
    for (size_t i = 0; i < rp->ni; i++) {
        if (!encode_instance(&rp->insts[i], &rp->interns[i], &rp->metas[i], &rp->procs[i]))
            return MG_OOM;
        rp->nmeta += rp->insts[i].has_meta;
        rp->nproc += rp->insts[i].has_process;
        rp->nintern += rp->insts[i].nintern != 0;
    }
    return rp->schema.failed ? MG_OOM : MG_OK;
}

/* Section table: Schema, Intern per instance with entries, Views, Shard per bucket (a ring of the next
 * power of two >= its bytes, at least 64), Meta per instance with a host, Process per instance with a pid; then the envelope. */
static int lay_out(repack *rp) {
    rp->ns = 1 + rp->nintern + rp->nviews + rp->nb + rp->nmeta + rp->nproc;
    if (!section_count_ok(rp->out, rp->ns, rp->e)) return MG_FAIL;
    rp->secs = calloc(rp->ns, sizeof *rp->secs);
    if (!rp->secs) return MG_OOM;
    section *s = rp->secs;
    *s++ = (section){BB_SECTION_SCHEMA, rp->schema.len, 0};
    for (size_t i = 0; i < rp->ni; i++)
        if (rp->insts[i].nintern) *s++ = (section){BB_SECTION_INTERN, rp->interns[i].len, 0};
    for (size_t i = 0; i < rp->nviews; i++) *s++ = (section){BB_SECTION_VIEWS, rp->views[i].len, 0};
    for (size_t i = 0; i < rp->nb; i++) {
        bucket *b = &rp->bk[i];
        uint64_t cap = 64;
        while (cap < b->bytes) cap <<= 1;
        /* (records that overlap, which only hostile inputs hold, need more bytes than their
         * span: re-packed, never written over each other) */
        b->keep = b->bytes && b->cap0 && b->cap0 != UINT64_MAX && b->hi - b->lo <= b->cap0 &&
                  b->bytes <= b->hi - b->lo;
        if (b->keep) {
            cap = b->cap0;
            b->bytes = b->hi; /* the head */
        }
        b->capacity = cap;
        *s++ = (section){BB_SECTION_SHARD, BB_SHARD_HEADER_SIZE + cap, 0};
    }
    for (size_t i = 0; i < rp->ni; i++)
        if (rp->insts[i].has_meta) *s++ = (section){BB_SECTION_META, rp->metas[i].len, 0};
    for (size_t i = 0; i < rp->ni; i++)
        if (rp->insts[i].has_process) *s++ = (section){BB_SECTION_PROCESS, rp->procs[i].len, 0};
    rp->total = bb__sections_layout(rp->secs, rp->ns);
    bb__enc_header(bb__sink_membuf(&rp->env), rp->secs, rp->ns);
    return rp->env.failed ? MG_OOM : MG_OK;
}

/* Write (p, len) at the start of the next section. */
static bool put_section(repack *rp, const void *p, size_t len) {
    return pwrite_all(rp->o.fd, p, len, rp->secs[rp->cur++].offset);
}

/* Open the output at its full size; write the envelope, Schema, Intern and Views sections. */
static int write_head(repack *rp) {
    if (!em_out_open(&rp->o, rp->out, rp->e)) return MG_FAIL;
    rp->opened = true;
    if (ftruncate(rp->o.fd, (off_t)rp->total) != 0) return io_fail(&rp->err);
    if (!pwrite_all(rp->o.fd, rp->env.data, rp->env.len, 0)) return io_fail(&rp->err);
    if (!put_section(rp, rp->schema.data, rp->schema.len)) return io_fail(&rp->err);
    for (size_t i = 0; i < rp->ni; i++)
        if (rp->insts[i].nintern && !put_section(rp, rp->interns[i].data, rp->interns[i].len))
            return io_fail(&rp->err);
    for (size_t i = 0; i < rp->nviews; i++)
        if (!put_section(rp, rp->views[i].ptr, rp->views[i].len)) return io_fail(&rp->err);
    return MG_OK;
}

/* Every Shard section's header (each bucket's write buffer, 32 MiB shared out, 4 to 64 KiB
 * each, is allocated at its first record: a record-less shard costs none); then the Meta and Process
 * sections. */
static int write_shards_and_metas(repack *rp) {
    rp->bufcap = rp->nb ? (32u << 20) / rp->nb : 65536;
    if (rp->bufcap > 65536) rp->bufcap = 65536;
    if (rp->bufcap < 4096) rp->bufcap = 4096;
    for (size_t i = 0; i < rp->nb; i++) {
        bucket *b = &rp->bk[i];
        uint8_t hdr[BB_SHARD_HEADER_SIZE];
        bb__membuf hb = bb__membuf_fixed(hdr, sizeof hdr);
        bb__enc_shard_header(bb__sink_membuf(&hb), b->instance_id, b->shard_id, b->bytes,
                             b->capacity);
        b->region_off = rp->secs[rp->cur].offset + BB_SHARD_HEADER_SIZE;
        if (!put_section(rp, hdr, sizeof hdr)) return io_fail(&rp->err);
    }
    for (size_t i = 0; i < rp->ni; i++)
        if (rp->insts[i].has_meta && !put_section(rp, rp->metas[i].data, rp->metas[i].len))
            return io_fail(&rp->err);
    for (size_t i = 0; i < rp->ni; i++)
        if (rp->insts[i].has_process && !put_section(rp, rp->procs[i].data, rp->procs[i].len))
            return io_fail(&rp->err);
    return MG_OK;
}

/* Append record r's frame (backbeat/detail/frame.h) to bucket b's ring: through its buffer, or
 * straight to the file when the frame is larger than the buffer. */
static int put_frame(repack *rp, bucket *b, const bb_mrecord *r) {
    size_t rs = r->rec.schema->record_size, n = BB__FRAME_SIZE(rs);
    if (!b->buf && !(b->buf = malloc(rp->bufcap))) return MG_OOM;
    if (b->blen + n > rp->bufcap && !flush_bucket(rp->o.fd, b)) return io_fail(&rp->err);
    if (n <= rp->bufcap) {
        bb__frame_write(b->buf + b->blen, r->rec.ts, r->rec.event_id, r->rec.fields, rs);
        b->blen += n;
        return MG_OK;
    }
    uint8_t *big = malloc(n);
    if (!big) return MG_OOM;
    bb__frame_write(big, r->rec.ts, r->rec.event_id, r->rec.fields, rs);
    bool ok = pwrite_all(rp->o.fd, big, n, b->region_off + b->fill);
    int st = ok ? MG_OK : io_fail(&rp->err);
    b->fill += n;
    free(big);
    return st;
}

/* Write record r's frame where it was in its input's ring (bucket b keeps positions):
 * buffered while the frames are contiguous, in two pieces when it wraps past the end. */
static int put_frame_kept(repack *rp, bucket *b, const bb_mrecord *r) {
    size_t rs = r->rec.schema->record_size, n = BB__FRAME_SIZE(rs);
    if (!b->buf && !(b->buf = malloc(rp->bufcap))) return MG_OOM;
    uint64_t at = r->rec.position & (b->capacity - 1);
    bool wraps = at + n > b->capacity;
    if ((b->blen && (b->fill + b->blen != at || b->blen + n > rp->bufcap)) || wraps ||
        n > rp->bufcap) {
        if (!flush_bucket(rp->o.fd, b)) return io_fail(&rp->err);
    }
    if (!b->blen) b->fill = at;
    if (!wraps && n <= rp->bufcap) {
        bb__frame_write(b->buf + b->blen, r->rec.ts, r->rec.event_id, r->rec.fields, rs);
        b->blen += n;
        return MG_OK;
    }
    uint8_t *f = malloc(n);
    if (!f) return MG_OOM;
    bb__frame_write(f, r->rec.ts, r->rec.event_id, r->rec.fields, rs);
    size_t first = wraps ? (size_t)(b->capacity - at) : n;
    bool ok = pwrite_all(rp->o.fd, f, first, b->region_off + at) &&
              (first == n || pwrite_all(rp->o.fd, f + first, n - first, b->region_off));
    free(f);
    b->fill = (at + n) & (b->capacity - 1);
    return ok ? MG_OK : io_fail(&rp->err);
}

/* Pass 2: the records, in global order, appended to their bucket's new ring. */
static int pass2_records(repack *rp) {
    bb_model_iter *it;
    if (bb_model_iter_new(rp->model, &it) != BB_OK) return MG_OOM;
    inst_out *last = NULL;
    uint64_t done_n = 0;
    bb_mrecord r;
    int st = MG_OK;
    while (bb_model_next(it, &r)) {
        bucket *b = bucket_of(rp, &last, &r);
        if ((st = b->keep ? put_frame_kept(rp, b, &r) : put_frame(rp, b, &r)) != MG_OK) break;
        if ((++done_n & 0xFFFF) == 0 && rp->opts->progress)
            rp->opts->progress(done_n, rp->nrec, rp->opts->progress_ctx);
    }
    bb_model_iter_free(it);
    for (size_t i = 0; st == MG_OK && i < rp->nb; i++)
        if (!flush_bucket(rp->o.fd, &rp->bk[i])) st = io_fail(&rp->err);
    return st;
}

/* Rename the output into place. */
static int commit_repack(repack *rp) {
    rp->opened = false;
    return em_out_commit(&rp->o, rp->e) ? MG_OK : MG_FAIL;
}

static void repack_free(repack *rp) {
    if (rp->opened) em_out_abort(&rp->o);
    for (size_t i = 0; i < rp->nb; i++) free(rp->bk[i].buf);
    free(rp->bk);
    for (size_t i = 0; rp->insts && i < rp->ni; i++) {
        free(rp->insts[i].intern);
        bb__u64map_free(&rp->insts[i].shards);
        bb__u64map_free(&rp->insts[i].caps);
    }
    free(rp->insts);
    for (size_t i = 0; rp->interns && i < rp->ni; i++) free(rp->interns[i].data);
    for (size_t i = 0; rp->metas && i < rp->ni; i++) free(rp->metas[i].data);
    for (size_t i = 0; rp->procs && i < rp->ni; i++) free(rp->procs[i].data);
    free(rp->interns);
    free(rp->metas);
    free(rp->procs);
    free(rp->views);
    free(rp->secs);
    free(rp->schema.data);
    free(rp->env.data);
    if (rp->model) bb_model_close(rp->model);
}

/* The default merge (see the file comment), phase by phase: open the model; plan the
 * instances and buckets; pass 1 sizes the buckets; the views; encode the small sections; lay
 * out the section table; write the head, then the shard headers and Meta sections; pass 2
 * writes the records; commit. The first phase that fails ends it. */
static bool merge_repack(bb_dump **dumps, size_t nd, const char *out, const mg_opts *o,
                         bb_error *e) {
    static int (*const phases[])(repack *) = {
        open_model, plan_instances,         pass1_sizes,   collect_views, encode_small, lay_out,
        write_head, write_shards_and_metas, pass2_records, commit_repack,
    };
    repack rp;
    memset(&rp, 0, sizeof rp);
    rp.dumps = dumps;
    rp.nd = nd;
    rp.out = out;
    rp.o.fd = -1;
    rp.opts = o;
    rp.e = e;
    int st = MG_OK;
    for (size_t i = 0; st == MG_OK && i < sizeof phases / sizeof phases[0]; i++)
        st = phases[i](&rp);
    bool ok = merge_report(st, out, rp.err, e);
    repack_free(&rp);
    return ok;
}

/* ------------------------------------------------------------------ --no-dedup: splice */

static bool copy_range(int in, uint64_t off, uint64_t len, int out, uint64_t dst, uint8_t *buf,
                       size_t bufsz) {
    while (len) {
        size_t n = len < bufsz ? (size_t)len : bufsz;
        ssize_t r = pread(in, buf, n, (off_t)off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            if (r == 0) errno = EIO;
            return false;
        }
        if (!pwrite_all(out, buf, (size_t)r, dst)) return false;
        off += (uint64_t)r;
        dst += (uint64_t)r;
        len -= (uint64_t)r;
    }
    return true;
}

#define SPLICE_BUF (1u << 20)

/* Everything a splice carries from phase to phase (see merge_splice). */
typedef struct splicer {
    bb_dump **dumps;
    size_t nd;
    char *const *paths;
    const char *out;
    bytes schema, env;
    section *secs;
    size_t ns, cur;
    uint64_t total;
    uint8_t *buf; /* SPLICE_BUF bytes for copying */
    em_out o;
    bool opened;
    int err; /* errno of an MG_IO */
    const mg_opts *opts;
    bb_error *e; /* the message of an MG_FAIL */
} splicer;

/* Section i of dump d: its kind, and its offset and length in *off, *len. */
static uint16_t section_of(const bb_dump *d, size_t i, uint64_t *off, uint64_t *len) {
    uint16_t kind;
    bb_dump_section(d, i, &kind, off, len);
    return kind;
}

/* The union registry as one Schema section: the first input wins an id, file order. */
static int splice_registry(splicer *sp) {
    bb__u64map seen;
    bb__u64map_init(&seen);
    size_t count = 0;
    int st = MG_OK;
    bb__enc_schema_count(bb__sink_membuf(&sp->schema), 0); /* patched below */
    for (size_t d = 0; d < sp->nd && st == MG_OK; d++)
        for (size_t i = 0; i < bb_dump_schema_count(sp->dumps[d]) && st == MG_OK; i++) {
            const bb_rschema *s = bb_dump_schema(sp->dumps[d], i);
            if (bb__u64map_get(&seen, s->id)) continue;
            if (!bb__u64map_put(&seen, s->id, (void *)1)) {
                st = MG_OOM;
                break;
            }
            bb__enc_schema_decoded(bb__sink_membuf(&sp->schema), s);
            count++;
        }
    bb__u64map_free(&seen);
    if (st != MG_OK || sp->schema.failed) return MG_OOM;
    bb__membuf count_at = bb__membuf_fixed(sp->schema.data, BB_SCHEMA_HEADER_SIZE);
    bb__enc_schema_count(bb__sink_membuf(&count_at), (uint32_t)count);
    return MG_OK;
}

/* Section table: the Schema, then every other section of every input, inputs in order; then
 * the envelope and the copy buffer. */
static int splice_layout(splicer *sp) {
    uint64_t off, len;
    sp->ns = 1;
    for (size_t d = 0; d < sp->nd; d++)
        for (size_t i = 0; i < bb_dump_section_count(sp->dumps[d]); i++)
            sp->ns += section_of(sp->dumps[d], i, &off, &len) != BB_SECTION_SCHEMA;
    if (!section_count_ok(sp->out, sp->ns, sp->e)) return MG_FAIL;
    sp->secs = calloc(sp->ns, sizeof *sp->secs);
    if (!sp->secs) return MG_OOM;
    section *s = sp->secs;
    *s++ = (section){BB_SECTION_SCHEMA, sp->schema.len, 0};
    for (size_t d = 0; d < sp->nd; d++)
        for (size_t i = 0; i < bb_dump_section_count(sp->dumps[d]); i++) {
            uint16_t kind = section_of(sp->dumps[d], i, &off, &len);
            if (kind != BB_SECTION_SCHEMA) *s++ = (section){kind, len, 0};
        }
    sp->total = bb__sections_layout(sp->secs, sp->ns);
    bb__enc_header(bb__sink_membuf(&sp->env), sp->secs, sp->ns);
    sp->buf = malloc(SPLICE_BUF);
    return sp->env.failed || !sp->buf ? MG_OOM : MG_OK;
}

/* Open the output at its full size; write the envelope and the Schema section. */
static int splice_head(splicer *sp) {
    if (!em_out_open(&sp->o, sp->out, sp->e)) return MG_FAIL;
    sp->opened = true;
    if (ftruncate(sp->o.fd, (off_t)sp->total) != 0) return io_fail(&sp->err);
    if (!pwrite_all(sp->o.fd, sp->env.data, sp->env.len, 0) ||
        !pwrite_all(sp->o.fd, sp->schema.data, sp->schema.len, sp->secs[0].offset))
        return io_fail(&sp->err);
    sp->cur = 1;
    return MG_OK;
}

/* Copy input d's sections but its Schema, verbatim, into their places: from its file, or from
 * the memory a ring file was recovered into. */
static int splice_input(splicer *sp, size_t d) {
    size_t mlen = 0;
    const uint8_t *mem = sp->opts->dump_memory ? sp->opts->dump_memory(sp->dumps[d], &mlen) : NULL;
    for (size_t i = 0; mem && i < bb_dump_section_count(sp->dumps[d]); i++) {
        uint64_t off, len;
        if (section_of(sp->dumps[d], i, &off, &len) == BB_SECTION_SCHEMA) continue;
        if (!pwrite_all(sp->o.fd, mem + off, (size_t)len, sp->secs[sp->cur++].offset))
            return io_fail(&sp->err);
    }
    if (mem) return MG_OK;
    int in = open(sp->paths[d], O_RDONLY | O_CLOEXEC);
    if (in < 0) {
        mg_err(sp->e, "%s: %s", sp->paths[d], strerror(errno));
        return MG_FAIL;
    }
    int st = MG_OK;
    for (size_t i = 0; i < bb_dump_section_count(sp->dumps[d]) && st == MG_OK; i++) {
        uint64_t off, len;
        if (section_of(sp->dumps[d], i, &off, &len) == BB_SECTION_SCHEMA) continue;
        if (!copy_range(in, off, len, sp->o.fd, sp->secs[sp->cur++].offset, sp->buf, SPLICE_BUF))
            st = io_fail(&sp->err);
    }
    close(in);
    return st;
}

/* Every input's sections, in order, then rename the output into place. */
static int splice_inputs(splicer *sp) {
    for (size_t d = 0; d < sp->nd; d++) {
        int st = splice_input(sp, d);
        if (st != MG_OK) return st;
    }
    sp->opened = false;
    return em_out_commit(&sp->o, sp->e) ? MG_OK : MG_FAIL;
}

/* --no-dedup, phase by phase: the union registry; the section table; the head; the inputs'
 * sections, verbatim; commit. The first phase that fails ends it. */
static bool merge_splice(bb_dump **dumps, size_t nd, char *const *paths, const char *out,
                         const mg_opts *o, bb_error *e) {
    static int (*const phases[])(splicer *) = {splice_registry, splice_layout, splice_head,
                                               splice_inputs};
    splicer sp;
    memset(&sp, 0, sizeof sp);
    sp.dumps = dumps;
    sp.nd = nd;
    sp.paths = paths;
    sp.out = out;
    sp.o.fd = -1;
    sp.opts = o;
    sp.e = e;
    int st = MG_OK;
    for (size_t i = 0; st == MG_OK && i < sizeof phases / sizeof phases[0]; i++)
        st = phases[i](&sp);
    bool ok = merge_report(st, out, sp.err, e);
    if (sp.opened) em_out_abort(&sp.o);
    free(sp.buf);
    free(sp.secs);
    free(sp.schema.data);
    free(sp.env.data);
    return ok;
}

bool mg_merge(bb_dump **dumps, size_t nd, char *const *paths, const char *out, const mg_opts *o,
              bb_error *err) {
    return o->dedup ? merge_repack(dumps, nd, out, o, err)
                    : merge_splice(dumps, nd, paths, out, o, err);
}
