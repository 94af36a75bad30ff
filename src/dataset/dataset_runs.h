/* dataset_runs.h — sorted runs of duplicate keys in files, mapped: the building blocks of a
 * dataset's duplicate-key index (dataset_index.c) that keep its memory independent of the
 * record counts. A run is a file of fixed-size little-endian entries after an optional header;
 * lookups advance a cursor (records come in key order), writers stream, and a file holding
 * several ascending segments is sorted by merging them (an external merge: no entry is held in
 * memory). Internal to the dataset code.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CONVERT_DATASET_RUNS_H
#define BACKBEAT_CONVERT_DATASET_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emit/obuf.h"

/* FORMAT.md's duplicate key, ordered as a dataset routes records (one instance at a time, each
 * in the model's order): instance, ts, shard, offset. */
typedef struct ds_rkey {
    uint64_t ts, inst;
    uint32_t shard, off;
} ds_rkey;

int ds_rkey_cmp(const ds_rkey *a, const ds_rkey *b);

/* Entry widths: an index file's (ts u64, shard u32, offset u32; the instance is the file's) and
 * a scratch run's (ts u64, instance u64, shard u32, offset u32). */
#define DS_RUN_W16 16u
#define DS_RUN_W24 24u

/* A run: a file mapped read-only (private, file-backed: not the process's anonymous memory). */
typedef struct ds_run {
    const uint8_t *map; /* NULL: no entries */
    size_t maplen, hdr; /* hdr: bytes before the first entry */
    unsigned width;
    uint64_t inst; /* DS_RUN_W16: the instance of every entry */
    size_t n, at;  /* entries; the lookup cursor */
} ds_run;

/* Map the file fd (the fd may be closed after) as a run of `width` entries after `hdr` bytes;
 * false with errno (EINVAL: its size is not a header plus whole entries). */
bool ds_run_map(ds_run *r, int fd, size_t hdr, unsigned width, uint64_t inst);
void ds_run_unmap(ds_run *r);
ds_rkey ds_run_key(const ds_run *r, size_t i);
/* Whether the entries are strictly ascending (one segment, no key twice). */
bool ds_run_sorted(const ds_run *r);
/* Whether the (sorted) run holds k: the cursor advances to k (galloping; a key before the
 * cursor is found by a binary search, so any order of lookups is correct). */
bool ds_run_has(ds_run *r, const ds_rkey *k);

/* A streamed writer of entries; a key equal to the previous one is written once, one below it
 * sets `disorder` (the caller's order was broken; the file is then not a sorted run). */
typedef struct ds_kw {
    em_obuf b;
    unsigned width;
    bool have, disorder;
    ds_rkey last;
    uint64_t n;
} ds_kw;
bool ds_kw_open(ds_kw *w, int fd, unsigned width); /* false: out of memory */
void ds_kw_put(ds_kw *w, const ds_rkey *k);
/* Flush and free the buffer; 0 or the errno of the first failed write. */
int ds_kw_finish(ds_kw *w);

/* Copy r's entries from `from` on that are below k (all when k is NULL) to w; the position
 * after them. */
size_t ds_run_copy_below(const ds_run *r, size_t from, const ds_rkey *k, ds_kw *w);
/* The union of the sorted runs a and b into w, in order, each key once. */
void ds_run_merge(const ds_run *a, const ds_run *b, ds_kw *w);

/* A scratch file in directory tfd (the dataset's _backbeat/tmp), removed from it at once (it
 * vanishes with its last fd or mapping, even if the process is killed); -1 with errno. */
int ds_scratch_fd(int tfd);
/* The sorted form of r (its ascending segments merged pass by pass through scratch files of
 * tfd, keys once) into *out, a scratch run; false with errno. */
bool ds_run_sort(const ds_run *r, int tfd, ds_run *out);

#endif /* BACKBEAT_CONVERT_DATASET_RUNS_H */
