/* reader_internal.h — what the phases of the dump reader share (read/reader*.c): the bb_dump
 * structure, the decoding context, allocation owned by the dump, error reporting, strings,
 * and each phase's entry point. Not part of the API; hidden.
 *
 *   reader_base.c       allocation owned by the dump, errors, strings (below all the others)
 *   reader.c            envelope and section table, the decode driver, open / close, accessors
 *   reader_registry.c   the Schema section: events, fields, labels, the id index
 *   reader_instances.c  Intern, Meta and Shard sections gathered into instances; views
 *   reader_shards.c     rings: record reconstruction and the newest-first walk
 *   reader_fields.c     bb_decode_field
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_READ_READER_INTERNAL_H
#define BB_READ_READER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/reader.h"
#include "format/wire.h"
#include "read/read_cursor.h"

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

/* Enum labels: a field of at most LABEL_SCAN labels is searched linearly. A longer one is
 * allocated with one extra bb_rlabel after its labels whose `label.ptr` points at a u16 array
 * of the label indices sorted by (value, index): bb_decode_field binary-searches it and takes
 * the first label of a value, as the linear search does. bb_decode_field is given schemas the
 * reader decoded (reader.h); a hand-built bb_rfield of more labels would need that index. */
enum { LABEL_SCAN = 16 };

typedef struct ctx {
    bb_dump *d;
    bb_error *err;
} ctx;

/* What the first pass learns of a per-instance section. */
typedef struct tagged {
    uint64_t instance_id;
    size_t si;              /* section index */
    uint32_t count;         /* intern: entries */
    const uint8_t *body;    /* intern: first entry; meta: unused */
    bb_strview host;        /* meta */
    bb_rshard shard;        /* shard */
    uint64_t pid, start_ns; /* process (pid 0: a section that names none, ignored) */
    bb_strview program;     /* process */
} tagged;

/* ---- reader_base.c ---- */

/* Zeroed block of `n` bytes freed with the dump; NULL on failure. */
void *bb__rd_alloc(bb_dump *d, size_t n);
/* Zeroed array of `n` elements of `size` bytes, with overflow check. */
void *bb__rd_array(bb_dump *d, size_t n, size_t size);
/* Fill the error (if any) with "NAME: <message>" and return `st`. */
bb_status bb__rd_fail(ctx *c, bb_status st, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The error for a cursor that ran out inside section `si`. */
bb_status bb__rd_truncated_in(ctx *c, size_t si, const bb__read_cursor *cur);
/* Read a `str` (u16 length + bytes); if `strict`, invalid UTF-8 is an error. 0 on success, else
 * the status already reported. */
bb_status bb__rd_str(ctx *c, size_t si, bb__read_cursor *cur, bool strict, const char *what,
                     bb_strview *out);
/* An optional string (u8 presence flag, then a `str` when present). */
bb_status bb__rd_opt_str(ctx *c, size_t si, bb__read_cursor *cur, const char *what, bool *has,
                         bb_strview *out);

/* ---- reader_registry.c ---- */

/* Decode Schema section `si` into the dump's registry, and index it. */
bb_status bb__rd_schema_section(ctx *c, size_t si);
/* The id index over the registry (also for a dump without a Schema section: empty). */
bb_status bb__rd_schema_index(ctx *c);

/* ---- reader_instances.c ---- */

/* First pass over an Intern / Meta / Shard section: validate it and note it in *t. */
bb_status bb__rd_scan_intern(ctx *c, size_t si, tagged *t);
bb_status bb__rd_scan_meta(ctx *c, size_t si, tagged *t);
bb_status bb__rd_scan_process(ctx *c, size_t si, tagged *t); /* never fails */
bb_status bb__rd_scan_shard(ctx *c, size_t si, tagged *t);
/* Gather the noted sections into the dump's instances. */
bb_status bb__rd_instances(ctx *c, tagged *tags, size_t ntags);

#endif /* BB_READ_READER_INTERNAL_H */
