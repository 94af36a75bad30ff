/* ring_buf.c — the buffers bb_ring_snapshot and bb_ring_follow return (freed with
 * bb_ring_buffer_free): a follow call's buffer comes back to a small process-wide pool when it
 * is freed, so that the next call writes into pages already mapped instead of a fresh
 * allocation whose every page faults (a follower of a busy ring would spend its time there:
 * issue 37). The pool keeps at most BUF_KEEP buffers of at most BUF_MAX bytes each; snapshots
 * (a whole file at a time) are never kept. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "read/ring_priv.h"

#define BUF_HEAD 64u                  /* ahead of the bytes returned: keeps their alignment */
#define BUF_MAGIC 0x6262627566667231u /* "bbbuffr1" */
#define BUF_KEEP 4u
#define BUF_MAX ((size_t)64 << 20)

typedef struct buf_head {
    uint64_t magic;
    size_t cap; /* bytes after the head */
    bool keep;  /* may go back to the pool */
} buf_head;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static buf_head *pool[BUF_KEEP];

static buf_head *head_of(void *p) { return (buf_head *)(void *)((uint8_t *)p - BUF_HEAD); }

/* Contract: see ring_priv.h. */
uint8_t *bb__ring_buf_get(size_t n, bool keep, bool *zeroed) {
    if (n > SIZE_MAX - BUF_HEAD) return NULL;
    buf_head *h = NULL;
    if (keep && n <= BUF_MAX) { /* the smallest pooled buffer that fits */
        size_t best = BUF_KEEP;
        pthread_mutex_lock(&pool_lock);
        for (size_t i = 0; i < BUF_KEEP; i++)
            if (pool[i] && pool[i]->cap >= n &&
                (best == BUF_KEEP || pool[i]->cap < pool[best]->cap))
                best = i;
        if (best < BUF_KEEP) {
            h = pool[best];
            pool[best] = NULL;
        }
        pthread_mutex_unlock(&pool_lock);
    }
    *zeroed = h == NULL;
    if (!h) {
        h = calloc(1, BUF_HEAD + n);
        if (!h) return NULL;
        h->magic = BUF_MAGIC;
        h->cap = n;
    }
    h->keep = keep && h->cap <= BUF_MAX;
    return (uint8_t *)h + BUF_HEAD;
}

/* Contract: see ring_priv.h. */
void bb__ring_buf_put(void *p) {
    if (!p) return;
    buf_head *h = head_of(p);
    if (h->keep) {
        pthread_mutex_lock(&pool_lock);
        size_t slot = BUF_KEEP;
        for (size_t i = 0; i < BUF_KEEP && slot == BUF_KEEP; i++)
            if (!pool[i]) slot = i;
        if (slot == BUF_KEEP) { /* full: replace the smallest if this one is larger */
            size_t small = 0;
            for (size_t i = 1; i < BUF_KEEP; i++)
                if (pool[i]->cap < pool[small]->cap) small = i;
            if (pool[small]->cap < h->cap) {
                buf_head *old = pool[small];
                pool[small] = h;
                h = old;
            }
        } else {
            pool[slot] = h;
            h = NULL;
        }
        pthread_mutex_unlock(&pool_lock);
    }
    free(h);
}
