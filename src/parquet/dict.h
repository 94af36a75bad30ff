/* parquet_dict.h — the dictionary of one column chunk: distinct values in first-seen order,
 * kept directly in the PLAIN encoding of a Parquet dictionary page.
 *
 * Two flavours: byte strings (BYTE_ARRAY: 4-byte length + bytes per entry) and 8-byte integers
 * (INT64: 8 raw bytes per entry). Lookup is an open-addressing hash table of entry indices.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_PARQUET_DICT_H
#define BB_PARQUET_DICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet/buf.h"

typedef struct pq_dict {
    bool fixed8;    /* INT64 entries rather than byte strings */
    pq_buf plain;   /* the dictionary page body (PLAIN entries) */
    uint32_t count; /* entries */
    uint32_t entry_cap;
    uint32_t *offset;    /* per entry: start of its bytes in `plain` (after the length prefix) */
    uint32_t *length;    /* per entry: byte length */
    uint32_t *slots;     /* hash table: entry index + 1, 0 = empty */
    uint32_t *hashes;    /* per entry: hash (for rehashing) */
    uint64_t *vals;      /* fixed8: per entry, the value (compared instead of the bytes) */
    uint32_t mask;       /* slots - 1 */
    uint64_t generation; /* bumped by pq_dict_reset, so callers can cache indices */
} pq_dict;

void pq_dict_init(pq_dict *d, bool fixed8);
void pq_dict_free(pq_dict *d);
/* Forget every entry (start of a new column chunk); keeps the storage. */
void pq_dict_reset(pq_dict *d);

/* Index of the entry equal to (p, n), adding it if new (*added set). -1 if memory ran out or
 * the dictionary cannot grow further (2^31 entries or 4 GiB). For fixed8, n must be 8. */
int64_t pq_dict_intern(pq_dict *d, const void *p, size_t n, bool *added);

/* As pq_dict_intern for a fixed8 dictionary: the entry of integer `v` (stored little-endian). */
int64_t pq_dict_intern_u64(pq_dict *d, uint64_t v, bool *added);

/* Bytes of entry i. */
static inline const uint8_t *pq_dict_entry(const pq_dict *d, uint32_t i, size_t *n) {
    *n = d->length[i];
    return d->plain.data + d->offset[i];
}

#endif /* BB_PARQUET_DICT_H */
