/* backbeat/reader.h — bounds-checked reader of `.bb` dumps (FORMAT.md, format v1).
 *
 * bb_dump_open memory-maps a file (or wraps a caller's buffer), validates the envelope and
 * decodes every known section up front; unknown section kinds are skipped. Every read is
 * bounds-checked and every count is checked against the bytes left before anything is
 * allocated: a truncated or corrupt input yields an error value, never a crash or a hang.
 *
 * All structures returned are owned by the bb_dump and valid until bb_dump_close. Strings are
 * views into the mapping (NOT NUL-terminated): use ptr/len.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_READER_H
#define BACKBEAT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "schema.h"
#include "detail/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bb_strview {
    const char *ptr;
    size_t len;
} bb_strview;

typedef struct bb_rlabel {
    uint64_t value;
    bb_strview label;
} bb_rlabel;

/* A field as decoded from the Schema section. */
typedef struct bb_rfield {
    bb_strview name;
    bb_strview description; /* valid if has_description */
    bb_strview unit;        /* valid if has_unit */
    bool has_description;
    bool has_unit;
    bool has_sentinel;
    uint8_t type;     /* enum bb_type */
    uint8_t type_arg; /* enum repr / interned dynamic flag */
    uint8_t role;     /* enum bb_role (unknown wire values read as NONE) */
    uint16_t offset;
    uint16_t width;
    uint64_t sentinel;
    size_t label_count;
    const bb_rlabel *labels;
} bb_rfield;

/* An event schema as decoded from the Schema section. */
typedef struct bb_rschema {
    uint64_t id;
    bb_strview name; /* qualified */
    bb_strview description;
    bool has_description;
    uint16_t record_size;
    uint8_t phase; /* enum bb_phase (unknown read as NONE) */
    size_t field_count;
    const bb_rfield *fields;
} bb_rschema;

typedef struct bb_rintern {
    uint32_t id;
    bb_strview bytes; /* raw bytes, may be invalid UTF-8 */
} bb_rintern;

/* One ring as found in a Shard section. */
typedef struct bb_rshard {
    uint64_t instance_id;
    uint32_t shard_id;
    uint64_t head;
    uint64_t capacity;     /* power of two (validated) */
    const uint8_t *region; /* capacity bytes, in the mapping */
} bb_rshard;

/* An instance: any id found in a Meta or Shard section (FORMAT.md "What the reader does"). */
typedef struct bb_rinstance {
    uint64_t instance_id;
    bb_strview host; /* "" when there is no Meta section */
    bool has_meta;
    size_t intern_count;
    const bb_rintern *intern; /* sorted by id */
    size_t shard_count;
    const bb_rshard *shards; /* file order */
    /* The OS process (backbeat's Process section, docs/PROCESS_SECTION.md; the reference's dumps
     * have none): has_process false means the pid is unknown, never pid 0. */
    bool has_process;
    uint64_t pid;
    uint64_t start_ns;  /* CLOCK_REALTIME when its recorder was made; 0 = unknown */
    bb_strview program; /* the program's short name; "" = unknown */
} bb_rinstance;

typedef struct bb_dump bb_dump;

/* Open and fully validate `path` (mmap). On error returns non-OK, *out is NULL, and `err` names
 * the file, the problem and the offset. */
BB_API bb_status bb_dump_open(const char *path, bb_dump **out, bb_error *err);

/* As bb_dump_open over a caller-owned buffer that must outlive the dump. `name` is used in
 * messages. */
BB_API bb_status bb_dump_open_memory(const void *data, size_t len, const char *name, bb_dump **out,
                                     bb_error *err);

BB_API void bb_dump_close(bb_dump *dump);

/* Envelope. */
BB_API const char *bb_dump_name(const bb_dump *dump);
BB_API uint64_t bb_dump_file_size(const bb_dump *dump);
BB_API uint16_t bb_dump_format_version(const bb_dump *dump);
BB_API uint16_t bb_dump_flags(const bb_dump *dump);
BB_API uint16_t bb_dump_section_count(const bb_dump *dump);
/* Section table entry i (kind, offset, len). */
BB_API void bb_dump_section(const bb_dump *dump, size_t i, uint16_t *kind, uint64_t *offset,
                            uint64_t *len);

/* Registry (the first Schema section), in file order. */
BB_API size_t bb_dump_schema_count(const bb_dump *dump);
BB_API const bb_rschema *bb_dump_schema(const bb_dump *dump, size_t i);
/* Lookup by event id; NULL if not registered. O(1) expected. */
BB_API const bb_rschema *bb_dump_find_schema(const bb_dump *dump, uint64_t id);

/* Instances, sorted by instance id. */
BB_API size_t bb_dump_instance_count(const bb_dump *dump);
BB_API const bb_rinstance *bb_dump_instance(const bb_dump *dump, size_t i);
BB_API const bb_rinstance *bb_dump_find_instance(const bb_dump *dump, uint64_t instance_id);

/* Views sections, in file order. */
BB_API size_t bb_dump_view_count(const bb_dump *dump);
BB_API bb_strview bb_dump_view(const bb_dump *dump, size_t i);

/* Resolve an intern id in an instance's table; false if missing. */
BB_API bool bb_rinstance_intern(const bb_rinstance *inst, uint32_t id, bb_strview *out);

/* A record recovered from a ring. */
typedef struct bb_record {
    uint64_t ts;
    uint64_t event_id;
    const bb_rschema *schema;
    const uint8_t *fields; /* record_size bytes; for the one record that wraps, a copy held by
                               the walker (valid until the next record is produced) */
    uint64_t instance_id;
    uint32_t shard_id;
    uint32_t offset;   /* physical offset of the payload in the region; 0xFFFFFFFF if it
                               wraps past the end */
    uint64_t position; /* absolute position of the payload start (head-relative) */
} bb_record;

/* Per-shard walk statistics. */
typedef struct bb_walk_stats {
    uint64_t records;       /* accepted */
    uint64_t skipped_bytes; /* bytes stepped over as torn or unknown inside the valid window */
} bb_walk_stats;

/* Walk one ring newest-first (FORMAT.md "Records and rings"), calling `fn` for each accepted
 * record; stop early if `fn` returns non-zero. `stats` may be NULL. */
typedef int (*bb_record_fn)(const bb_record *rec, void *ctx);
BB_API void bb_shard_walk(const bb_dump *dump, const bb_rshard *shard, bb_record_fn fn, void *ctx,
                          bb_walk_stats *stats);

/* Decoded field value. */
typedef enum bb_value_kind {
    BB_VALUE_ABSENT = 0, /* equals its sentinel */
    BB_VALUE_UINT,       /* u8..u64 */
    BB_VALUE_INT,        /* i8..i64 */
    BB_VALUE_BOOL,
    BB_VALUE_BYTES, /* raw bytes in .bytes (render as lower-case hex) */
    BB_VALUE_ENUM,  /* .u = raw; .str = label if .has_label */
    BB_VALUE_STRING /* interned: .str = bytes (may be invalid UTF-8) if .has_label, else
                            missing id .u */
} bb_value_kind;

typedef struct bb_value {
    bb_value_kind kind;
    bool b;
    bool has_label; /* ENUM: a label matched; STRING: the id resolved */
    uint64_t u;     /* UINT, ENUM raw, STRING id */
    int64_t i;      /* INT */
    bb_strview str; /* ENUM label / STRING text */
    const uint8_t *bytes;
    size_t bytes_len;
} bb_value;

/* Decode field `fi` of `schema` from a record's field bytes, resolving interned ids through
 * `inst` (may be NULL: ids then stay unresolved). */
BB_API bb_value bb_decode_field(const bb_rschema *schema, size_t fi, const uint8_t *fields,
                                const bb_rinstance *inst);

/* True if `field` is padding: role none and a name that starts with "_pad" (`_pad`, `_pad2`,
 * `_padding`...), the explicit filler event.h's layout check asks for. Padding is recorded and
 * kept in the schema, but is not data: converters leave it out of Parquet columns and trace args,
 * and `backbeat inspect` lists it as padding. */
BB_API bool bb_rfield_is_padding(const bb_rfield *field);

/* UTF-8 helpers (utf8.c). Schema strings are validated strictly; intern bytes, hosts and view
 * texts are carried raw and rendered lossily: each maximal invalid subpart (Unicode recommended
 * practice) becomes one U+FFFD, so `ff fe 78` renders as U+FFFD U+FFFD "x". */

/* True if `len` bytes at `data` are well-formed UTF-8. */
BB_API bool bb_utf8_valid(const void *data, size_t len);

/* Receives consecutive pieces of lossy-decoded text; returning non-zero stops the decode. */
typedef int (*bb_text_fn)(void *ctx, const char *text, size_t len);

/* Decode `len` bytes lossily, passing the output to `fn` in pieces (valid runs verbatim, each
 * replacement as the 3 bytes EF BF BD). Returns 0, or the first non-zero value `fn` returned. */
BB_API int bb_utf8_lossy_each(const void *data, size_t len, bb_text_fn fn, void *ctx);

/* Decode `len` bytes lossily into `out` (at most `cap` bytes written, no NUL added; `out` may
 * be NULL when cap is 0). Returns the full output length, at most 3*len: if it exceeds `cap`
 * the output was cut short. */
BB_API size_t bb_utf8_lossy(const void *data, size_t len, char *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* BACKBEAT_READER_H */
