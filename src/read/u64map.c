/* u64map.c — open-addressing uint64_t -> pointer map (see u64map.h). */
/* SPDX-License-Identifier: MIT */
#include "read/u64map.h"

#include <stdlib.h>
#include <string.h>

void bb__u64map_init(bb__u64map *m) {
    m->keys = NULL;
    m->vals = NULL;
    m->used = NULL;
    m->cap = 0;
    m->count = 0;
}

void bb__u64map_free(bb__u64map *m) {
    free(m->keys);
    free(m->vals);
    free(m->used);
    bb__u64map_init(m);
}

static size_t slot_of(const bb__u64map *m, uint64_t key) {
    return (size_t)bb__u64map_mix(key) & (m->cap - 1);
}

void *bb__u64map_get(const bb__u64map *m, uint64_t key) {
    if (!m->cap) return NULL;
    for (size_t i = slot_of(m, key);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i]) return NULL;
        if (m->keys[i] == key) return m->vals[i];
    }
}

static bool grow(bb__u64map *m) {
    size_t ncap = m->cap ? m->cap * 2 : 16;
    bb__u64map n = {calloc(ncap, sizeof(uint64_t)), calloc(ncap, sizeof(void *)), calloc(ncap, 1),
                    ncap, 0};
    if (!n.keys || !n.vals || !n.used) {
        free(n.keys);
        free(n.vals);
        free(n.used);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->used[i]) continue;
        size_t j = slot_of(&n, m->keys[i]);
        while (n.used[j]) j = (j + 1) & (ncap - 1);
        n.used[j] = 1;
        n.keys[j] = m->keys[i];
        n.vals[j] = m->vals[i];
        n.count++;
    }
    bb__u64map_free(m);
    *m = n;
    return true;
}

bool bb__u64map_put(bb__u64map *m, uint64_t key, void *val) {
    if ((m->count + 1) * 2 > m->cap && !grow(m)) return false;
    size_t i = slot_of(m, key);
    while (m->used[i]) {
        if (m->keys[i] == key) {
            m->vals[i] = val;
            return true;
        }
        i = (i + 1) & (m->cap - 1);
    }
    m->used[i] = 1;
    m->keys[i] = key;
    m->vals[i] = val;
    m->count++;
    return true;
}

void bb__u64map_del(bb__u64map *m, uint64_t key) {
    if (!m->cap) return;
    size_t mask = m->cap - 1;
    size_t i = slot_of(m, key);
    while (m->used[i] && m->keys[i] != key) i = (i + 1) & mask;
    if (!m->used[i]) return;
    /* backward-shift deletion: move later members of the probe run into the hole */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; m->used[j]; j = (j + 1) & mask) {
        size_t home = slot_of(m, m->keys[j]);
        /* j may move to hole if home is not cyclically in (hole, j] */
        bool in_range = (hole <= j) ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!in_range) {
            m->keys[hole] = m->keys[j];
            m->vals[hole] = m->vals[j];
            hole = j;
        }
    }
    m->used[hole] = 0;
    m->count--;
}

/* The bytes' hash, 8 at a time. */
static uint64_t text_hash(const uint8_t *p, size_t n) {
    uint64_t h = bb__u64map_mix(n + 0x9e3779b97f4a7c15ull);
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = bb__u64map_mix(h ^ w);
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    return bb__u64map_mix(h ^ w);
}

bool bb__u64map_put_text(bb__u64map *m, const bb__u64map_text *t, bool *dup) {
    *dup = false;
    for (uint64_t k = text_hash(t->p, t->n);; k++) {
        const bb__u64map_text *o = bb__u64map_get(m, k);
        if (!o) return bb__u64map_put(m, k, (void *)t);
        if (o->n == t->n && (t->n == 0 || memcmp(o->p, t->p, t->n) == 0)) {
            *dup = true;
            return true;
        }
    }
}
