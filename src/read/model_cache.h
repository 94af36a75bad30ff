/* model_cache.h — what of a dump larger than the memory the page cache should keep for the
 * merge (model_cache.c). Not API. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_READ_MODEL_CACHE_H
#define BB_READ_MODEL_CACHE_H

#include <stdint.h>

#include "backbeat/reader.h"

/* Bytes of each of `nrings` rings (`ring_bytes` in all) that the walk leaves warm for the
 * merge, which reads every ring from its oldest record up: 0 when the rings fit in half the
 * memory (nothing is cooled), else half the memory shared by the rings, at least 2 MiB. */
uint64_t bb__model_cache_keep(uint64_t ring_bytes, size_t nrings);

/* Tests only: measure the rings against `bytes` of memory instead of the machine's (0: the
 * machine's again), so that a small dump takes the path of one larger than the memory. Set
 * before a model is opened, from one thread. */
void bb__model_cache_set_memory(uint64_t bytes);

/* Mark ring positions [from, to) of shard `sh` cold (madvise MADV_COLD): the kernel reclaims
 * those pages first when it needs memory; they stay readable (a later read brings them back).
 * Only whole 2 MiB pages of the mapping inside the range are marked. A no-op before Linux 5.4
 * or when from >= to. Safe from several threads. */
void bb__model_cache_cool(const bb_rshard *sh, uint64_t from, uint64_t to);

/* The highest ring position <= pos of shard `sh` at a 2 MiB boundary of the mapping. */
uint64_t bb__model_cache_floor(const bb_rshard *sh, uint64_t pos);

#endif /* BB_READ_MODEL_CACHE_H */
