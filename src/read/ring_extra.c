/* ring_extra.c — bb_ring_snapshot_extra_fd (backbeat/ring_reader.h): a ring file's snapshot
 * plus records the reader adds (`backbeat watch`'s backbeat::Trigger): their schemas encoded
 * into the registry when the file lacks them, the strings of their interned fields as intern
 * entries with ids past those of the file's table, the records in one more Shard of their own. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "common/error_set.h"
#include "common/le_bytes.h"
#include "format/event_schema.h"
#include "format/wire.h"
#include "read/ring_priv.h"

#define MAX_EXTRA 64

static bb_status invalid(bb_error *err, const char *what) {
    return bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "ring snapshot: %s", what);
}

/* One record's strings as intern entries, their ids stored into its field bytes `f`. */
static int add_strings(bb__ring_extra *x, const bb_ring *r, const bb_ring_extra *e, uint8_t *f) {
    int rc = 0;
    for (uint16_t i = 0; !rc && e->strings && i < e->event->field_count; i++) {
        const bb_field_desc *fd = &e->event->fields[i];
        const char *str = e->strings[i];
        if (!str || fd->type != BB_TYPE_INTERNED || fd->width != 4) continue;
        uint32_t id = bb__ring_intern_last_id(r) + 1u + x->nintern++;
        bb__le_put_u32(f + fd->offset, id);
        rc = bb__enc_intern_entry(bb__sink_membuf(&x->intern), id, (uint32_t)strlen(str), str);
    }
    return rc;
}

/* Is event `id` among the schemas encoded so far? */
static bool encoded(const bb__ring_extra *x, uint64_t id) {
    for (uint32_t i = 0; i < x->nschema; i++)
        if (x->schema_id[i] == id) return true;
    return false;
}

static bb_status check(const bb_ring *r, const bb_ring_extra *extra, size_t n, bb_error *err) {
    if (n > MAX_EXTRA) return invalid(err, "more than 64 records added");
    uint64_t strings = 0;
    for (size_t k = 0; k < n; k++) {
        const bb_ring_extra *e = &extra[k];
        if (!e->event || !e->event->name || !e->fields || e->event->record_size > 0xFFFF - 18)
            return invalid(err, "a record added has no event, no fields or too many bytes");
        for (uint16_t i = 0; e->strings && i < e->event->field_count; i++) {
            if (e->strings[i] && strlen(e->strings[i]) > 0xFFFF)
                return invalid(err, "a string added is longer than 65535 bytes");
            strings += e->strings[i] != NULL;
        }
    }
    if ((uint64_t)bb__ring_intern_last_id(r) + strings > UINT32_MAX)
        return invalid(err, "no intern id left for the strings added");
    return BB_OK;
}

/* Encode the extra parts of the dump into x (its buffers freed by the caller). */
static int build(bb__ring_extra *x, const bb_ring *r, const bb_ring_extra *extra, size_t n) {
    uint64_t total = 0;
    for (size_t k = 0; k < n; k++) total += 18u + extra[k].event->record_size;
    x->cap = 64;
    while (x->cap < total) x->cap *= 2;
    x->head = total;
    x->region = calloc(1, (size_t)x->cap);
    if (!x->region) return 1;
    uint8_t *at = x->region;
    int rc = 0;
    for (size_t k = 0; !rc && k < n; k++) {
        const bb_ring_extra *e = &extra[k];
        uint64_t id = bb__event_hash(e->event, NULL, 0, NULL);
        if (!encoded(x, id)) {
            rc = bb__enc_event_desc(bb__sink_membuf(&x->schema), e->event, id);
            x->schema_id[x->nschema++] = id;
            x->schema_off[x->nschema] = x->schema.len;
        }
        uint16_t size = e->event->record_size;
        bb__le_put_u64(at, e->ts);
        bb__le_put_u64(at + 8, id);
        memcpy(at + 16, e->fields, size);
        if (!rc) rc = add_strings(x, r, e, at + 16);
        bb__le_put_u16(at + 16 + size, (uint16_t)(16u + size));
        at += 18u + size;
    }
    return rc;
}

/* Contract: see ring_reader.h. */
bb_status bb_ring_snapshot_extra_fd(bb_ring *r, int fd, const bb_ring_extra *extra, size_t n,
                                    uint64_t *written, bb_error *err) {
    if (written) *written = 0;
    if (!r || fd < 0 || (n && !extra)) return invalid(err, "invalid argument");
    if (!n) return bb__ring_snapshot_write(r, fd, written, err);
    bb_status st = check(r, extra, n, err);
    if (st != BB_OK) return st;
    bb__ring_extra x;
    memset(&x, 0, sizeof x);
    if (build(&x, r, extra, n))
        st = bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "%s: out of memory", r->name);
    if (st == BB_OK) {
        r->extra = &x;
        st = bb__ring_snapshot_write(r, fd, written, err);
        r->extra = NULL;
    }
    free(x.schema.data);
    free(x.intern.data);
    free(x.region);
    return st;
}
