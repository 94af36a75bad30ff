/* backbeat/model.h — the ordered, de-duplicated record stream over one or more dumps.
 *
 * A bb_model unions the registries of its input dumps (by id, first input wins), unions their
 * instances (the first input holding an instance supplies its host and intern table), and
 * yields every recovered record in the global order of FORMAT.md:
 * (ts_nanos, instance_id, shard_id, physical offset), dropping a record whose key equals the
 * previous one (successive dumps of one process) unless dedup is off.
 *
 * Memory: per ring, its runs of records already in order (~88 bytes each: a recorder's ring is
 * one run or a few), merged with a heap; a ring with more than 64 + records/64 runs (timestamps
 * far out of write order) falls back to one 4-byte locator per record. Records are decoded
 * straight from the mapping.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_MODEL_H
#define BACKBEAT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "reader.h"
#include "detail/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bb_model bb_model;

/* Build a model over `n` open dumps (borrowed: they must outlive the model). Opening walks
 * every ring once (the record count, each ring's ordered runs): the time it takes grows with
 * the records. */
BB_API bb_status bb_model_open(bb_dump *const *dumps, size_t n, bool dedup, bb_model **out,
                               bb_error *err);
/* bb_model_open, walking the rings on up to `threads` threads (the caller's among them; 0 and
 * 1 mean the caller's alone, fewer are used when no more can be started). The model is the same
 * whatever the count. */
BB_API bb_status bb_model_open_threads(bb_dump *const *dumps, size_t n, bool dedup,
                                       unsigned threads, bb_model **out, bb_error *err);
BB_API void bb_model_close(bb_model *model);

/* Union registry, sorted by qualified name (bytes), then id. */
BB_API size_t bb_model_schema_count(const bb_model *model);
BB_API const bb_rschema *bb_model_schema(const bb_model *model, size_t i);
BB_API const bb_rschema *bb_model_find_schema(const bb_model *model, uint64_t id);
/* Display name: the qualified name, plus "#<16 hex>" when the union holds more than one id
 * under that name. NUL-terminated, owned by the model. */
BB_API const char *bb_model_display_name(const bb_model *model, uint64_t event_id);

/* Union of instances, sorted by id. */
BB_API size_t bb_model_instance_count(const bb_model *model);
BB_API const bb_rinstance *bb_model_instance(const bb_model *model, size_t i);
/* The union's instance with this id (first input holding it), or NULL. */
BB_API const bb_rinstance *bb_model_find_instance(const bb_model *model, uint64_t instance_id);

/* View texts of every input, input order then file order. */
BB_API size_t bb_model_view_count(const bb_model *model);
BB_API bb_strview bb_model_view(const bb_model *model, size_t i);

/* Total records the iteration will yield (after de-duplication). */
BB_API uint64_t bb_model_record_count(const bb_model *model);

/* The newest timestamp among the records of input `input`'s rings (what bb_shard_walk accepts
 * there), 0 when it has none or `input` is out of range. Known at open: no walk. */
BB_API uint64_t bb_model_input_newest(const bb_model *model, size_t input);

/* A record in global order. `instance` resolves its interned fields: it is the instance as held
 * by the dump the record was taken from (for a duplicate, the first input holding it), so a
 * record only a later dump holds decodes with that dump's intern table (multi_ab.expected.json:
 * multi_b's "tag-two"), while bb_model_instance gives the first input's host and table. */
typedef struct bb_mrecord {
    bb_record rec;
    const bb_rinstance *instance;
    size_t input; /* index of the dump it was taken from */
} bb_mrecord;

/* Iterator; several may run at once over one model. */
typedef struct bb_model_iter bb_model_iter;
BB_API bb_status bb_model_iter_new(const bb_model *model, bb_model_iter **out);
/* Produce the next record into *out; returns true, or false at the end. The record's `fields`
 * stay valid until the next call. */
BB_API bool bb_model_next(bb_model_iter *it, bb_mrecord *out);
BB_API void bb_model_iter_free(bb_model_iter *it);

#ifdef __cplusplus
}
#endif

#endif /* BACKBEAT_MODEL_H */
