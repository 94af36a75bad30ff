/* ring_dump.c — the `.bb` dump (format v1) a ring file's snapshot or follow call returns: one
 * instance with the live recorder's instance id, the schemas, intern entries and view sets
 * read so far, one Shard per ring (its head and capacity chosen by the caller, its body filled
 * by the caller), and Meta (with bb_ring_snapshot_extra_fd: the added schemas and strings, and
 * one more Shard holding the added records); plus the copy of a ring's positions out of the
 * file that reads only the file's data extents, so that the holes of a sparse file are never
 * materialised. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error_set.h"
#include "common/le_bytes.h"
#include "format/ring_file.h"
#include "format/sections.h"
#include "read/ring_priv.h"

/* The lengths of the dump's repeated sections, for the format's table builder. */
typedef struct shape_ctx {
    const bb_ring *r;
    const bb__ring_shard_out *sh;
} shape_ctx;

static uint64_t view_len(const void *ctx, size_t i) {
    const shape_ctx *c = ctx;
    return c->r->views[i].len;
}

static uint64_t shard_cap(const void *ctx, uint32_t i) {
    const shape_ctx *c = ctx;
    return i < c->r->info.shards ? c->sh[i].cap : c->r->extra->cap;
}

/* Contract: see ring_priv.h. Decided as the dump is built: the file's registry is read by the
 * snapshot itself, so an event its process registered meanwhile is not listed twice. */
uint64_t bb__ring_extra_schema(const bb_ring *r, const bb__ring_extra *x, uint32_t *count,
                               bb__sink sink) {
    uint64_t len = 0;
    *count = 0;
    for (uint32_t i = 0; i < x->nschema; i++) {
        if (bb__u64map_get(&r->size_ix, x->schema_id[i])) continue;
        size_t n = x->schema_off[i + 1] - x->schema_off[i];
        if (sink.write && sink.write(sink.ctx, x->schema.data + x->schema_off[i], n)) return 0;
        len += n;
        (*count)++;
    }
    return len;
}

/* The process the file's header names (its pid and creation time; the program is not in the
 * file): a Process section when the pid is known. */
static bb__wire_process process_of(const bb_ring *r) {
    bb__wire_process p = {r->info.pid, r->info.start_ns, {"", 0, 1}};
    return p;
}

/* The dump's sections: one instance in the reference order (Schema, Intern, one Views per view
 * set, one Shard per ring, Meta), then the Process section. */
static bb__instance_shape shape_of(const shape_ctx *c) {
    const bb_ring *r = c->r;
    uint64_t schema = BB_SCHEMA_HEADER_SIZE, intern = BB_INTERN_HEADER_SIZE;
    for (size_t i = 0; i < r->nevents; i++) schema += r->events[i].len;
    for (size_t i = 0; i < r->ninterns; i++)
        intern += BB_INTERN_ENTRY_HEADER_SIZE + r->interns[i].len;
    if (r->stats.intern_full)
        intern += BB_INTERN_ENTRY_HEADER_SIZE + sizeof BB_INTERN_FULL_TEXT - 1;
    const bb__ring_extra *x = r->extra; /* after the file's: schemas, strings, one more shard */
    if (x) {
        uint32_t n;
        schema += bb__ring_extra_schema(r, x, &n, (bb__sink){NULL, NULL});
        intern += x->intern.len;
    }
    bb__wire_str host = {r->info.host, (uint16_t)strlen(r->info.host), 1};
    bb__wire_process proc = process_of(r);
    bb__instance_shape s = {.schema_len = schema,
                            .intern_len = intern,
                            .meta_len = bb__wire_meta_size(host),
                            .view_count = r->nviews,
                            .shard_count = r->info.shards + (x ? 1u : 0u),
                            .process_len = proc.pid ? bb__wire_process_size(&proc) : 0,
                            .view_len = view_len,
                            .shard_capacity = shard_cap,
                            .ctx = c};
    return s;
}

/* Everything but the shard bodies, which are skipped (left zero) and located. */
static int write_bodies(const bb_ring *r, bb__membuf *bs, bb__ring_shard_out *sh) {
    bb__sink s = bb__sink_membuf(bs);
    const bb__ring_extra *x = r->extra;
    uint32_t added = 0;
    if (x) (void)bb__ring_extra_schema(r, x, &added, (bb__sink){NULL, NULL});
    int rc = bb__enc_schema_count(s, (uint32_t)r->nevents + added);
    for (size_t i = 0; !rc && i < r->nevents; i++)
        rc = s.write(s.ctx, r->events[i].p, r->events[i].len);
    uint32_t wrote = 0;
    if (!rc && x && added && !bb__ring_extra_schema(r, x, &wrote, s)) rc = EIO;
    uint32_t full = r->stats.intern_full ? 1u : 0u; /* the placeholder first, as a live dump */
    uint32_t nintern = (uint32_t)r->ninterns + full + (x ? x->nintern : 0u);
    if (!rc) rc = bb__enc_intern_header(s, r->info.instance_id, nintern);
    if (!rc && full)
        rc = bb__enc_intern_entry(s, 0, (uint32_t)(sizeof BB_INTERN_FULL_TEXT - 1),
                                  BB_INTERN_FULL_TEXT);
    for (size_t i = 0; !rc && i < r->ninterns; i++) { /* the copies validated: never the file */
        const bb__ring_intern *e = &r->interns[i];
        rc = bb__enc_intern_entry(s, e->id, e->len, e->p);
    }
    if (!rc && x) rc = s.write(s.ctx, x->intern.data, x->intern.len);
    for (size_t i = 0; !rc && i < r->nviews; i++)
        rc = s.write(s.ctx, r->views[i].p, r->views[i].len);
    for (uint32_t i = 0; !rc && i < r->info.shards; i++) {
        rc = bb__enc_shard_header(s, r->info.instance_id, i, sh[i].head, sh[i].cap);
        if (!rc && sh[i].cap > bs->cap - bs->len) rc = ENOSPC;
        if (!rc) {
            sh[i].body = bs->data + bs->len;
            bs->len += (size_t)sh[i].cap;
        }
    }
    if (!rc && x)
        rc = bb__enc_shard_header(s, r->info.instance_id, r->info.shards, x->head, x->cap);
    if (!rc && x) rc = s.write(s.ctx, x->region, (size_t)x->cap);
    bb__wire_str host = {r->info.host, (uint16_t)strlen(r->info.host), 1};
    if (!rc) rc = bb__enc_meta(s, r->info.instance_id, host);
    bb__wire_process proc = process_of(r);
    if (!rc && proc.pid) rc = bb__enc_process(s, r->info.instance_id, &proc);
    return rc;
}

/* Note that [p, p + n) of the dump holds data. */
static void note(bb_ring *r, const uint8_t *p, uint64_t n) {
    if (r->nranges == r->ranges_cap) {
        size_t cap = r->ranges_cap ? 2 * r->ranges_cap : 64;
        void *g = realloc(r->ranges, cap * sizeof *r->ranges);
        if (!g) {
            r->ranges_failed = true;
            return;
        }
        r->ranges = g;
        r->ranges_cap = cap;
    }
    r->ranges[r->nranges++] = (struct bb__ring_range){p, n};
}

/* Contract: see ring_priv.h. */
bb_status bb__ring_dump_build(bb_ring *r, bb__ring_shard_out *sh, uint8_t **out, size_t *out_len,
                              bb_error *err) {
    shape_ctx c = {r, sh};
    bb__instance_shape shape = shape_of(&c);
    bb__table t;
    bb__table_instance(&t, (bb__sink){NULL, NULL}, &shape);
    uint64_t total = bb__table_end(&t);
    if (!total)
        return bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL,
                           "%s: too many view sets and shards for one dump", r->name);
    /* A follower of a streaming writer: a buffer for whole rings at once (ring_buf.c). */
    uint64_t room = total;
    if (r->following && r->streaming)
        for (uint32_t i = 0; i < r->info.shards; i++)
            if (sh[i].cap < r->info.capacity) room += r->info.capacity - sh[i].cap;
    uint8_t *buf = total <= SIZE_MAX
                       ? bb__ring_buf_get((size_t)total, room <= SIZE_MAX ? (size_t)room : 0,
                                          r->following, &r->buf_zeroed)
                       : NULL;
    if (!buf) {
        return bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL,
                           "%s: cannot allocate %llu bytes for the dump", r->name,
                           (unsigned long long)total);
    }
    bb__membuf bs = bb__membuf_fixed(buf, (size_t)total);
    bb__table_instance(&t, bb__sink_membuf(&bs), &shape);
    int rc = t.rc || write_bodies(r, &bs, sh); /* every byte but the shard bodies: appended */
    r->nranges = 0;
    r->ranges_failed = false;
    const uint8_t *at = buf; /* everything but the shard bodies */
    for (uint32_t i = 0; !rc && i < r->info.shards; i++) {
        note(r, at, (uint64_t)(sh[i].body - at));
        at = sh[i].body + sh[i].cap;
    }
    if (!rc) note(r, at, (uint64_t)(buf + total - at));
    if (rc || bs.len != total) {
        bb__ring_buf_put(buf);
        return bb__err_set(err, BB_ERR_CORRUPT, UINT64_MAX, NULL, "%s: encoding the dump failed",
                           r->name);
    }
    *out = buf;
    *out_len = bs.len;
    return BB_OK;
}

/* Contract: see ring_priv.h. */
void bb__ring_dump_set_head(bb__ring_shard_out *shard, uint64_t head) {
    shard->head = head;
    bb__le_put_u64(shard->body - 16, head);
}

/* Contract: see ring_priv.h. Used by follow calls after the mapping's pages were let go; while a
 * writer streams they stay mapped and a copy from them costs less than pread's page lookups. A
 * short read's zeros read as no record, and the next call's size check names the truncation. */
void bb__ring_pread(int fd, uint8_t *dst, uint64_t off, uint64_t n) {
    while (n) {
        ssize_t got = pread(fd, dst, (size_t)n, (off_t)off);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            memset(dst, 0, (size_t)n);
            return;
        }
        dst += got;
        off += (uint64_t)got;
        n -= (uint64_t)got;
    }
}

/* Copy file bytes [off, off + n) to dst, only where the file has data (SEEK_DATA/SEEK_HOLE);
 * a file without that support, or in memory, is copied whole. */
static void copy_extents(bb_ring *r, uint64_t off, uint64_t n, uint8_t *dst) {
    uint64_t end = off + n;
    if (r->following) { /* below the heads: all data */
        if (r->fd >= 0 && !r->streaming) bb__ring_pread(r->fd, dst, off, n); /* let go */
        else memcpy(dst, r->d + off, (size_t)n); /* kept mapped (a writer streams), or memory */
        return;
    }
    while (off < end) {
        if (off >= r->data_from && off < r->data_to) { /* known: no lseek (see below) */
            uint64_t stop = r->data_to < end ? r->data_to : end;
            memcpy(dst + (off - (end - n)), r->d + off, (size_t)(stop - off));
            note(r, dst + (off - (end - n)), stop - off);
            off = stop;
            continue;
        }
        off_t d = r->fd >= 0 ? lseek(r->fd, (off_t)off, SEEK_DATA) : (off_t)off;
        if (d < 0 && errno == ENXIO) return; /* a hole to the end of the file */
        if (d < 0) d = (off_t)off;
        if ((uint64_t)d >= end) return;
        off_t h = r->fd >= 0 ? lseek(r->fd, d, SEEK_HOLE) : (off_t)end;
        uint64_t stop = h < 0 || (uint64_t)h > end ? end : (uint64_t)h;
        if (stop <= (uint64_t)d) stop = end;
        /* tmpfs answers SEEK_HOLE by walking its pages up to the first hole, the file's end
         * when every block is there: asked for each chunk of a chunked copy, it cost more
         * than the copy (issue 37); the extent is kept for the next chunks */
        if (r->fd >= 0 && h >= 0) {
            r->data_from = (uint64_t)d;
            r->data_to = (uint64_t)h;
        }
        memcpy(dst + ((uint64_t)d - (end - n)), r->d + d, (size_t)(stop - (uint64_t)d));
        note(r, dst + ((uint64_t)d - (end - n)), stop - (uint64_t)d);
        off = stop;
    }
}

/* Contract: see ring_priv.h. */
void bb__ring_copy(bb_ring *r, uint32_t shard, uint64_t from, uint64_t to, uint8_t *dst,
                   uint64_t dcap) {
    uint64_t cap = r->info.capacity, base = r->g.rings + (uint64_t)shard * cap;
    while (from < to) {
        uint64_t s = from & (cap - 1), d = from & (dcap - 1), n = to - from;
        if (n > cap - s) n = cap - s;
        if (n > dcap - d) n = dcap - d;
        copy_extents(r, base + s, n, dst + d);
        from += n;
    }
}
