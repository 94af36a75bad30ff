/* reader_instances.c — the dump reader's instances phase: Intern, Meta and Shard sections validated, then
 * gathered per instance (see reader_internal.h); the instance and view accessors. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "read/reader_internal.h"
#include "read/reader_priv.h"

/* Validate Intern section `si` (every entry in bounds) and note where its entries start. */
bb_status bb__rd_scan_intern(ctx *c, size_t si, tagged *t) {
    const section *s = &c->d->secs[si];
    bb__read_cursor cur = bb__cursor_make(c->d->data + s->offset, (size_t)s->len, s->offset);
    t->instance_id = bb__cursor_u64(&cur);
    t->count = bb__cursor_u32(&cur);
    if (!cur.ok) return bb__rd_truncated_in(c, si, &cur);
    if (t->count > bb__cursor_left(&cur) / MIN_INTERN)
        return bb__rd_fail(c, BB_ERR_BOUNDS, s->offset + 8,
                           "section %zu (intern): entry count %u exceeds the %zu bytes left", si,
                           t->count, bb__cursor_left(&cur));
    t->body = cur.base + cur.pos;
    for (uint32_t i = 0; i < t->count; i++) {
        (void)bb__cursor_u32(&cur);
        uint32_t n = bb__cursor_u32(&cur);
        bb__cursor_take(&cur, n);
        if (!cur.ok) return bb__rd_truncated_in(c, si, &cur);
    }
    return BB_OK;
}

/* Decode Meta section `si`: instance id and host. */
bb_status bb__rd_scan_meta(ctx *c, size_t si, tagged *t) {
    const section *s = &c->d->secs[si];
    bb__read_cursor cur = bb__cursor_make(c->d->data + s->offset, (size_t)s->len, s->offset);
    t->instance_id = bb__cursor_u64(&cur);
    if (!cur.ok) return bb__rd_truncated_in(c, si, &cur);
    /* The host is carried raw (rendered lossily), like intern bytes. */
    return bb__rd_str(c, si, &cur, false, "the host", &t->host);
}

/* Decode Process section `si` (backbeat's, docs/PROCESS_SECTION.md): instance id, pid, start
 * time, program; bytes after the program are later fields, skipped. A body that does not decode
 * is skipped like an unknown kind (pid 0: it names no process), never an error: kind 5 is
 * backbeat's, not the contract's, and a dump another writer gave such a section stays readable. */
bb_status bb__rd_scan_process(ctx *c, size_t si, tagged *t) {
    const section *s = &c->d->secs[si];
    bb__read_cursor cur = bb__cursor_make(c->d->data + s->offset, (size_t)s->len, s->offset);
    t->instance_id = bb__cursor_u64(&cur);
    t->pid = bb__cursor_u64(&cur);
    t->start_ns = bb__cursor_u64(&cur);
    uint16_t n = bb__cursor_u16(&cur);
    const uint8_t *p = bb__cursor_take(&cur, n);
    t->program.ptr = cur.ok ? (const char *)p : "";
    t->program.len = cur.ok ? n : 0;
    if (!cur.ok) t->pid = 0;
    return BB_OK;
}

/* Decode Shard section `si`'s header; the capacity must be a power of two, at most 4 GiB (the
 * model's 4-byte locators), and fit in the section. The head is not constrained: the walk
 * copes with any value. */
bb_status bb__rd_scan_shard(ctx *c, size_t si, tagged *t) {
    const section *s = &c->d->secs[si];
    bb__read_cursor cur = bb__cursor_make(c->d->data + s->offset, (size_t)s->len, s->offset);
    bb_rshard *r = &t->shard;
    r->instance_id = t->instance_id = bb__cursor_u64(&cur);
    r->shard_id = bb__cursor_u32(&cur);
    r->head = bb__cursor_u64(&cur);
    r->capacity = bb__cursor_u64(&cur);
    if (!cur.ok) return bb__rd_truncated_in(c, si, &cur);
    if (r->capacity == 0 || (r->capacity & (r->capacity - 1)) != 0)
        return bb__rd_fail(c, BB_ERR_CORRUPT, s->offset + 20,
                           "section %zu (shard): capacity %llu is not a power of two", si,
                           (unsigned long long)r->capacity);
    if (r->capacity > ((uint64_t)1 << 32))
        return bb__rd_fail(c, BB_ERR_TOO_LARGE, s->offset + 20,
                           "section %zu (shard): capacity %llu exceeds the supported 4 GiB", si,
                           (unsigned long long)r->capacity);
    if (r->capacity > bb__cursor_left(&cur))
        return bb__rd_fail(c, BB_ERR_BOUNDS, s->offset + 20,
                           "section %zu (shard): capacity %llu exceeds the %zu bytes left", si,
                           (unsigned long long)r->capacity, bb__cursor_left(&cur));
    r->region = bb__cursor_take(&cur, (size_t)r->capacity);
    return BB_OK;
}

/* Intern entries sort by id; ties keep file order (entries are views into the mapping, so the
 * address orders them), and the first one wins. */
static int cmp_intern(const void *a, const void *b) {
    const bb_rintern *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return x->bytes.ptr < y->bytes.ptr ? -1 : x->bytes.ptr > y->bytes.ptr;
}

/* Tag indices sort by instance id, then file order. */
static int cmp_tag(const void *a, const void *b, void *ctx) {
    const tagged *tags = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    if (tags[x].instance_id != tags[y].instance_id)
        return tags[x].instance_id < tags[y].instance_id ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Build the instance list from the scanned sections: every id of a Meta or Shard section,
 * sorted; per instance its first Meta host, its first Process section naming a pid, its shards in file order, and the union of the
 * Intern sections tagged with its id (sorted by id, first entry of an id wins). The tags are
 * grouped by one sort, so this is n log n in the number of sections. */
bb_status bb__rd_instances(ctx *c, tagged *tags, size_t ntags) {
    bb_dump *d = c->d;
    size_t *order = malloc((ntags ? ntags : 1) * sizeof *order);
    if (!order) return bb__rd_fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (instances)");
    for (size_t i = 0; i < ntags; i++) order[i] = i;
    qsort_r(order, ntags, sizeof *order, cmp_tag, tags);
    size_t u = 0; /* instances: ids with a Meta or Shard section */
    for (size_t g = 0; g < ntags;) {
        size_t e = g;
        bool named = false;
        for (; e < ntags && tags[order[e]].instance_id == tags[order[g]].instance_id; e++) {
            uint16_t k = d->secs[tags[order[e]].si].kind;
            if (k == BB_SECTION_META || k == BB_SECTION_SHARD) named = true;
        }
        if (named) u++;
        g = e;
    }
    d->inst = bb__rd_array(d, u, sizeof *d->inst);
    if (!d->inst) {
        free(order);
        return bb__rd_fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (instances)");
    }
    d->ninst = 0;
    for (size_t g = 0; g < ntags;) {
        uint64_t id = tags[order[g]].instance_id;
        size_t e = g, nshards = 0, nintern = 0;
        bool named = false;
        for (; e < ntags && tags[order[e]].instance_id == id; e++) {
            uint16_t k = d->secs[tags[order[e]].si].kind;
            if (k == BB_SECTION_META || k == BB_SECTION_SHARD) named = true;
            if (k == BB_SECTION_SHARD) nshards++;
            if (k == BB_SECTION_INTERN) nintern += tags[order[e]].count;
        }
        if (!named) { /* intern sections of an instance with no Meta or Shard: unused */
            g = e;
            continue;
        }
        bb_rinstance *in = &d->inst[d->ninst++];
        in->instance_id = id;
        in->host.ptr = "";
        in->program.ptr = "";
        bb_rshard *shards = bb__rd_array(d, nshards, sizeof *shards);
        bb_rintern *intern = bb__rd_array(d, nintern, sizeof *intern);
        if (!shards || !intern) {
            free(order);
            return bb__rd_fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (instances)");
        }
        size_t ns = 0, ni = 0;
        for (size_t j = g; j < e; j++) {
            const tagged *t = &tags[order[j]];
            uint16_t k = d->secs[t->si].kind;
            if (k == BB_SECTION_META && !in->has_meta) {
                in->has_meta = true;
                in->host = t->host;
            }
            if (k == BB_SECTION_PROCESS && !in->has_process && t->pid) {
                in->has_process = true;
                in->pid = t->pid;
                in->start_ns = t->start_ns;
                in->program = t->program;
            }
            if (k == BB_SECTION_SHARD) shards[ns++] = t->shard;
            if (k == BB_SECTION_INTERN) {
                const uint8_t *p = t->body; /* bounds were checked by scan_intern */
                for (uint32_t x = 0; x < t->count; x++) {
                    intern[ni].id = bb__le_get_u32(p);
                    uint32_t len = bb__le_get_u32(p + 4);
                    intern[ni].bytes.ptr = (const char *)p + 8;
                    intern[ni].bytes.len = len;
                    ni++;
                    p += 8 + (size_t)len;
                }
            }
        }
        qsort(intern, ni, sizeof *intern, cmp_intern);
        size_t ui = 0;
        for (size_t i = 0; i < ni; i++)
            if (ui == 0 || intern[ui - 1].id != intern[i].id) intern[ui++] = intern[i];
        in->shards = shards;
        in->shard_count = ns;
        in->intern = intern;
        in->intern_count = ui;
        g = e;
    }
    free(order);
    return BB_OK;
}

size_t bb_dump_instance_count(const bb_dump *d) { return d->ninst; }
const bb_rinstance *bb_dump_instance(const bb_dump *d, size_t i) {
    return i < d->ninst ? &d->inst[i] : NULL;
}
const bb_rinstance *bb_dump_find_instance(const bb_dump *d, uint64_t id) {
    size_t lo = 0, hi = d->ninst;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->inst[mid].instance_id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < d->ninst && d->inst[lo].instance_id == id ? &d->inst[lo] : NULL;
}

size_t bb_dump_view_count(const bb_dump *d) { return d->nviews; }
bb_strview bb_dump_view(const bb_dump *d, size_t i) {
    bb_strview v = {"", 0};
    return i < d->nviews ? d->views[i] : v;
}

bool bb_rinstance_intern(const bb_rinstance *inst, uint32_t id, bb_strview *out) {
    if (!inst) return false;
    size_t lo = 0, hi = inst->intern_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (inst->intern[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    if (lo < inst->intern_count && inst->intern[lo].id == id) {
        if (out) *out = inst->intern[lo].bytes;
        return true;
    }
    return false;
}
