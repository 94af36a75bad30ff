/* sections.h — the one encoder of the `.bb` wire layout (FORMAT.md, format v1):
 * envelope, section table, and the bodies of Schema, Intern, Shard (header) and Meta sections.
 *
 * Every writer of `.bb` bytes goes through these functions: bb_dump_write (one instance, from
 * program descriptors), a ring file's snapshot (read/ring_dump.c), `backbeat merge` (many
 * instances, from decoded dumps) and the dataset's schema dump. Each caller adapts its own
 * representation to the neutral bb_wire_* descriptions below, so the byte layout, and the size
 * of each piece, is defined in one place; so is the section table (bb__table, the one builder
 * of every writer's table) and the reference order of one instance's sections.
 *
 * The encoders neither validate nor allocate: inputs must already satisfy the format's limits
 * (strings <= 65535 bytes, at most 65535 sections, ...). Output goes to a bb__sink (format/sink.h);
 * each function
 * returns 0, or the first non-zero value the sink returned (it then stops writing). Everything
 * here is async-signal-safe when the sink is.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_DUMP_SECTIONS_H
#define BACKBEAT_DUMP_SECTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "format/sink.h"
#include "format/wire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A string as encoded: `len` bytes at `ptr` (need not be NUL-terminated). `present` is read
 * only where the format has an `opt_str` (0 writes the absent marker, ptr/len ignored). */
typedef struct bb__wire_str {
    const char *ptr;
    uint16_t len;
    uint8_t present;
} bb__wire_str;

/* One schema entry's event-level part; `field_count` bb__wire_field follow it. */
typedef struct bb__wire_event {
    uint64_t id;
    bb__wire_str name;        /* str */
    bb__wire_str description; /* opt_str */
    uint16_t record_size;
    uint8_t phase;
    uint16_t field_count;
} bb__wire_event;

/* One field of a schema entry; `label_count` labels (bb__enc_schema_label) follow it. */
typedef struct bb__wire_field {
    bb__wire_str name;        /* str */
    bb__wire_str description; /* opt_str */
    bb__wire_str unit;        /* opt_str */
    uint64_t sentinel;        /* written only when has_sentinel */
    uint16_t offset;
    uint16_t width;
    uint16_t label_count;
    uint8_t type; /* the type-arg byte is written for BB_TYPE_ENUM and BB_TYPE_INTERNED */
    uint8_t type_arg;
    uint8_t role;
    uint8_t has_sentinel; /* 0 or 1 */
} bb__wire_field;

/* The OS process of an instance (the Process section, docs/PROCESS_SECTION.md). */
typedef struct bb__wire_process {
    uint64_t pid;         /* the OS process id (never 0: no section is written when unknown) */
    uint64_t start_ns;    /* CLOCK_REALTIME when the instance's recorder was made; 0 = unknown */
    bb__wire_str program; /* the program's short name; "" = unknown */
} bb__wire_process;

/* A section as placed in a dump: kind and body length in, offset filled by bb__sections_layout. */
typedef struct bb__section_ref {
    uint16_t kind;
    uint64_t len;
    uint64_t offset;
} bb__section_ref;

/* ---- envelope and section table */

/* Offset of the first section body in a dump of `section_count` sections. */
uint64_t bb__dump_body_start(size_t section_count);

/* Write the 16-byte envelope for `section_count` sections. */
int bb__enc_envelope(bb__sink sink, uint16_t section_count);

/* Write one 20-byte section table entry. */
int bb__enc_section_entry(bb__sink sink, uint16_t kind, uint64_t offset, uint64_t len);

/* The section table as it is built, the one builder of every writer's table: `count` sections
 * announced, then added in table order, each body placed right after the previous one from
 * bb__dump_body_start(count) (FORMAT.md). With a sink, the envelope and each entry are written
 * as they are added (nothing stored: the dump writer streams it); with no sink (write NULL)
 * only the offsets and the size are computed. No allocation. */
typedef struct bb__table {
    bb__sink sink;
    size_t count; /* sections announced */
    size_t added;
    uint64_t next; /* offset of the next body = the dump's size so far */
    int rc;        /* the sink's first failure (nothing is written after it) */
    int invalid;   /* count > 65535, more sections added than announced, or size past 2^64 */
} bb__table;

void bb__table_begin(bb__table *t, bb__sink sink, size_t count);
/* Add a section of `len` body bytes; returns its body's offset. */
uint64_t bb__table_add(bb__table *t, uint16_t kind, uint64_t len);
/* The dump's total size when exactly `count` sections were added, none invalid and the sink
 * took every byte; else 0 (t->rc says whether the sink failed). */
uint64_t bb__table_end(const bb__table *t);

/* The table over an array: lay `n` sections out (fills each `offset`) and return the dump's
 * total size (0 when n > 65535 or the size passes 2^64). */
uint64_t bb__sections_layout(bb__section_ref *secs, size_t n);
/* Write the envelope and the table of `n` (<= 65535) sections laid out by bb__sections_layout;
 * EINVAL (nothing written) when they cannot be. */
int bb__enc_header(bb__sink sink, const bb__section_ref *secs, size_t n);

/* One instance's dump in the reference order (FORMAT.md), as bb_dump_write and a ring file's
 * snapshot write it: Schema, Intern, one Views per view set, one Shard per ring, Meta; then,
 * when process_len is not 0, backbeat's Process section (after everything the reference
 * writes, so a v1 reader sees the reference's sections in the reference's order). With
 * `intern_last` the Intern section comes after the Shards instead (FORMAT.md: readers use the
 * table's offsets, whatever the order). */
typedef struct bb__instance_shape {
    uint64_t schema_len;
    uint64_t intern_len;
    uint64_t meta_len;
    size_t view_count;
    uint32_t shard_count;
    uint64_t process_len; /* 0: no Process section */
    int intern_last;      /* 1: Intern after the Shards (a live recorder's exact Intern, whose ids
                        are known once its rings are written; readers go by the table) */
    uint64_t (*view_len)(const void *ctx, size_t i);         /* Views section i's bytes */
    uint64_t (*shard_capacity)(const void *ctx, uint32_t i); /* ring i's region bytes */
    const void *ctx;
} bb__instance_shape;

/* Its section count: 3 + view_count + shard_count (+ 1 with a Process section; may pass
 * 65535: bb__table_end says 0). */
size_t bb__instance_section_count(const bb__instance_shape *s);
/* Begin `t` over `sink` and add the instance's sections; bb__table_end gives the total. */
void bb__table_instance(bb__table *t, bb__sink sink, const bb__instance_shape *s);

/* ---- Schema section: bb__enc_schema_count, then per event bb__enc_schema_event, then per field
 * bb__enc_schema_field followed by its labels. */

/* Encoded sizes of the pieces below. */
uint64_t bb__wire_event_size(const bb__wire_event *ev); /* without its fields */
uint64_t bb__wire_field_size(const bb__wire_field *f);  /* without its labels */
uint64_t bb__wire_label_size(bb__wire_str label);

int bb__enc_schema_count(bb__sink sink, uint32_t count);
int bb__enc_schema_event(bb__sink sink, const bb__wire_event *ev);
int bb__enc_schema_field(bb__sink sink, const bb__wire_field *f);
int bb__enc_schema_label(bb__sink sink, uint64_t value, bb__wire_str label);

/* One schema entry re-encoded from its decoded form (backbeat/reader.h's bb_rschema: a
 * dump's or a model's): the event, its fields and their labels. For the writers of `.bb` from
 * decoded dumps (merge, the dataset's schema dump); bb_dump_write encodes descriptors. */
struct bb_rschema;
int bb__enc_schema_decoded(bb__sink sink, const struct bb_rschema *s);

/* ---- Intern section: the header, then per entry its 8-byte header and `len` bytes. */

int bb__enc_intern_header(bb__sink sink, uint64_t instance_id, uint32_t count);
int bb__enc_intern_entry(bb__sink sink, uint32_t id, uint32_t len, const void *bytes);

/* ---- Shard section: the 28-byte header; `capacity` bytes of ring region follow it. */

int bb__enc_shard_header(bb__sink sink, uint64_t instance_id, uint32_t shard_id, uint64_t head,
                         uint64_t capacity);

/* ---- Meta section (the whole body). Views bodies are verbatim text: no encoder needed. */

uint64_t bb__wire_meta_size(bb__wire_str host);
int bb__enc_meta(bb__sink sink, uint64_t instance_id, bb__wire_str host);

/* ---- Process section (the whole body; backbeat's extension, docs/PROCESS_SECTION.md). */

uint64_t bb__wire_process_size(const bb__wire_process *p);
int bb__enc_process(bb__sink sink, uint64_t instance_id, const bb__wire_process *p);

#ifdef __cplusplus
}
#endif

#endif /* BACKBEAT_DUMP_SECTIONS_H */
