/* dump_writer.c — streaming writer of `.bb` dumps, format v1 (FORMAT.md).
 *
 * bb_dump_write validates the input and computes every section's length first, writes the
 * envelope and the section table, then streams the bodies in the reference order: Schema,
 * Intern, one Views per text, one Shard per ring, Meta. The bytes of each piece, and their
 * sizes, come from the shared encoders of format/sections.h (also used by `backbeat merge`),
 * fed from the descriptors through thin adapters; so does the section table
 * (bb__table_instance). The public bb_sink is taken as the format's sink (format/sink.h),
 * which it mirrors. Small items are packed into a fixed-size stack buffer flushed to the sink;
 * large regions (ring snapshots, view texts, long intern entries) go to the sink directly. Nothing
 * is allocated and only async-signal-safe operations are used (no stdio, no locale, no malloc), so
 * with the fd sink the whole write may run inside a signal handler. Stack use is about
 * BB_WRITER_BUF_SIZE plus a few hundred bytes. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/dump_writer.h"
#include "capture/dump_blanks.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "common/error_set.h"
#include "format/event_schema.h"
#include "format/sections.h"

#ifndef BB_WRITER_BUF_SIZE
#define BB_WRITER_BUF_SIZE 4096
#endif

/* ---------------------------------------------------------------------------------------
 * Error messages, built without stdio so they are async-signal-safe.
 */

/* Append "event 'NAME'" (name shortened) to identify where a schema problem is. */
static void msg_event(bb__errmsg *m, const bb_event_desc *ev, size_t index) {
    bb__errmsg_str(m, "event #");
    bb__errmsg_u64(m, index);
    if (ev && ev->name) {
        bb__errmsg_str(m, " '");
        bb__errmsg_strn(m, ev->name, 80);
        bb__errmsg_str(m, "'");
    }
}

/* ---------------------------------------------------------------------------------------
 * Validation and sizing. Every function returns BB_OK or fills err and returns the status.
 */

/* Length of NUL-terminated s (local, so the write path calls nothing outside this file). */
static size_t cstr_len(const char *s) {
    size_t n = 0;
    while (s[n]) n++;
    return n;
}

/* Checked a += b on u64; returns 0 on overflow. */
static int add_u64(uint64_t *a, uint64_t b) {
    if (*a > UINT64_MAX - b) return 0;
    *a += b;
    return 1;
}

/* Context for validation messages: which event / field / what string. */
typedef struct where {
    const bb_event_desc *ev;
    size_t ev_index;
    const char *field; /* NULL when the problem is at event level */
} where;

/* Report an invalid schema: "<event>[: field 'F']: <what>". */
static bb_status schema_error(bb_error *err, const where *w, const char *what, const char *what2) {
    bb__errmsg m = bb__errmsg_begin(err, BB_ERR_INVALID, UINT64_MAX);
    bb__errmsg_str(&m, "dump writer: ");
    msg_event(&m, w->ev, w->ev_index);
    if (w->field) {
        bb__errmsg_str(&m, ": field '");
        bb__errmsg_strn(&m, w->field, 80);
        bb__errmsg_str(&m, "'");
    }
    bb__errmsg_str(&m, ": ");
    bb__errmsg_str(&m, what);
    if (what2) bb__errmsg_str(&m, what2);
    return BB_ERR_INVALID;
}

/* Check that s can be encoded as a `str` (required: non-NULL), or as an `opt_str` when opt
 * (NULL allowed): at most 65535 bytes. */
static bb_status check_str(const char *s, int opt, const char *label, const where *w,
                           bb_error *err) {
    if (!s) return opt ? BB_OK : schema_error(err, w, label, " is NULL");
    if (cstr_len(s) > UINT16_MAX) return schema_error(err, w, label, " is longer than 65535 bytes");
    return BB_OK;
}

/* Descriptors become the neutral wire descriptions of format/sections.h through
 * format/event_schema.h (input already validated: strings non-NULL where required and at most
 * 65535 bytes). */

/* Validate one field of w->ev and add its Schema-section bytes to *total. */
static bb_status size_field(const bb_field_desc *f, const where *ev_where, uint64_t *total,
                            bb_error *err) {
    where w = *ev_where;
    w.field = f->name ? f->name : "(null)";
    bb_status st;
    if ((st = check_str(f->name, 0, "name", &w, err))) return st;
    if ((st = check_str(f->description, 1, "description", &w, err))) return st;
    if (f->type > BB_TYPE_INTERNED) return schema_error(err, &w, "unknown type tag", NULL);
    if (f->type == BB_TYPE_ENUM) {
        uint8_t r = f->type_arg;
        if (r != 1 && r != 2 && r != 4 && r != 8)
            return schema_error(err, &w, "enum repr width must be 1, 2, 4 or 8", NULL);
    } else if (f->type == BB_TYPE_INTERNED) {
        if (f->type_arg > 1)
            return schema_error(err, &w, "interned dynamic flag must be 0 or 1", NULL);
    }
    if ((uint32_t)f->offset + f->width > ev_where->ev->record_size)
        return schema_error(err, &w, "offset + width passes the record size", NULL);
    if ((st = check_str(f->unit, 1, "unit", &w, err))) return st;
    if (f->label_count && !f->labels) return schema_error(err, &w, "labels is NULL", NULL);
    for (uint16_t i = 0; i < f->label_count; i++)
        if ((st = check_str(f->labels[i].label, 0, "enum label", &w, err))) return st;
    bb__wire_field wf = bb__wire_field_of(f);
    *total += bb__wire_field_size(&wf);
    for (uint16_t i = 0; i < f->label_count; i++)
        *total += bb__wire_label_size(bb__wire_cstr(f->labels[i].label));
    return BB_OK;
}

/* Validate the registry and compute the Schema section's length. */
static bb_status size_schema(const bb_dump_input *in, uint64_t *len, bb_error *err) {
    uint64_t total = BB_SCHEMA_HEADER_SIZE;
    if (in->event_count && !in->events) {
        bb__errmsg m = bb__errmsg_begin(err, BB_ERR_INVALID, UINT64_MAX);
        bb__errmsg_str(&m, "dump writer: events is NULL but event_count is not 0");
        return BB_ERR_INVALID;
    }
    if (in->event_count > UINT32_MAX) {
        bb__errmsg m = bb__errmsg_begin(err, BB_ERR_INVALID, UINT64_MAX);
        bb__errmsg_str(&m, "dump writer: more than 2^32-1 events");
        return BB_ERR_INVALID;
    }
    for (size_t i = 0; i < in->event_count; i++) {
        const bb_event_desc *ev = in->events[i];
        where w = {ev, i, NULL};
        if (!ev) return schema_error(err, &w, "descriptor is NULL", NULL);
        bb_status st;
        if ((st = check_str(ev->name, 0, "qualified name", &w, err))) return st;
        if ((st = check_str(ev->description, 1, "description", &w, err))) return st;
        if (ev->record_size > BB_MAX_RECORD_SIZE)
            return schema_error(err, &w, "record_size is larger than 65519 bytes", NULL);
        if (ev->field_count && !ev->fields) return schema_error(err, &w, "fields is NULL", NULL);
        bb__wire_event we = bb__wire_event_of(ev, ev->id);
        total += bb__wire_event_size(&we);
        for (uint16_t j = 0; j < ev->field_count; j++)
            if ((st = size_field(&ev->fields[j], &w, &total, err))) return st;
        /* Each event adds well under 2^40 bytes, so total cannot overflow before 2^24 events
         * of maximal size; guard anyway. */
        if (total > (UINT64_MAX >> 2)) {
            bb__errmsg m = bb__errmsg_begin(err, BB_ERR_INVALID, UINT64_MAX);
            bb__errmsg_str(&m, "dump writer: schema section too large");
            return BB_ERR_INVALID;
        }
    }
    *len = total;
    return BB_OK;
}

/* Validate the intern entries and compute the Intern section's length. */
static bb_status size_intern(const bb_dump_input *in, uint64_t *len, bb_error *err) {
    uint64_t total = BB_INTERN_HEADER_SIZE;
    if (in->intern_count > UINT32_MAX || (in->intern_count && !in->intern_get)) {
        bb__errmsg m = bb__errmsg_begin(err, BB_ERR_INVALID, UINT64_MAX);
        bb__errmsg_str(&m, in->intern_count > UINT32_MAX
                               ? "dump writer: more than 2^32-1 intern entries"
                               : "dump writer: intern_get is NULL but intern_count is not 0");
        return BB_ERR_INVALID;
    }
    for (size_t i = 0; i < in->intern_count; i++) {
        bb_intern_item it = in->intern_get(in->ctx, i);
        if (it.len && !it.bytes) {
            bb__errmsg m = bb__errmsg_begin(err, BB_ERR_INVALID, UINT64_MAX);
            bb__errmsg_str(&m, "dump writer: intern entry #");
            bb__errmsg_u64(&m, i);
            bb__errmsg_str(&m, " has no bytes");
            return BB_ERR_INVALID;
        }
        if (!add_u64(&total, BB_INTERN_ENTRY_HEADER_SIZE + (uint64_t)it.len)) {
            bb__errmsg m = bb__errmsg_begin(err, BB_ERR_INVALID, UINT64_MAX);
            bb__errmsg_str(&m, "dump writer: intern section too large");
            return BB_ERR_INVALID;
        }
    }
    *len = total;
    return BB_OK;
}

/* The whole layout of a dump, as computed before anything is written. */
typedef struct layout {
    uint64_t schema_len;
    uint64_t intern_len;
    uint64_t meta_len;
    uint64_t process_len; /* 0: none */
    uint64_t total;
} layout;

/* BB_ERR_INVALID with the message `what`. */
static bb_status invalid(bb_error *err, const char *what) {
    bb__errmsg m = bb__errmsg_begin(err, BB_ERR_INVALID, UINT64_MAX);
    bb__errmsg_str(&m, what);
    return BB_ERR_INVALID;
}

/* Check the view texts and the shards' callbacks and capacities. */
static bb_status check_views_shards(const bb_dump_input *in, bb_error *err) {
    if (in->view_count && !in->views)
        return invalid(err, "dump writer: views is NULL but view_count is not 0");
    for (size_t i = 0; i < in->view_count; i++) {
        if (in->views[i]) continue;
        bb__errmsg m = bb__errmsg_begin(err, BB_ERR_INVALID, UINT64_MAX);
        bb__errmsg_str(&m, "dump writer: view text #");
        bb__errmsg_u64(&m, i);
        bb__errmsg_str(&m, " is NULL");
        return BB_ERR_INVALID;
    }
    if (in->shard_count && (!in->shard_capacity || !in->shard_region))
        return invalid(err, "dump writer: shard callbacks are NULL but shard_count is not 0");
    for (uint32_t i = 0; i < in->shard_count; i++) {
        uint64_t cap = in->shard_capacity(in->ctx, i);
        if (cap != 0 && (cap & (cap - 1)) == 0 && cap <= SIZE_MAX) continue;
        bb__errmsg m = bb__errmsg_begin(err, BB_ERR_INVALID, UINT64_MAX);
        bb__errmsg_str(&m, "dump writer: shard ");
        bb__errmsg_u64(&m, i);
        bb__errmsg_str(&m, " capacity ");
        bb__errmsg_u64(&m, cap);
        bb__errmsg_str(&m, " is not a power of two");
        return BB_ERR_INVALID;
    }
    return BB_OK;
}

/* The lengths of the repeated sections, for the format's table builder (ctx: the input). */
static uint64_t view_len(const void *ctx, size_t i) {
    const bb_dump_input *in = ctx;
    return cstr_len(in->views[i]);
}

static uint64_t shard_cap(const void *ctx, uint32_t i) {
    const bb_dump_input *in = ctx;
    return in->shard_capacity(in->ctx, i);
}

/* The dump's sections, in the reference order (Intern after the Shards when `intern_last`), as
 * the format lays them out. */
static bb__instance_shape shape_of(const bb_dump_input *in, const layout *lay, int intern_last) {
    bb__instance_shape s = {.schema_len = lay->schema_len,
                            .intern_len = lay->intern_len,
                            .intern_last = intern_last,
                            .meta_len = lay->meta_len,
                            .view_count = in->view_count,
                            .shard_count = in->shard_count,
                            .process_len = lay->process_len,
                            .view_len = view_len,
                            .shard_capacity = shard_cap,
                            .ctx = in};
    return s;
}

/* Validate `in` and compute its layout. */
static bb_status plan(const bb_dump_input *in, const bb__wire_process *proc, layout *lay,
                      bb_error *err) {
    if (!in) return invalid(err, "dump writer: input is NULL");
    if (3u + (uint64_t)in->view_count + in->shard_count + (proc ? 1u : 0u) > UINT16_MAX)
        return invalid(err, "dump writer: more than 65535 sections (views + shards + 3)");
    lay->process_len = proc ? bb__wire_process_size(proc) : 0;
    bb_status st;
    if ((st = size_schema(in, &lay->schema_len, err))) return st;
    if ((st = size_intern(in, &lay->intern_len, err))) return st;
    if (in->host && cstr_len(in->host) > UINT16_MAX)
        return invalid(err, "dump writer: host is longer than 65535 bytes");
    lay->meta_len = bb__wire_meta_size(bb__wire_cstr(in->host ? in->host : ""));
    if ((st = check_views_shards(in, err))) return st;
    bb__table t;
    bb__instance_shape shape = shape_of(in, lay, 0);
    bb__table_instance(&t, (bb__sink){NULL, NULL}, &shape);
    lay->total = bb__table_end(&t);
    if (!lay->total) return invalid(err, "dump writer: dump size overflows 64 bits");
    return BB_OK;
}

uint64_t bb_dump_size(const bb_dump_input *in) { return bb__dump_size_process(in, NULL); }

/* Contract: see dump_blanks.h. */
uint64_t bb__dump_size_process(const bb_dump_input *in, const bb__wire_process *proc) {
    layout lay;
    if (plan(in, proc, &lay, NULL) != BB_OK) return 0;
    return lay.total;
}

/* ---------------------------------------------------------------------------------------
 * Output: a stack buffer in front of the sink.
 */

typedef struct out {
    bb__sink sink;
    uint64_t pos; /* bytes handed to out_* so far = offset in the dump */
    int failed;   /* sticky: the sink's non-zero return code */
    uint64_t fail_pos;
    size_t len; /* bytes pending in buf */
    uint8_t buf[BB_WRITER_BUF_SIZE];
} out;

/* Hand the pending bytes to the sink. */
static void out_flush(out *o) {
    if (o->failed || o->len == 0) {
        o->len = 0;
        return;
    }
    int rc = o->sink.write(o->sink.ctx, o->buf, o->len);
    if (rc != 0) {
        o->failed = rc;
        o->fail_pos = o->pos - o->len;
    }
    o->len = 0;
}

/* Append n bytes: copied into the buffer when they fit, else written straight through. */
static void out_bytes(out *o, const void *p, size_t n) {
    if (o->failed || n == 0) {
        o->pos += n;
        return;
    }
    if (n <= sizeof o->buf - o->len) {
        memcpy(o->buf + o->len, p, n);
        o->len += n;
        o->pos += n;
        return;
    }
    if (n < sizeof o->buf / 2) { /* small: top up the buffer, flush, continue */
        size_t first = sizeof o->buf - o->len;
        memcpy(o->buf + o->len, p, first);
        o->len += first;
        o->pos += first;
        out_flush(o);
        out_bytes(o, (const uint8_t *)p + first, n - first);
        return;
    }
    out_flush(o);
    if (o->failed) {
        o->pos += n;
        return;
    }
    int rc = o->sink.write(o->sink.ctx, p, n);
    if (rc != 0) {
        o->failed = rc;
        o->fail_pos = o->pos;
    }
    o->pos += n;
}

/* Sink callback over an `out` (ctx), for the encoders of format/sections.h: always accepts
 * (a sink failure is kept sticky in the `out`). */
static int out_sink_write(void *ctx, const void *p, size_t n) {
    out_bytes(ctx, p, n);
    return 0;
}

/* Whether a range blanks() names for shard `shard` meets [at, at + n). */
static bool blanked(const bb__dump_blanks *bl, uint32_t shard, uint64_t at, uint64_t n) {
    uint64_t off, len;
    for (size_t k = 0; bl->get(bl->ctx, shard, k, &off, &len); k++)
        if (off < at + n && at < off + len) return true;
    return false;
}

/* The `cap` bytes of a shard region, with the ranges blanks() names for shard `shard` written as
 * zeros (region offsets, within [0, cap)); the region itself is not changed (on the crash path
 * and in a direct dump it is the live ring). Goes a buffer at a time: a buffer some range meets
 * is copied and blanked, the runs of the others are written straight from the region. */
static void out_region(out *o, const uint8_t *region, uint64_t cap, const bb__dump_blanks *bl,
                       uint32_t shard) {
    uint64_t off, len, clean = 0; /* the run of buffers no range meets starts at `clean` */
    if (!bl || !bl->get(bl->ctx, shard, 0, &off, &len)) {
        out_bytes(o, region, (size_t)cap);
        return;
    }
    for (uint64_t at = 0; at < cap; at += sizeof o->buf) {
        size_t n = cap - at < sizeof o->buf ? (size_t)(cap - at) : sizeof o->buf;
        if (!blanked(bl, shard, at, n)) continue;
        out_bytes(o, region + clean, (size_t)(at - clean));
        clean = at + n;
        out_flush(o);
        memcpy(o->buf, region + at, n);
        for (size_t k = 0; bl->get(bl->ctx, shard, k, &off, &len); k++) {
            uint64_t from = off > at ? off : at, to = off + len < at + n ? off + len : at + n;
            if (from < to) memset(o->buf + (from - at), 0, (size_t)(to - from));
        }
        o->len = n;
        o->pos += n;
        out_flush(o);
    }
    out_bytes(o, region + clean, (size_t)(cap - clean));
}

/* The encoders' view of o. */
static bb__sink out_sink(out *o) {
    bb__sink s = {out_sink_write, o};
    return s;
}

/* ---------------------------------------------------------------------------------------
 * Section bodies.
 */

/* The Schema section body (input validated by plan). */
static void write_schema(out *o, const bb_dump_input *in) {
    bb__sink s = out_sink(o);
    bb__enc_schema_count(s, (uint32_t)in->event_count);
    for (size_t i = 0; i < in->event_count; i++) {
        const bb_event_desc *ev = in->events[i];
        bb__wire_event we = bb__wire_event_of(ev, ev->id);
        bb__enc_schema_event(s, &we);
        for (uint16_t j = 0; j < ev->field_count; j++) {
            const bb_field_desc *f = &ev->fields[j];
            bb__wire_field wf = bb__wire_field_of(f);
            bb__enc_schema_field(s, &wf);
            for (uint16_t k = 0; k < f->label_count; k++)
                bb__enc_schema_label(s, f->labels[k].value, bb__wire_cstr(f->labels[k].label));
        }
    }
}

/* Returns 0 if an intern entry changed size since sizing. */
static int write_intern(out *o, const bb_dump_input *in, uint64_t expect_len) {
    uint64_t start = o->pos;
    bb__sink s = out_sink(o);
    bb__enc_intern_header(s, in->instance_id, (uint32_t)in->intern_count);
    for (size_t i = 0; i < in->intern_count; i++) {
        bb_intern_item it = in->intern_get(in->ctx, i);
        if (it.len && !it.bytes) return 0;
        bb__enc_intern_entry(s, it.id, it.len, it.bytes);
        if (o->pos - start > expect_len) return 0;
    }
    return o->pos - start == expect_len;
}

/* Report a sink failure. */
static bb_status sink_error(bb_error *err, const out *o) {
    bb__errmsg m = bb__errmsg_begin(err, BB_ERR_IO, o->fail_pos);
    bb__errmsg_str(&m, "dump writer: sink write failed at dump offset ");
    bb__errmsg_u64(&m, o->fail_pos);
    int rc = o->failed;
    if (rc > 0) {
        const char *name = rc == ENOSPC   ? "ENOSPC"
                           : rc == EPIPE  ? "EPIPE"
                           : rc == EBADF  ? "EBADF"
                           : rc == EIO    ? "EIO"
                           : rc == EFBIG  ? "EFBIG"
                           : rc == EDQUOT ? "EDQUOT"
                           : rc == EAGAIN ? "EAGAIN"
                           : rc == EFAULT ? "EFAULT"
                                          : NULL;
        bb__errmsg_str(&m, " (errno ");
        bb__errmsg_u64(&m, (uint64_t)rc);
        if (name) {
            bb__errmsg_str(&m, " ");
            bb__errmsg_str(&m, name);
        }
        bb__errmsg_str(&m, ")");
    }
    return BB_ERR_IO;
}

bb_status bb_dump_write(const bb_dump_input *in, bb_sink sink, uint8_t *scratch, bb_error *err) {
    bb__sink k = {sink.write, sink.ctx};
    return bb__dump_write_blanked(in, NULL, k, scratch, err, NULL, NULL);
}

/* The exact Intern section after the Shards (bb__dump_exact): the entries the records named,
 * sized (*st: the sizing's error) then written (0: an entry changed size); its length in *len. */
static int write_exact_intern(out *o, const bb_dump_input *in, const bb__dump_exact *ex,
                              uint64_t *len, bb_status *st, bb_error *err) {
    bb_dump_input chosen = *in;
    chosen.intern_count = ex->select(ex->ctx);
    if ((*st = size_intern(&chosen, len, err)) != BB_OK) return 0;
    return write_intern(o, &chosen, *len);
}

/* Write the envelope and the section table again from the dump's offset 0 through ex->patch,
 * with the Intern section's real length (the same `out`, its buffer flushed). */
static void patch_table(out *o, const bb_dump_input *in, const layout *lay,
                        const bb__dump_exact *ex) {
    o->sink = ex->patch;
    o->pos = 0;
    o->len = 0;
    bb__table t;
    bb__instance_shape shape = shape_of(in, lay, 1);
    bb__table_instance(&t, out_sink(o), &shape);
    out_flush(o);
}

/* Contract: see dump_blanks.h. */
bb_status bb__dump_write_blanked(const bb_dump_input *in, const bb__wire_process *proc,
                                 bb__sink sink, uint8_t *scratch, bb_error *err,
                                 const bb__dump_blanks *blanks, const bb__dump_exact *exact) {
    layout lay;
    bb_status st = plan(in, proc, &lay, err);
    if (st) return st;
    if (!sink.write) {
        bb__errmsg m = bb__errmsg_begin(err, BB_ERR_INVALID, UINT64_MAX);
        bb__errmsg_str(&m, "dump writer: sink has no write callback");
        return BB_ERR_INVALID;
    }

    out o;
    o.sink = sink;
    o.pos = 0;
    o.failed = 0;
    o.fail_pos = 0;
    o.len = 0;

    /* Envelope, then the section table: bodies back to back in table order. */
    bb__sink s = out_sink(&o);
    bb__table t;
    bb__instance_shape shape = shape_of(in, &lay, exact != NULL);
    bb__table_instance(&t, s, &shape);

    /* Bodies. */
    uint64_t body_start = o.pos;
    write_schema(&o, in);
    int consistent = o.pos - body_start == lay.schema_len;
    const char *what = "schema";
    if (consistent && !exact) {
        consistent = write_intern(&o, in, lay.intern_len);
        what = "intern entries";
    }
    for (size_t i = 0; consistent && i < in->view_count; i++)
        out_bytes(&o, in->views[i], cstr_len(in->views[i]));
    for (uint32_t i = 0; consistent && i < in->shard_count && !o.failed; i++) {
        uint64_t cap = in->shard_capacity(in->ctx, i);
        uint64_t head = 0;
        const uint8_t *region = in->shard_region(in->ctx, i, scratch, &head);
        if (!region) {
            out_flush(&o);
            bb__errmsg m = bb__errmsg_begin(err, BB_ERR_INVALID, o.pos);
            bb__errmsg_str(&m, "dump writer: shard_region returned NULL for shard ");
            bb__errmsg_u64(&m, i);
            return BB_ERR_INVALID;
        }
        bb__enc_shard_header(s, in->instance_id, i, head, cap);
        out_region(&o, region, cap, blanks, i);
        if (exact) exact->mark(exact->ctx, i, region, head, cap);
    }
    if (consistent && exact && !o.failed) {
        uint64_t len = 0, bound = lay.intern_len;
        consistent = write_exact_intern(&o, in, exact, &len, &st, err);
        if (st != BB_OK) return st;
        what = "intern entries";
        lay.intern_len = len;
        lay.total = lay.total - bound + len;
    }
    if (consistent) {
        bb__enc_meta(s, in->instance_id, bb__wire_cstr(in->host ? in->host : ""));
        if (proc) bb__enc_process(s, in->instance_id, proc);
        consistent = o.pos == lay.total;
        what = "shard capacities or texts";
    }
    out_flush(&o);
    if (o.failed) return sink_error(err, &o);
    if (consistent && exact) {
        patch_table(&o, in, &lay, exact);
        if (o.failed) return sink_error(err, &o);
    }
    if (!consistent) {
        bb__errmsg m = bb__errmsg_begin(err, BB_ERR_INVALID, o.pos);
        bb__errmsg_str(&m, "dump writer: input changed between sizing and writing (");
        bb__errmsg_str(&m, what);
        bb__errmsg_str(&m, "); the dump is incomplete");
        return BB_ERR_INVALID;
    }
    bb__err_clear(err);
    return BB_OK;
}
