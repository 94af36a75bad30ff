/* u64map.h — a small open-addressing hash map from uint64_t keys to pointers, for the CLI's
 * per-event, per-span and per-shard lookups (linear probing, backward-shift deletion, grows at
 * 1/2 load). Keys are mixed before use, so any key distribution is fine. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_U64MAP_H
#define BACKBEAT_CLI_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bb__u64map {
    uint64_t *keys;
    void **vals;
    uint8_t *used;
    size_t cap; /* power of two, or 0 before the first insert */
    size_t count;
} bb__u64map;

/* An empty map (no allocation until the first insert). */
void bb__u64map_init(bb__u64map *m);
void bb__u64map_free(bb__u64map *m);
/* The value stored under `key`, or NULL. */
void *bb__u64map_get(const bb__u64map *m, uint64_t key);
/* Store `val` under `key` (replacing any value). Returns false on allocation failure. */
bool bb__u64map_put(bb__u64map *m, uint64_t key, void *val);
/* Remove `key` if present. */
void bb__u64map_del(bb__u64map *m, uint64_t key);
/* Iterate: for (size_t i = 0; i < m->cap; i++) if (m->used[i]) ... m->vals[i]. */

/* A set of texts by content over a bb__u64map: the key is the text's 64-bit hash, probed one up
 * past a colliding different text; the value points at the caller's bb__u64map_text (which must
 * outlive the map). bb__u64map_put_text sets *dup when an equal text was put before, else it
 * remembers `t`; false when out of memory. Linear in the texts' bytes. */
typedef struct bb__u64map_text {
    const void *p;
    size_t n;
} bb__u64map_text;
bool bb__u64map_put_text(bb__u64map *m, const bb__u64map_text *t, bool *dup);

/* A 64-bit mix (the splitmix64 finaliser). */
static inline uint64_t bb__u64map_mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

#endif /* BACKBEAT_CLI_U64MAP_H */
