/* reader.c — open, validate and decode `.bb` dumps (FORMAT.md, format v1); walk rings.
 *
 * bb_dump_open maps the file, checks the envelope and section table, and decodes the first
 * Schema section, every Intern, Meta, Views and Shard section (unknown kinds are skipped) into
 * structures owned by the bb_dump. Strings stay views into the mapping. Every count is checked
 * against the bytes left in its section before anything is allocated, so allocation is bounded
 * by the input size. bb_shard_walk recovers records newest-first with the torn-record resync of
 * FORMAT.md "Records and rings"; bb_decode_field applies compat/README.md "JSON conventions".
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backbeat/reader.h"
#include "backbeat/detail/frame.h"
#include "common/error_set.h"
#include "format/wire.h"
#include "read/read_cursor.h"
#include "read/reader_priv.h"

/* Minimum encoded sizes, used to bound counts before allocating. */
enum {
    MIN_SCHEMA = 8 + 2 + 1 + 2 + 1 + 2, /* id, name, desc flag, record_size, phase, fields */
    MIN_FIELD = 2 + 1 + 1 + 2 + 2 + 1 + 1 + 1 + 2,
    MIN_LABEL = 8 + 2,
    MIN_INTERN = BB_INTERN_ENTRY_HEADER_SIZE,
    SHARD_HEADER = BB_SHARD_HEADER_SIZE,
    SECTION_ENTRY = BB_DUMP_TABLE_ENTRY_SIZE,
    ENVELOPE = BB_DUMP_ENVELOPE_SIZE
};

typedef struct alloc_link {
    struct alloc_link *next;
} alloc_link;

typedef struct section {
    uint16_t kind;
    uint64_t offset;
    uint64_t len;
} section;

struct bb_dump {
    char *name;
    const uint8_t *data;
    size_t size;
    void *map; /* non-NULL when we own a mapping of map_len bytes */
    size_t map_len;
    uint16_t version, flags, nsec;
    section *secs;

    bb_rschema *schemas;
    size_t nschemas;
    uint32_t *htab; /* schema index + 1, 0 = empty; open addressing */
    size_t hmask;

    bb_rinstance *inst;
    size_t ninst;
    bb_strview *views;
    size_t nviews;

    alloc_link *allocs;
};

/* ---- allocation owned by the dump ---------------------------------------------------------- */

/* Zeroed block of `n` bytes freed with the dump; NULL on failure. */
static void *dump_alloc(bb_dump *d, size_t n) {
    if (n > SIZE_MAX - sizeof(alloc_link) - 16) return NULL;
    alloc_link *l = calloc(1, sizeof(alloc_link) + 16 + n);
    if (!l) return NULL;
    l->next = d->allocs;
    d->allocs = l;
    return (char *)l + 16; /* keep 16-byte alignment of the payload */
}

/* Zeroed array of `n` elements of `size` bytes, with overflow check. */
static void *dump_array(bb_dump *d, size_t n, size_t size) {
    if (n == 0) n = 1;
    if (n > SIZE_MAX / size) return NULL;
    return dump_alloc(d, n * size);
}

/* ---- errors -------------------------------------------------------------------------------- */

typedef struct ctx {
    bb_dump *d;
    bb_error *err;
} ctx;

/* Fill the error (if any) with "NAME: <message>" and return `st`. */
static bb_status fail(ctx *c, bb_status st, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bb_status fail(ctx *c, bb_status st, uint64_t offset, const char *fmt, ...) {
    if (c->err) {
        char text[sizeof c->err->message];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(text, sizeof text, fmt, ap);
        va_end(ap);
        bb__err_set(c->err, st, offset, c->d->name, "%s", text);
    }
    return st;
}

/* A section kind's name, for messages. */
static const char *kind_name(uint16_t kind) {
    switch (kind) {
    case BB_SECTION_SCHEMA: return "schema";
    case BB_SECTION_INTERN: return "intern";
    case BB_SECTION_SHARD: return "shard";
    case BB_SECTION_META: return "meta";
    case BB_SECTION_VIEWS: return "views";
    }
    return "unknown";
}

/* The error for a cursor that ran out inside section `si`. */
static bb_status truncated_in(ctx *c, size_t si, const bb_cursor *cur) {
    return fail(c, BB_ERR_TRUNCATED, cur->fail_at,
                "section %zu (%s) truncated at byte %llu: a structure runs past its end", si,
                kind_name(c->d->secs[si].kind), (unsigned long long)cur->fail_at);
}

/* ---- strings ------------------------------------------------------------------------------- */

/* Read a `str` (u16 length + bytes); if `strict`, invalid UTF-8 is an error. 0 on success, else
 * the status already reported. */
static bb_status read_str(ctx *c, size_t si, bb_cursor *cur, bool strict, const char *what,
                          bb_strview *out) {
    uint16_t n = bb_cursor_u16(cur);
    uint64_t at = bb_cursor_abs(cur);
    const uint8_t *p = bb_cursor_take(cur, n);
    if (!cur->ok) return truncated_in(c, si, cur);
    if (strict && !bb_utf8_valid(p, n))
        return fail(c, BB_ERR_CORRUPT, at, "section %zu (%s): invalid UTF-8 in %s at byte %llu",
                    si, kind_name(c->d->secs[si].kind), what, (unsigned long long)at);
    out->ptr = (const char *)p;
    out->len = n;
    return BB_OK;
}

/* Read an `opt_str`. */
static bb_status read_opt_str(ctx *c, size_t si, bb_cursor *cur, const char *what, bool *has,
                              bb_strview *out) {
    uint8_t present = bb_cursor_u8(cur);
    if (!cur->ok) return truncated_in(c, si, cur);
    *has = present != 0;
    out->ptr = "";
    out->len = 0;
    return *has ? read_str(c, si, cur, true, what, out) : BB_OK;
}

/* ---- schema registry ----------------------------------------------------------------------- */

/* Home slot of an event id in a table of mask+1 slots (ids are hashes already; mix anyway). */
static size_t hash_slot(uint64_t id, size_t mask) {
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdull;
    id ^= id >> 33;
    return (size_t)id & mask;
}

const bb_rschema *bb_dump_find_schema(const bb_dump *d, uint64_t id) {
    if (!d || !d->htab) return NULL;
    for (size_t s = hash_slot(id, d->hmask);; s = (s + 1) & d->hmask) {
        uint32_t v = d->htab[s];
        if (v == 0) return NULL;
        if (d->schemas[v - 1].id == id) return &d->schemas[v - 1];
    }
}

/* Build the id -> schema table (open addressing, at most half full); first of a duplicate id
 * wins. Also run for an absent Schema section, giving an empty table. */
static bb_status build_schema_index(ctx *c) {
    bb_dump *d = c->d;
    size_t cap = 8;
    while (cap < d->nschemas * 2) cap <<= 1;
    d->htab = dump_array(d, cap, sizeof *d->htab);
    if (!d->htab) return fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (schema index)");
    d->hmask = cap - 1;
    for (size_t i = 0; i < d->nschemas; i++) {
        size_t s = hash_slot(d->schemas[i].id, d->hmask);
        for (;; s = (s + 1) & d->hmask) {
            uint32_t v = d->htab[s];
            if (v == 0) {
                d->htab[s] = (uint32_t)(i + 1);
                break;
            }
            if (d->schemas[v - 1].id == d->schemas[i].id) break; /* duplicate id: first wins */
        }
    }
    return BB_OK;
}

/* Enum labels: a field of at most LABEL_SCAN labels is searched linearly. A longer one is
 * allocated with one extra bb_rlabel after its labels whose `label.ptr` points at a u16 array
 * of the label indices sorted by (value, index): bb_decode_field binary-searches it and takes
 * the first label of a value, as the linear search does. bb_decode_field is given schemas the
 * reader decoded (reader.h); a hand-built bb_rfield of more labels would need that index. */
enum { LABEL_SCAN = 16 };

/* Build the sorted index of `n` labels (n > LABEL_SCAN) into labels[n]. */
static bool index_labels(ctx *c, bb_rlabel *labels, size_t n) {
    uint16_t *ix = dump_array(c->d, n, sizeof *ix);
    if (!ix) {
        fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (labels)");
        return false;
    }
    for (size_t k = 0; k < n; k++) ix[k] = (uint16_t)k;
    /* stable bottom-up merge sort by value: ties keep index order */
    uint16_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp) {
        fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (labels)");
        return false;
    }
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                tmp[o++] = labels[ix[j]].value < labels[ix[i]].value ? ix[j++] : ix[i++];
            while (i < mid) tmp[o++] = ix[i++];
            while (j < hi) tmp[o++] = ix[j++];
        }
        memcpy(ix, tmp, n * sizeof *ix);
    }
    free(tmp);
    labels[n].value = n;
    labels[n].label.ptr = (const char *)ix;
    labels[n].label.len = n * sizeof *ix;
    return true;
}

/* Decode one field of event `ev` from the Schema section `si`; rejects unknown type tags, label
 * counts larger than the bytes left, and a field lying outside the event's record. */
static bb_status read_field(ctx *c, size_t si, bb_cursor *cur, const bb_rschema *ev,
                            bb_rfield *f) {
    bb_status st;
    uint64_t at = bb_cursor_abs(cur);
    if ((st = read_str(c, si, cur, true, "a field name", &f->name))) return st;
    if ((st = read_opt_str(c, si, cur, "a field description", &f->has_description,
                           &f->description)))
        return st;
    f->type = bb_cursor_u8(cur);
    if (!cur->ok) return truncated_in(c, si, cur);
    if (f->type > BB_TYPE_INTERNED)
        return fail(c, BB_ERR_CORRUPT, bb_cursor_abs(cur) - 1,
                    "section %zu (schema): unknown type tag %u for field '%.*s' of '%.*s'", si,
                    f->type, (int)f->name.len, f->name.ptr, (int)ev->name.len, ev->name.ptr);
    if (f->type == BB_TYPE_ENUM || f->type == BB_TYPE_INTERNED) f->type_arg = bb_cursor_u8(cur);
    f->offset = bb_cursor_u16(cur);
    f->width = bb_cursor_u16(cur);
    f->role = bb_cursor_u8(cur);
    if (!cur->ok) return truncated_in(c, si, cur);
    if (f->role > BB_ROLE_PARENT_SPAN_ID) f->role = BB_ROLE_NONE;
    if ((st = read_opt_str(c, si, cur, "a unit", &f->has_unit, &f->unit))) return st;
    uint8_t has_sentinel = bb_cursor_u8(cur);
    f->has_sentinel = has_sentinel != 0;
    if (f->has_sentinel) f->sentinel = bb_cursor_u64(cur);
    uint16_t nlabels = bb_cursor_u16(cur);
    if (!cur->ok) return truncated_in(c, si, cur);
    if (nlabels > bb_cursor_left(cur) / MIN_LABEL)
        return fail(c, BB_ERR_BOUNDS, bb_cursor_abs(cur) - 2,
                    "section %zu (schema): label count %u of field '%.*s' exceeds the %zu bytes "
                    "left",
                    si, nlabels, (int)f->name.len, f->name.ptr, bb_cursor_left(cur));
    if (nlabels) {
        /* Past LABEL_SCAN labels the array is followed by its value-sorted index (below). */
        size_t room = nlabels > LABEL_SCAN ? nlabels + 1 : nlabels;
        bb_rlabel *labels = dump_array(c->d, room, sizeof *labels);
        if (!labels) return fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (labels)");
        for (size_t k = 0; k < nlabels; k++) {
            labels[k].value = bb_cursor_u64(cur);
            if ((st = read_str(c, si, cur, true, "an enum label", &labels[k].label))) return st;
        }
        if (nlabels > LABEL_SCAN && !index_labels(c, labels, nlabels)) return BB_ERR_NOMEM;
        f->labels = labels;
    }
    f->label_count = nlabels;
    if ((uint32_t)f->offset + f->width > ev->record_size)
        return fail(c, BB_ERR_CORRUPT, at,
                    "section %zu (schema): field '%.*s' of '%.*s' (offset %u, width %u) lies "
                    "outside its %u-byte record",
                    si, (int)f->name.len, f->name.ptr, (int)ev->name.len, ev->name.ptr,
                    f->offset, f->width, ev->record_size);
    return BB_OK;
}

/* Decode Schema section `si` (the first one) into d->schemas and index it. */
static bb_status read_schema_section(ctx *c, size_t si) {
    bb_dump *d = c->d;
    const section *s = &d->secs[si];
    bb_cursor cur = bb_cursor_make(d->data + s->offset, (size_t)s->len, s->offset);
    uint32_t count = bb_cursor_u32(&cur);
    if (!cur.ok) return truncated_in(c, si, &cur);
    if (count > bb_cursor_left(&cur) / MIN_SCHEMA)
        return fail(c, BB_ERR_BOUNDS, s->offset,
                    "section %zu (schema): event count %u exceeds the %zu bytes left", si, count,
                    bb_cursor_left(&cur));
    d->schemas = dump_array(d, count, sizeof *d->schemas);
    if (!d->schemas) return fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (schemas)");
    bb_status st;
    for (uint32_t i = 0; i < count; i++) {
        bb_rschema *ev = &d->schemas[i];
        ev->id = bb_cursor_u64(&cur);
        if ((st = read_str(c, si, &cur, true, "an event name", &ev->name))) return st;
        if ((st = read_opt_str(c, si, &cur, "an event description", &ev->has_description,
                               &ev->description)))
            return st;
        ev->record_size = bb_cursor_u16(&cur);
        ev->phase = bb_cursor_u8(&cur);
        if (ev->phase > BB_PHASE_EXIT) ev->phase = BB_PHASE_NONE;
        uint16_t nfields = bb_cursor_u16(&cur);
        if (!cur.ok) return truncated_in(c, si, &cur);
        if (nfields > bb_cursor_left(&cur) / MIN_FIELD)
            return fail(c, BB_ERR_BOUNDS, bb_cursor_abs(&cur) - 2,
                        "section %zu (schema): field count %u of '%.*s' exceeds the %zu bytes "
                        "left",
                        si, nfields, (int)ev->name.len, ev->name.ptr, bb_cursor_left(&cur));
        bb_rfield *fields = dump_array(d, nfields, sizeof *fields);
        if (!fields) return fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (fields)");
        for (uint16_t k = 0; k < nfields; k++)
            if ((st = read_field(c, si, &cur, ev, &fields[k]))) return st;
        ev->fields = fields;
        ev->field_count = nfields;
        d->nschemas = i + 1;
    }
    return build_schema_index(c);
}

/* ---- intern, meta, views, shards ----------------------------------------------------------- */

/* What the first pass learns of a per-instance section. */
typedef struct tagged {
    uint64_t instance_id;
    size_t si;       /* section index */
    uint32_t count;  /* intern: entries */
    const uint8_t *body; /* intern: first entry; meta: unused */
    bb_strview host; /* meta */
    bb_rshard shard; /* shard */
} tagged;

/* Validate Intern section `si` (every entry in bounds) and note where its entries start. */
static bb_status scan_intern(ctx *c, size_t si, tagged *t) {
    const section *s = &c->d->secs[si];
    bb_cursor cur = bb_cursor_make(c->d->data + s->offset, (size_t)s->len, s->offset);
    t->instance_id = bb_cursor_u64(&cur);
    t->count = bb_cursor_u32(&cur);
    if (!cur.ok) return truncated_in(c, si, &cur);
    if (t->count > bb_cursor_left(&cur) / MIN_INTERN)
        return fail(c, BB_ERR_BOUNDS, s->offset + 8,
                    "section %zu (intern): entry count %u exceeds the %zu bytes left", si,
                    t->count, bb_cursor_left(&cur));
    t->body = cur.base + cur.pos;
    for (uint32_t i = 0; i < t->count; i++) {
        (void)bb_cursor_u32(&cur);
        uint32_t n = bb_cursor_u32(&cur);
        bb_cursor_take(&cur, n);
        if (!cur.ok) return truncated_in(c, si, &cur);
    }
    return BB_OK;
}

/* Decode Meta section `si`: instance id and host. */
static bb_status scan_meta(ctx *c, size_t si, tagged *t) {
    const section *s = &c->d->secs[si];
    bb_cursor cur = bb_cursor_make(c->d->data + s->offset, (size_t)s->len, s->offset);
    t->instance_id = bb_cursor_u64(&cur);
    if (!cur.ok) return truncated_in(c, si, &cur);
    /* The host is carried raw (rendered lossily), like intern bytes. */
    return read_str(c, si, &cur, false, "the host", &t->host);
}

/* Decode Shard section `si`'s header; the capacity must be a power of two, at most 4 GiB (the
 * model's 4-byte locators), and fit in the section. The head is not constrained: the walk
 * copes with any value. */
static bb_status scan_shard(ctx *c, size_t si, tagged *t) {
    const section *s = &c->d->secs[si];
    bb_cursor cur = bb_cursor_make(c->d->data + s->offset, (size_t)s->len, s->offset);
    bb_rshard *r = &t->shard;
    r->instance_id = t->instance_id = bb_cursor_u64(&cur);
    r->shard_id = bb_cursor_u32(&cur);
    r->head = bb_cursor_u64(&cur);
    r->capacity = bb_cursor_u64(&cur);
    if (!cur.ok) return truncated_in(c, si, &cur);
    if (r->capacity == 0 || (r->capacity & (r->capacity - 1)) != 0)
        return fail(c, BB_ERR_CORRUPT, s->offset + 20,
                    "section %zu (shard): capacity %llu is not a power of two", si,
                    (unsigned long long)r->capacity);
    if (r->capacity > ((uint64_t)1 << 32))
        return fail(c, BB_ERR_TOO_LARGE, s->offset + 20,
                    "section %zu (shard): capacity %llu exceeds the supported 4 GiB", si,
                    (unsigned long long)r->capacity);
    if (r->capacity > bb_cursor_left(&cur))
        return fail(c, BB_ERR_BOUNDS, s->offset + 20,
                    "section %zu (shard): capacity %llu exceeds the %zu bytes left", si,
                    (unsigned long long)r->capacity, bb_cursor_left(&cur));
    r->region = bb_cursor_take(&cur, (size_t)r->capacity);
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
 * sorted; per instance its first Meta host, its shards in file order, and the union of the
 * Intern sections tagged with its id (sorted by id, first entry of an id wins). The tags are
 * grouped by one sort, so this is n log n in the number of sections. */
static bb_status build_instances(ctx *c, tagged *tags, size_t ntags) {
    bb_dump *d = c->d;
    size_t *order = malloc((ntags ? ntags : 1) * sizeof *order);
    if (!order) return fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (instances)");
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
    d->inst = dump_array(d, u, sizeof *d->inst);
    if (!d->inst) {
        free(order);
        return fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (instances)");
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
        bb_rshard *shards = dump_array(d, nshards, sizeof *shards);
        bb_rintern *intern = dump_array(d, nintern, sizeof *intern);
        if (!shards || !intern) {
            free(order);
            return fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (instances)");
        }
        size_t ns = 0, ni = 0;
        for (size_t j = g; j < e; j++) {
            const tagged *t = &tags[order[j]];
            uint16_t k = d->secs[t->si].kind;
            if (k == BB_SECTION_META && !in->has_meta) {
                in->has_meta = true;
                in->host = t->host;
            }
            if (k == BB_SECTION_SHARD) shards[ns++] = t->shard;
            if (k == BB_SECTION_INTERN) {
                const uint8_t *p = t->body; /* bounds were checked by scan_intern */
                for (uint32_t x = 0; x < t->count; x++) {
                    intern[ni].id = bb_le_get_u32(p);
                    uint32_t len = bb_le_get_u32(p + 4);
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

/* ---- envelope ------------------------------------------------------------------------------ */


/* Check magic, version and the section table; every section must lie inside the file. */
static bb_status read_envelope(ctx *c) {
    bb_dump *d = c->d;
    size_t n = d->size;
    if (n == 0) return fail(c, BB_ERR_NOT_DUMP, 0, "not a backbeat dump (empty file)");
    if (memcmp(d->data, BB_DUMP_MAGIC, n < BB_DUMP_MAGIC_SIZE ? n : BB_DUMP_MAGIC_SIZE) != 0)
        return fail(c, BB_ERR_NOT_DUMP, 0, "not a backbeat dump (bad magic)");
    if (n < ENVELOPE)
        return fail(c, BB_ERR_TRUNCATED, n, "truncated at byte %zu (the envelope is 16 bytes)",
                    n);
    d->version = bb_le_get_u16(d->data + 8);
    d->flags = bb_le_get_u16(d->data + 10);
    d->nsec = bb_le_get_u16(d->data + 12);
    if (d->version != BB_DUMP_FORMAT_VERSION)
        return fail(c, BB_ERR_VERSION, 8, "unsupported format version %u (expected 1)",
                    d->version);
    uint64_t table_end = ENVELOPE + (uint64_t)SECTION_ENTRY * d->nsec;
    if (table_end > n)
        return fail(c, BB_ERR_TRUNCATED, n,
                    "truncated at byte %zu (the section table of %u entries ends at byte %llu)",
                    n, d->nsec, (unsigned long long)table_end);
    d->secs = dump_array(d, d->nsec, sizeof *d->secs);
    if (!d->secs) return fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (section table)");
    /* A file cut short looks like its last back-to-back section running past the end: that is
     * reported as truncation; anything else out of range is a bounds error. */
    uint64_t expect = table_end;
    bool contiguous = true;
    for (size_t i = 0; i < d->nsec; i++) {
        const uint8_t *e = d->data + ENVELOPE + SECTION_ENTRY * i;
        section *s = &d->secs[i];
        s->kind = bb_le_get_u16(e);
        s->offset = bb_le_get_u64(e + 4);
        s->len = bb_le_get_u64(e + 12);
        if (s->offset != expect) contiguous = false;
        bool overflow = s->len > UINT64_MAX - s->offset;
        expect = overflow ? UINT64_MAX : s->offset + s->len;
        if (overflow || s->offset + s->len > n) {
            if (!overflow && contiguous && s->offset <= n)
                return fail(c, BB_ERR_TRUNCATED, n,
                            "truncated at byte %zu (section %zu, %s, ends at byte %llu)", n, i,
                            kind_name(s->kind), (unsigned long long)(s->offset + s->len));
            return fail(c, BB_ERR_BOUNDS, ENVELOPE + SECTION_ENTRY * i,
                        "section %zu (%s) out of bounds: offset %llu + length %llu %s the "
                        "file size %zu",
                        i, kind_name(s->kind), (unsigned long long)s->offset,
                        (unsigned long long)s->len, overflow ? "overflows, exceeding" : "exceeds",
                        n);
        }
    }
    return BB_OK;
}

/* Validate and decode the whole dump (envelope, then sections in table order). */
static bb_status decode(ctx *c) {
    bb_dump *d = c->d;
    bb_status st = read_envelope(c);
    if (st) return st;
    tagged *tags = calloc(d->nsec ? d->nsec : 1, sizeof *tags);
    if (!tags) return fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory");
    size_t ntags = 0, nviews = 0;
    bool have_schema = false;
    for (size_t i = 0; i < d->nsec && !st; i++) {
        switch (d->secs[i].kind) {
        case BB_SECTION_SCHEMA:
            if (!have_schema) st = read_schema_section(c, i);
            have_schema = true;
            break;
        case BB_SECTION_INTERN:
            tags[ntags].si = i;
            st = scan_intern(c, i, &tags[ntags++]);
            break;
        case BB_SECTION_META:
            tags[ntags].si = i;
            st = scan_meta(c, i, &tags[ntags++]);
            break;
        case BB_SECTION_SHARD:
            tags[ntags].si = i;
            st = scan_shard(c, i, &tags[ntags++]);
            break;
        case BB_SECTION_VIEWS: nviews++; break;
        default: break; /* unknown kinds are skipped: that is how the format grows */
        }
    }
    if (!st && !have_schema) st = build_schema_index(c); /* empty registry */
    if (!st) st = build_instances(c, tags, ntags);
    free(tags);
    if (st) return st;
    d->views = dump_array(d, nviews, sizeof *d->views);
    if (!d->views) return fail(c, BB_ERR_NOMEM, UINT64_MAX, "out of memory (views)");
    for (size_t i = 0; i < d->nsec; i++) {
        if (d->secs[i].kind != BB_SECTION_VIEWS) continue;
        d->views[d->nviews].ptr = (const char *)d->data + d->secs[i].offset;
        d->views[d->nviews].len = (size_t)d->secs[i].len;
        d->nviews++;
    }
    return BB_OK;
}

/* ---- open / close -------------------------------------------------------------------------- */

/* An empty dump named `name` (copied), or NULL on allocation failure. */
static bb_dump *dump_new(const char *name) {
    bb_dump *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->name = strdup(name ? name : "<memory>");
    if (!d->name) {
        free(d);
        return NULL;
    }
    return d;
}

/* Fill `err` (may be NULL) with "NAME: what" when no dump exists yet to format through. */
static void set_error(bb_error *err, bb_status st, const char *name, const char *what) {
    bb__err_set(err, st, UINT64_MAX, name ? name : "<memory>", "%s", what);
}

/* Decode `d`; on success hand it out (and clear `err`), else close it. */
static bb_status finish_open(bb_dump *d, bb_dump **out, bb_error *err) {
    ctx c = {d, err};
    bb_status st = decode(&c);
    if (st) {
        bb_dump_close(d);
        return st;
    }
    bb__err_clear(err);
    *out = d;
    return BB_OK;
}

bb_status bb_dump_open_memory(const void *data, size_t len, const char *name, bb_dump **out,
                              bb_error *err) {
    if (!out || (!data && len)) {
        set_error(err, BB_ERR_INVALID, name, "invalid argument");
        return BB_ERR_INVALID;
    }
    *out = NULL;
    bb_dump *d = dump_new(name);
    if (!d) {
        set_error(err, BB_ERR_NOMEM, name, "out of memory");
        return BB_ERR_NOMEM;
    }
    d->data = data ? data : (const uint8_t *)"";
    d->size = len;
    return finish_open(d, out, err);
}

bb_status bb_dump_open(const char *path, bb_dump **out, bb_error *err) {
    if (!out || !path) {
        set_error(err, BB_ERR_INVALID, path, "invalid argument");
        return BB_ERR_INVALID;
    }
    *out = NULL;
    char msg[200];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(msg, sizeof msg, "cannot open: %s", strerror(errno));
        set_error(err, BB_ERR_IO, path, msg);
        return BB_ERR_IO;
    }
    struct stat sb;
    int stat_rc = fstat(fd, &sb);
    if (stat_rc != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(msg, sizeof msg, "cannot read: %s",
                 stat_rc != 0 ? strerror(errno) : "not a regular file");
        close(fd);
        set_error(err, BB_ERR_IO, path, msg);
        return BB_ERR_IO;
    }
    if ((uint64_t)sb.st_size > SIZE_MAX) {
        close(fd);
        set_error(err, BB_ERR_TOO_LARGE, path, "file too large to map");
        return BB_ERR_TOO_LARGE;
    }
    size_t size = (size_t)sb.st_size;
    void *map = NULL;
    if (size > 0) {
        map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            snprintf(msg, sizeof msg, "cannot map: %s", strerror(errno));
            close(fd);
            set_error(err, BB_ERR_IO, path, msg);
            return BB_ERR_IO;
        }
    }
    close(fd);
    bb_dump *d = dump_new(path);
    if (!d) {
        if (map) munmap(map, size);
        set_error(err, BB_ERR_NOMEM, path, "out of memory");
        return BB_ERR_NOMEM;
    }
    d->map = map;
    d->map_len = size;
    d->data = map ? map : (const uint8_t *)"";
    d->size = size;
    return finish_open(d, out, err);
}

void bb_dump_close(bb_dump *d) {
    if (!d) return;
    for (alloc_link *l = d->allocs; l;) {
        alloc_link *next = l->next;
        free(l);
        l = next;
    }
    if (d->map) munmap(d->map, d->map_len);
    free(d->name);
    free(d);
}

/* ---- accessors ----------------------------------------------------------------------------- */

const char *bb_dump_name(const bb_dump *d) { return d->name; }
uint64_t bb_dump_file_size(const bb_dump *d) { return d->size; }
uint16_t bb_dump_format_version(const bb_dump *d) { return d->version; }
uint16_t bb_dump_flags(const bb_dump *d) { return d->flags; }
uint16_t bb_dump_section_count(const bb_dump *d) { return d->nsec; }

void bb_dump_section(const bb_dump *d, size_t i, uint16_t *kind, uint64_t *offset,
                     uint64_t *len) {
    section s = {0xFFFF, 0, 0};
    if (i < d->nsec) s = d->secs[i];
    if (kind) *kind = s.kind;
    if (offset) *offset = s.offset;
    if (len) *len = s.len;
}

size_t bb_dump_schema_count(const bb_dump *d) { return d->nschemas; }
const bb_rschema *bb_dump_schema(const bb_dump *d, size_t i) {
    return i < d->nschemas ? &d->schemas[i] : NULL;
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

/* ---- rings --------------------------------------------------------------------------------- */

void bb_ring_copy(const bb_rshard *s, uint64_t pos, void *dst, size_t n) {
    size_t mask = (size_t)(s->capacity - 1);
    size_t at = (size_t)pos & mask;
    size_t first = (size_t)s->capacity - at;
    if (first >= n) {
        memcpy(dst, s->region + at, n);
    } else {
        memcpy(dst, s->region + at, first);
        memcpy((uint8_t *)dst + first, s->region, n - first);
    }
}

/* Little-endian u16 / u64 at absolute ring position `pos`, wrapping. */
static inline uint16_t ring_u16(const bb_rshard *s, uint64_t pos) {
    size_t mask = (size_t)(s->capacity - 1), at = (size_t)pos & mask;
    if (at + 2 <= s->capacity) return bb_le_get_u16(s->region + at);
    return (uint16_t)(s->region[at] | (s->region[(at + 1) & mask] << 8));
}

static inline uint64_t ring_u64(const bb_rshard *s, uint64_t pos) {
    size_t at = (size_t)pos & (size_t)(s->capacity - 1);
    if (at + 8 <= s->capacity) return bb_le_get_u64(s->region + at);
    uint8_t b[8];
    bb_ring_copy(s, pos, b, 8);
    return bb_le_get_u64(b);
}

/* Fill `rec` for an accepted payload of `len` bytes at absolute `start`; copies a payload that
 * straddles the physical end into `buf` (>= len bytes). */
static void make_record(const bb_rshard *s, const bb_rschema *ev, uint64_t start, size_t len,
                        uint8_t *buf, bb_record *rec) {
    size_t at = (size_t)start & (size_t)(s->capacity - 1);
    rec->ts = ring_u64(s, start + BB__FRAME_TS);
    rec->event_id = ev->id;
    rec->schema = ev;
    rec->instance_id = s->instance_id;
    rec->shard_id = s->shard_id;
    rec->position = start;
    if (at + len <= s->capacity) {
        rec->fields = s->region + at + BB__FRAME_HEAD;
        rec->offset = (uint32_t)at;
    } else {
        bb_ring_copy(s, start, buf, len);
        rec->fields = buf + BB__FRAME_HEAD;
        rec->offset = 0xFFFFFFFFu;
    }
}

bool bb_ring_record_at(const bb_dump *d, const bb_rshard *s, uint64_t pos, uint8_t *buf,
                       const bb_rschema **hint, bb_record *out) {
    uint64_t id = ring_u64(s, pos + BB__FRAME_ID);
    const bb_rschema *ev = hint && *hint && (*hint)->id == id ? *hint : bb_dump_find_schema(d, id);
    if (!ev) return false;
    if (hint) *hint = ev;
    make_record(s, ev, pos, BB__FRAME_HEAD + (size_t)ev->record_size, buf, out);
    return true;
}

/* Lowest absolute position `a` >= low such that the ring bytes [a, pos) are all zero (the
 * caller knows pos-1 and pos-2 are). Scans backwards a word at a time, wrapping at the
 * physical start of the region. */
static uint64_t zero_run_start(const bb_rshard *s, uint64_t pos, uint64_t low) {
    const size_t mask = (size_t)(s->capacity - 1);
    while (pos > low) {
        size_t at = (size_t)((pos - 1) & mask) + 1; /* physical end (exclusive) of this piece */
        uint64_t piece = pos - low < at ? pos - low : at;
        const uint8_t *p = s->region + at; /* scan down from p - 1 to p - piece */
        uint64_t k = 0;
        while (k < piece && ((uintptr_t)(p - k) & 7) != 0) {
            if (p[-1 - (ptrdiff_t)k]) return pos - k;
            k++;
        }
        while (k + 8 <= piece) {
            uint64_t word;
            memcpy(&word, p - k - 8, 8);
            if (word) break;
            k += 8;
        }
        for (; k < piece; k++)
            if (p[-1 - (ptrdiff_t)k]) return pos - k;
        pos -= piece;
    }
    return low;
}

void bb_shard_walk(const bb_dump *d, const bb_rshard *s, bb_record_fn fn, void *ctx,
                   bb_walk_stats *stats) {
    bb_walk_stats st = {0, 0};
    if (!d || !s || !s->region || s->capacity == 0 || (s->capacity & (s->capacity - 1))) {
        if (stats) *stats = st;
        return;
    }
    const uint64_t low = bb_shard_low(s);
    uint64_t pos = s->head, accepted = 0;
    uint8_t *buf = NULL; /* holds the one wrapping payload */
    const bb_rschema *last = NULL; /* schema of the last accepted record: a lookup cache */
    bool stopped = false;
    /* pos only decreases and never drops below low, so this runs at most capacity times. */
    while (pos - low >= 2) {
        uint64_t len = ring_u16(s, pos - BB__FRAME_TRAILER);
        if (len == 0) {
            /* Both trailer bytes are zero, and so for every pos down to one past the start
             * of this run of zero bytes: each of those positions would be rejected the same
             * way one at a time (len 0 < BB__FRAME_HEAD). Jump to the first one that is not. */
            pos = zero_run_start(s, pos, low) + 1;
            continue;
        }
        if (len + BB__FRAME_TRAILER > pos - low || len < BB__FRAME_HEAD) {
            pos--;
            continue;
        }
        uint64_t start = pos - BB__FRAME_TRAILER - len;
        uint64_t id = ring_u64(s, start + BB__FRAME_ID);
        const bb_rschema *ev = last && last->id == id ? last : bb_dump_find_schema(d, id);
        if (!ev || len != BB__FRAME_HEAD + (uint64_t)ev->record_size) {
            pos--;
            continue;
        }
        size_t at = (size_t)start & (size_t)(s->capacity - 1);
        if (at + len > s->capacity && !buf) {
            buf = malloc(65536);
            if (!buf) { /* cannot reassemble: treat as unreadable */
                pos--;
                continue;
            }
        }
        last = ev;
        bb_record rec;
        make_record(s, ev, start, (size_t)len, buf, &rec);
        st.records++;
        accepted += len + BB__FRAME_TRAILER;
        pos = start;
        if (fn && fn(&rec, ctx)) {
            stopped = true;
            break;
        }
    }
    free(buf);
    /* Bytes of the window walked over without being part of an accepted record. */
    st.skipped_bytes = (s->head - pos) - accepted + (stopped ? 0 : pos - low);
    if (stats) *stats = st;
}

/* ---- field decoding ------------------------------------------------------------------------ */

/* Contract: see reader.h. The one place that says what padding is. */
bool bb_rfield_is_padding(const bb_rfield *field) {
    return field && field->role == BB_ROLE_NONE && field->name.len >= 4 &&
           memcmp(field->name.ptr, "_pad", 4) == 0;
}

bb_value bb_decode_field(const bb_rschema *schema, size_t fi, const uint8_t *fields,
                         const bb_rinstance *inst) {
    bb_value v = {.kind = BB_VALUE_ABSENT, .str = {"", 0}};
    if (!schema || fi >= schema->field_count || !fields) return v; /* ABSENT */
    const bb_rfield *f = &schema->fields[fi];
    const uint8_t *p = fields + f->offset;
    size_t w = f->width < 8 ? f->width : 8;
    uint64_t raw;
    switch (w) { /* little-endian image of the field, zero-extended */
    case 1: raw = p[0]; break;
    case 2: raw = bb_le_get_u16(p); break;
    case 4: raw = bb_le_get_u32(p); break;
    case 8: raw = bb_le_get_u64(p); break;
    default: raw = bb_le_get_uw(p, (unsigned)w);
    }
    if (f->has_sentinel && f->width <= 8 && raw == f->sentinel) return v; /* ABSENT */
    switch (f->type) {
    case BB_TYPE_U8:
    case BB_TYPE_U16:
    case BB_TYPE_U32:
    case BB_TYPE_U64:
        v.kind = BB_VALUE_UINT;
        v.u = raw;
        break;
    case BB_TYPE_I8:
    case BB_TYPE_I16:
    case BB_TYPE_I32:
    case BB_TYPE_I64:
        v.kind = BB_VALUE_INT;
        if (w > 0 && w < 8 && (raw >> (8 * w - 1)) & 1) raw |= ~(uint64_t)0 << (8 * w);
        v.i = (int64_t)raw;
        break;
    case BB_TYPE_BOOL:
        v.kind = BB_VALUE_BOOL;
        for (size_t k = 0; k < f->width; k++)
            if (p[k]) v.b = true;
        break;
    case BB_TYPE_BYTES:
        v.kind = BB_VALUE_BYTES;
        v.bytes = p;
        v.bytes_len = f->width;
        break;
    case BB_TYPE_ENUM:
        v.kind = BB_VALUE_ENUM;
        v.u = raw;
        if (f->label_count > LABEL_SCAN) { /* the sorted index after the labels */
            const uint16_t *ix = (const uint16_t *)(const void *)f->labels[f->label_count].label.ptr;
            size_t lo = 0, hi = f->label_count;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (f->labels[ix[mid]].value < raw) lo = mid + 1;
                else hi = mid;
            }
            if (lo < f->label_count && f->labels[ix[lo]].value == raw) {
                v.has_label = true;
                v.str = f->labels[ix[lo]].label;
            }
            break;
        }
        for (size_t k = 0; k < f->label_count; k++)
            if (f->labels[k].value == raw) {
                v.has_label = true;
                v.str = f->labels[k].label;
                break;
            }
        break;
    case BB_TYPE_INTERNED:
        v.kind = BB_VALUE_STRING;
        v.u = (uint32_t)raw;
        if (inst) { /* binary search, inline: keeps v out of memory */
            size_t lo = 0, hi = inst->intern_count;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (inst->intern[mid].id < (uint32_t)raw) lo = mid + 1;
                else hi = mid;
            }
            if (lo < inst->intern_count && inst->intern[lo].id == (uint32_t)raw) {
                v.has_label = true;
                v.str = inst->intern[lo].bytes;
            }
        }
        break;
    default: break;
    }
    return v;
}
