/* intern.c — the recorder's intern table: strings -> u32 ids, lock-free, bounded, readable from
 * the crash path without locks.
 *
 * Layout: `entries` (append-only, reserved by CAS on used_entries), `arena` (string bytes,
 * reserved by CAS on used_bytes) and `slots`, an open-addressing hash set of entry numbers with
 * twice as many slots as entries (so probing always ends). An insert prepares its entry fully
 * (bytes, then off/len/hash, then `ready` with release) before publishing it in a slot with a
 * CAS; a lookup that loses the CAS race to an equal string returns the winner's id and leaves
 * its own entry as a harmless duplicate (same bytes, unused id). Ids are entry index + 1; 0 is
 * BB_INTERN_FULL_ID. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "capture/recorder_internal.h"

static uint32_t round_pow2(uint32_t v) {
    uint32_t p = 1;
    while (p < v) p <<= 1;
    return p;
}

/* Contract: allocate a zeroed table for `entries` strings and `bytes` bytes. */
bb_status bb__intern_table_init(bb__intern_table *t, uint32_t entries, uint32_t bytes) {
    memset(t, 0, sizeof *t);
    if (entries == 0 || entries > (1u << 28) || bytes == 0) return BB_ERR_INVALID;
    uint32_t slots = round_pow2(entries) * 2;
    t->cap_entries = entries;
    t->cap_bytes = bytes;
    t->slot_mask = slots - 1;
    t->slots = calloc(slots, sizeof *t->slots);
    t->entries = calloc(entries, sizeof *t->entries);
    t->arena = malloc(bytes);
    if (!t->slots || !t->entries || !t->arena) {
        bb__intern_table_destroy(t);
        return BB_ERR_NOMEM;
    }
    return BB_OK;
}

/* Contract: see recorder_internal.h. */
bb_status bb__intern_table_init_at(bb__intern_table *t, uint32_t entries, uint32_t bytes,
                                   void *entry_mem, void *arena_mem, uint32_t *full_mirror) {
    memset(t, 0, sizeof *t);
    if (entries == 0 || entries > (1u << 28) || bytes == 0) return BB_ERR_INVALID;
    uint32_t slots = round_pow2(entries) * 2;
    t->cap_entries = entries;
    t->cap_bytes = bytes;
    t->slot_mask = slots - 1;
    t->external = true;
    t->entries = entry_mem;
    t->arena = arena_mem;
    t->full_mirror = full_mirror;
    t->slots = calloc(slots, sizeof *t->slots);
    return t->slots ? BB_OK : BB_ERR_NOMEM;
}

/* Contract: free the table's memory (idempotent). */
void bb__intern_table_destroy(bb__intern_table *t) {
    free(t->slots);
    if (!t->external) {
        free(t->entries);
        free(t->arena);
    }
    t->slots = NULL;
    t->entries = NULL;
    t->arena = NULL;
}

static uint32_t hash32(const uint8_t *p, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

/* Reserve `n` units of the counter `*used` bounded by `cap`; returns the start or UINT32_MAX. */
static uint32_t reserve(uint32_t *used, uint32_t cap, uint32_t n) {
    uint32_t cur = __atomic_load_n(used, __ATOMIC_RELAXED);
    do {
        if (n > cap || cur > cap - n) return UINT32_MAX;
    } while (!__atomic_compare_exchange_n(used, &cur, cur + n, true, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    return cur;
}

static uint32_t full(bb__intern_table *t) {
    __atomic_store_n(&t->full_used, 1, __ATOMIC_RELEASE);
    if (t->full_mirror) __atomic_store_n(t->full_mirror, 1, __ATOMIC_RELEASE);
    __atomic_fetch_add(&t->full_count, 1, __ATOMIC_RELAXED);
    return BB_INTERN_FULL_ID;
}

/* The slot hash of a lookup: 8 bytes a step (a multiply-xorshift per word), so that a repeated
 * key costs a few ns, not one dependent multiply per byte. Entries keep FNV-1a (the ring-file
 * format's check of their bytes), computed once when a string is inserted. */
static uint32_t slot_hash(const uint8_t *p, size_t n) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    if (i < n) {
        w = 0;
        memcpy(&w, p + i, n - i);
        h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    return (uint32_t)(h ^ (h >> 33));
}

static bool same(const bb__intern_table *t, const bb__intern_entry *e, const void *bytes,
                 size_t len) {
    return e->len == len && memcmp(t->arena + e->off, bytes, len) == 0;
}

/* Contract: see bb_intern in recorder.h. */
uint32_t bb__intern_table_put(bb__intern_table *t, const void *bytes, size_t len) {
    if (len > 65535 || (len && !bytes)) return full(t);
    uint32_t h = slot_hash(bytes, len);
    uint32_t mine = UINT32_MAX; /* our prepared entry, once made */
    for (uint32_t probe = 0; probe <= t->slot_mask; probe++) {
        uint32_t *slot = &t->slots[(h + probe) & t->slot_mask];
        uint32_t v = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
        if (v == 0) {
            if (mine == UINT32_MAX) {
                uint32_t off = reserve(&t->used_bytes, t->cap_bytes, (uint32_t)len);
                if (off == UINT32_MAX) return full(t);
                mine = reserve(&t->used_entries, t->cap_entries, 1);
                if (mine == UINT32_MAX) return full(t); /* the bytes stay reserved: bounded */
                bb__intern_entry *e = &t->entries[mine];
                if (len) memcpy(t->arena + off, bytes, len);
                e->off = off;
                e->len = (uint32_t)len;
                e->hash = hash32(bytes, len);
                __atomic_store_n(&e->ready, 1, __ATOMIC_RELEASE);
            }
            uint32_t expect = 0;
            if (__atomic_compare_exchange_n(slot, &expect, mine + 1, false, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE))
                return mine + 1;
            v = expect; /* someone else published here first */
        }
        if (same(t, &t->entries[v - 1], bytes, len)) return v;
    }
    return full(t);
}

/* Contract: the count of leading entries whose `ready` is set (acquire). */
uint32_t bb__intern_table_ready_prefix(const bb__intern_table *t) {
    uint32_t n = __atomic_load_n(&t->used_entries, __ATOMIC_ACQUIRE);
    if (n > t->cap_entries) n = t->cap_entries;
    for (uint32_t i = 0; i < n; i++)
        if (!__atomic_load_n(&t->entries[i].ready, __ATOMIC_ACQUIRE)) return i;
    return n;
}

/* Contract: entry i as a writer item (id i + 1); i must be below a ready prefix. */
bb_intern_item bb__intern_table_item(const bb__intern_table *t, uint32_t i) {
    const bb__intern_entry *e = &t->entries[i];
    bb_intern_item it = {i + 1, e->len, t->arena + e->off};
    return it;
}
