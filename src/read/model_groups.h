/* model_groups.h — the model's records one instance at a time: an iterator over one instance's
 * rings, for a writer whose outputs are per instance (a dataset's parts) and that keeps only
 * one instance's outputs open. Internal to the libraries (not API). */
/* SPDX-License-Identifier: MIT */
#ifndef BB_READ_MODEL_GROUPS_H
#define BB_READ_MODEL_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "backbeat/model.h"

/* The model's rings grouped by instance (built once: n log n in the rings). */
typedef struct bb__model_groups bb__model_groups;

/* NULL when out of memory. */
bb__model_groups *bb__model_groups_new(const bb_model *m);
void bb__model_groups_free(bb__model_groups *g);

/* An iterator over the records of the model's instance i (bb_model_instance order), in the
 * order bb_model_next gives them (duplicates dropped the same way): the records of instance i
 * bb_model_next would give, nothing else. Its cost is that instance's rings. */
bb_status bb__model_groups_iter(const bb__model_groups *g, size_t i, bb_model_iter **out);

/* The records instance i's rings hold (before duplicates are dropped): an upper bound of what
 * its iterator gives. */
uint64_t bb__model_groups_records(const bb__model_groups *g, size_t i);

#endif /* BB_READ_MODEL_GROUPS_H */
