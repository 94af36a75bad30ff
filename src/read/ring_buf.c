/* ring_buf.c — the buffers bb_ring_snapshot and bb_ring_follow return (freed with
 * bb_ring_buffer_free; plain heap blocks, so free() works too): a follow call's buffer comes
 * back to a small process-wide pool when bb_ring_buffer_free frees it, so that the next call
 * writes into pages already mapped instead of a fresh allocation whose every page faults (a
 * follower of a busy ring would spend its time there: issue 37). The pool keeps at most
 * BUF_KEEP buffers of at most BUF_MAX bytes; snapshots (a whole file at a time) are never kept.
 * The follow buffers handed out are known by address (their sizes in a map): any other
 * pointer given to bb_ring_buffer_free is simply freed. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "read/madv.h"
#include "read/ring_priv.h"
#include "read/u64map.h"

#define BUF_KEEP 4u
#define BUF_MAX ((size_t)64 << 20)

typedef struct kept {
    uint8_t *p;
    size_t cap;
} kept;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static kept pool[BUF_KEEP];
static bb__u64map out; /* follow buffers handed out: address -> their size */

/* The smallest kept buffer of at least n bytes, taken out of the pool (NULL: none). */
static uint8_t *take_kept(size_t n, size_t *cap) {
    size_t best = BUF_KEEP;
    for (size_t i = 0; i < BUF_KEEP; i++)
        if (pool[i].p && pool[i].cap >= n && (best == BUF_KEEP || pool[i].cap < pool[best].cap))
            best = i;
    if (best == BUF_KEEP) return NULL;
    uint8_t *p = pool[best].p;
    *cap = pool[best].cap;
    pool[best] = (kept){NULL, 0};
    return p;
}

/* Contract: see ring_priv.h. A follower of a streaming writer whose windows grew got a larger
 * block each time, every page of it faulted in by the call that needed it (2, 8, then 16 MiB:
 * 4 100 faults and ~50 ms in one call, a lap at 20 M records/s). */
uint8_t *bb__ring_buf_get(size_t n, size_t room, bool keep, bool *zeroed) {
    size_t cap = n ? n : 1;
    uint8_t *p = NULL;
    *zeroed = true;
    keep = keep && cap <= BUF_MAX;
    if (keep && room > cap && room <= BUF_MAX) cap = room; /* a smaller kept one will not do */
    pthread_mutex_lock(&pool_lock);
    if (keep && (p = take_kept(cap, &cap)) != NULL) *zeroed = false;
    pthread_mutex_unlock(&pool_lock);
    if (!p && !(p = calloc(1, cap))) return NULL;
    if (*zeroed && keep && cap > n) { /* its pages faulted in at once, not one fault a page */
        long page = sysconf(_SC_PAGESIZE);
        (void)bb__madv_pages(p, cap, page > 0 ? (size_t)page : 4096, MADV_POPULATE_WRITE);
    }
    pthread_mutex_lock(&pool_lock);
    bb__u64map_del(&out, (uint64_t)(uintptr_t)p); /* an address freed with free() and reused */
    if (keep && !bb__u64map_put(&out, (uint64_t)(uintptr_t)p, (void *)(uintptr_t)cap))
        keep = false; /* out of memory for the map: an ordinary block, never kept */
    pthread_mutex_unlock(&pool_lock);
    return p;
}

/* Contract: see ring_priv.h. */
void bb__ring_buf_put(void *vp) {
    uint8_t *p = vp;
    if (!p) return;
    pthread_mutex_lock(&pool_lock);
    size_t cap = (size_t)(uintptr_t)bb__u64map_get(&out, (uint64_t)(uintptr_t)p);
    if (cap) {
        bb__u64map_del(&out, (uint64_t)(uintptr_t)p);
        size_t slot = 0; /* an empty slot, else the smallest if this one is larger */
        for (size_t i = 1; i < BUF_KEEP && pool[slot].p; i++)
            if (!pool[i].p || pool[i].cap < pool[slot].cap) slot = i;
        if (!pool[slot].p || pool[slot].cap < cap) {
            kept old = pool[slot];
            pool[slot] = (kept){p, cap};
            p = old.p;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    free(p);
}
