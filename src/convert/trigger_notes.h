/* convert/trigger_notes.h — what fired the inputs' triggered dumps: their backbeat::Trigger
 * records decoded (the rule, the matching record, the after-window), handed to the writers as
 * convert_opts.triggers. Internal to the convert room. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_TRIGGER_NOTES_H
#define BB_CONVERT_TRIGGER_NOTES_H

#include <stdbool.h>
#include <stddef.h>

#include "backbeat/reader.h"
#include "emit/writers.h"

typedef struct cv_triggers {
    convert_trigger *notes;
    size_t n;
} cv_triggers;

/* The triggers of the n dumps, each once (a record two dumps share counts once), in firing
 * order. False with a message (out of memory). */
bool cv_triggers_open(bb_dump *const *dumps, size_t n, cv_triggers *out, bb_error *err);
void cv_triggers_close(cv_triggers *t);

/* The note of record (instance_id, ts, shard) when it is a trigger's, else NULL. */
const convert_trigger *cv_trigger_find(const convert_trigger *t, size_t n, uint64_t instance_id,
                                       uint64_t ts, uint32_t shard);

#endif /* BB_CONVERT_TRIGGER_NOTES_H */
