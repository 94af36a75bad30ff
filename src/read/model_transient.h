/* model_transient.h — a model iterator for a reader that is done with each record's fields before
 * it asks for the next one (the trace: it writes them, or copies them for its workers). Its
 * records' fields are then handed out from the iterator's staging buffers, already in the cache,
 * instead of from the dump's mapping: with hundreds of rings the mapping's lines of the next
 * record are a miss each (issue 37). Reader internals, not API: bb_model_next's contract ("valid
 * until the next call") is unchanged, but the Parquet writer keeps fields longer (table_par.c)
 * and must not use it.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_READ_MODEL_TRANSIENT_H
#define BB_READ_MODEL_TRANSIENT_H

#include "backbeat/model.h"

/* From now on, `it`'s records' fields stay valid only until the next bb_model_next. */
void bb__model_iter_transient(bb_model_iter *it);

#endif /* BB_READ_MODEL_TRANSIENT_H */
