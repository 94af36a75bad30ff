/* emit/view_order.h — which view set's definitions win: the order convert emits the inputs'
 * view sets in (views.sql, the Parquet footer, a dataset's schema dump). A later
 * `CREATE OR REPLACE VIEW` wins, so the sets go out oldest first, by rank: the newest record
 * timestamp of the dumps carrying the set (wall-clock ns, FORMAT.md), so the definition of the
 * build with the newest data wins whatever order the inputs were opened in. Equal ranks keep
 * the inputs' order (a set carried by no record, rank 0, comes first).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_VIEW_ORDER_H
#define BACKBEAT_CLI_VIEW_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/model.h"

/* FNV-1a of a view text (the key a dataset keeps a set's rank under). */
uint64_t em_view_text_hash(bb_strview v);

/* The rank of every view of the dumps (the model's inputs, in its order), in bb_model_view
 * order (input order, then file order: rank[] holds the sum of their bb_dump_view_count): each
 * dump's newest record timestamp, 0 for a dump without records. Reads no record: the model
 * learnt each input's newest timestamp when it opened (bb_model_input_newest). */
void em_view_ranks(const bb_model *m, bb_dump *const *dumps, size_t n, uint64_t *rank);

/* The model's distinct view texts (first occurrences, as bb_model_view indexes) into order[]
 * (room for bb_model_view_count), oldest rank first (a text's rank: the highest among its
 * copies; rank NULL: all 0), *n of them; set_rank[k] (may be NULL) the rank of order[k].
 * False when out of memory. */
bool em_view_order(const bb_model *m, const uint64_t *rank, size_t *order, uint64_t *set_rank,
                   size_t *n);

#endif /* BACKBEAT_CLI_VIEW_ORDER_H */
