/* parquet_dict.c — column-chunk dictionary (see parquet_dict.h). */
/* SPDX-License-Identifier: MIT */
#include "parquet/dict.h"

#include <stdlib.h>
#include <string.h>

void pq_dict_init(pq_dict *d, bool fixed8) {
    memset(d, 0, sizeof *d);
    d->fixed8 = fixed8;
}

void pq_dict_free(pq_dict *d) {
    pq_buf_free(&d->plain);
    free(d->offset);
    free(d->length);
    free(d->slots);
    free(d->hashes);
    free(d->vals);
    bool f = d->fixed8;
    memset(d, 0, sizeof *d);
    d->fixed8 = f;
}

void pq_dict_reset(pq_dict *d) {
    d->plain.len = 0;
    d->count = 0;
    if (d->slots) memset(d->slots, 0, ((size_t)d->mask + 1) * sizeof *d->slots);
    d->generation++;
}

/* A fast 32-bit hash of a short byte string (multiply-xorshift over 8-byte words). */
static uint32_t hash_bytes(const uint8_t *p, size_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * 0xff51afd7ed558ccdull);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
        h ^= h >> 29;
        p += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        memcpy(&w, p, n);
        h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    }
    h ^= h >> 32;
    h *= 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32);
}

/* Double the hash table (or create it) and rehash; false if out of memory. */
static bool grow_table(pq_dict *d) {
    size_t nslots = d->slots ? ((size_t)d->mask + 1) * 2 : 16; /* small: a wide table has many */
    uint32_t *s = calloc(nslots, sizeof *s);
    if (!s) return false;
    uint32_t mask = (uint32_t)(nslots - 1);
    for (uint32_t i = 0; i < d->count; i++) {
        uint32_t j = d->hashes[i] & mask;
        while (s[j]) j = (j + 1) & mask;
        s[j] = i + 1;
    }
    free(d->slots);
    d->slots = s;
    d->mask = mask;
    return true;
}

/* Double the per-entry arrays; false if out of memory. */
static bool grow_entries(pq_dict *d) {
    uint32_t cap = d->entry_cap ? d->entry_cap * 2 : 8;
    uint32_t *o = realloc(d->offset, cap * sizeof *o);
    if (!o) return false;
    d->offset = o;
    uint32_t *l = realloc(d->length, cap * sizeof *l);
    if (!l) return false;
    d->length = l;
    uint32_t *h = realloc(d->hashes, cap * sizeof *h);
    if (!h) return false;
    d->hashes = h;
    if (d->fixed8) {
        uint64_t *v = realloc(d->vals, cap * sizeof *v);
        if (!v) return false;
        d->vals = v;
    }
    d->entry_cap = cap;
    return true;
}

int64_t pq_dict_intern(pq_dict *d, const void *p, size_t n, bool *added) {
    *added = false;
    if (!d->slots && !grow_table(d)) return -1;
    if (d->count >= d->mask) /* table full: growing failed earlier */
        return -1;
    uint32_t h = hash_bytes(p, n);
    uint32_t j = h & d->mask;
    for (;;) {
        uint32_t s = d->slots[j];
        if (!s) break;
        uint32_t i = s - 1;
        if (d->hashes[i] == h && d->length[i] == n &&
            memcmp(d->plain.data + d->offset[i], p, n) == 0)
            return i;
        j = (j + 1) & d->mask;
    }
    if (d->count >= 0x7fffffffu || d->plain.len + n + 4 > 0xffffffffu) return -1;
    if (d->count == d->entry_cap && !grow_entries(d)) return -1;
    if (!d->fixed8) pq_buf_u32le(&d->plain, (uint32_t)n);
    size_t off = d->plain.len;
    pq_buf_put(&d->plain, p, n);
    if (d->plain.failed) return -1;
    uint32_t i = d->count++;
    d->offset[i] = (uint32_t)off;
    d->length[i] = (uint32_t)n;
    d->hashes[i] = h;
    d->slots[j] = i + 1;
    if ((uint64_t)d->count * 2 > (uint64_t)d->mask + 1 && !grow_table(d)) {
        /* the entry is in; a full-ish table still works, only slower */
    }
    *added = true;
    return i;
}

/* Hash of an 8-byte dictionary value. */
static uint32_t hash_u64(uint64_t v) {
    v ^= v >> 31;
    v *= 0x9e3779b97f4a7c15ull;
    return (uint32_t)(v >> 32) ^ (uint32_t)v;
}

int64_t pq_dict_intern_u64(pq_dict *d, uint64_t v, bool *added) {
    *added = false;
    if (!d->slots && !grow_table(d)) return -1;
    if (d->count >= d->mask) return -1;
    uint32_t h = hash_u64(v);
    uint32_t j = h & d->mask;
    for (;;) {
        uint32_t s = d->slots[j];
        if (!s) break;
        if (d->vals[s - 1] == v) return s - 1;
        j = (j + 1) & d->mask;
    }
    if (d->count >= 0x7fffffffu || d->plain.len + 8 > 0xffffffffu) return -1;
    if (d->count == d->entry_cap && !grow_entries(d)) return -1;
    size_t off = d->plain.len;
    pq_buf_u64le(&d->plain, v);
    if (d->plain.failed) return -1;
    uint32_t i = d->count++;
    d->offset[i] = (uint32_t)off;
    d->length[i] = 8;
    d->hashes[i] = h;
    d->vals[i] = v;
    d->slots[j] = i + 1;
    if ((uint64_t)d->count * 2 > (uint64_t)d->mask + 1) (void)grow_table(d);
    *added = true;
    return i;
}
