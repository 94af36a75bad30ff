/* recorder_inflight.c — per-thread announcements of records in flight, and their use by dumps.
 *
 * A writer preempted between its reservation and its copy leaves, in the middle of the ring,
 * bytes from an older lap that other writers sharing the shard have already written past. The
 * reader's walk could take them for a record (the format has no per-record check), reporting a
 * record of an older lap, or a mix of two, in the wrong place. So each thread announces the
 * record it is writing in its own slot of a global table (a few plain stores to a line only it
 * writes, see bb__record_ts). A dump lists the records in flight when it reads the ring's head,
 * copies the ring, then for each of them waits (briefly) for it to complete and copies its bytes
 * again; a record still unfinished after the wait (its writer is descheduled) is blanked in the
 * snapshot. Blanked bytes read as zero lengths, which the walk steps over. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "capture/recorder_internal.h"

#define BB_TSLOTS 4096

static struct bb__tslot slots[BB_TSLOTS] __attribute__((aligned(128)));
static struct bb__tslot overflow_slot __attribute__((aligned(128))) = {.shared = 1};
static uint32_t high_water; /* atomic: slots[0, high_water) may be claimed */
static pthread_key_t slot_key;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;
static int slot_key_ok;

__thread struct bb__tslot *bb__tls_slot __attribute__((tls_model("initial-exec")));

/* Thread exit: give the slot back. */
static void slot_release(void *p) {
    struct bb__tslot *t = p;
    bb__tls_slot = NULL;
    if (!t || t->shared) return;
    __atomic_store_n(&t->taglen, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&t->claimed, 0, __ATOMIC_RELEASE);
}

/* In a fork child only the forking thread exists: give back every other thread's slot (one
 * of them may even have been mid-record, its announcement would never retire). */
static void slots_after_fork(void) {
    uint32_t n = __atomic_load_n(&high_water, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < n; i++) {
        if (&slots[i] == bb__tls_slot) continue;
        __atomic_store_n(&slots[i].taglen, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&slots[i].claimed, 0, __ATOMIC_RELEASE);
    }
}

static void make_key(void) {
    slot_key_ok = pthread_key_create(&slot_key, slot_release) == 0;
    pthread_atfork(NULL, NULL, slots_after_fork);
}

/* Contract: give the calling thread its announcement slot (claimed from the table, released at
 * thread exit) and return it; when the table is full (or thread-exit hooks are unavailable),
 * the shared overflow slot, which dumps ignore. Never NULL. Called once per thread, from the
 * fast path's first record. */
struct bb__tslot *bb__tslot_attach(void) {
    pthread_once(&slot_once, make_key);
    struct bb__tslot *t = &overflow_slot;
    if (slot_key_ok) {
        for (uint32_t i = 0; i < BB_TSLOTS; i++) {
            uint32_t expect = 0;
            if (__atomic_load_n(&slots[i].claimed, __ATOMIC_RELAXED) == 0 &&
                __atomic_compare_exchange_n(&slots[i].claimed, &expect, 1, false,
                                            __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
                uint32_t hw = __atomic_load_n(&high_water, __ATOMIC_RELAXED);
                while (hw < i + 1 &&
                       !__atomic_compare_exchange_n(&high_water, &hw, i + 1, true,
                                                    __ATOMIC_RELEASE, __ATOMIC_RELAXED)) {
                }
                if (pthread_setspecific(slot_key, &slots[i]) == 0) {
                    t = &slots[i];
                } else {
                    __atomic_store_n(&slots[i].claimed, 0, __ATOMIC_RELEASE);
                }
                break;
            }
        }
    }
    bb__tls_slot = t;
    return t;
}

/* Contract: collect into out[0..cap) the (position, length) of every record of recorder
 * `serial`'s shard `shard` that is in flight and reserved below `head` (the head just read with
 * acquire). An announcement whose position is not yet published is waited for, spending the
 * dump's `*budget` of waits (then skipped). Returns the number found (at most cap). */
size_t bb_inflight_collect(uint32_t serial, uint32_t shard, uint64_t head, bb_inflight *out,
                           size_t cap, int *budget) {
    uint32_t want = (((serial & 0xFFFFu) << 16) | shard) + 1;
    uint32_t n = __atomic_load_n(&high_water, __ATOMIC_ACQUIRE);
    size_t found = 0;
    for (uint32_t i = 0; i < n && found < cap; i++) {
        struct bb__tslot *t = &slots[i];
        if (!__atomic_load_n(&t->claimed, __ATOMIC_ACQUIRE)) continue;
        for (int tries = 0;; tries++) {
            uint64_t taglen = __atomic_load_n(&t->taglen, __ATOMIC_ACQUIRE);
            if ((uint32_t)taglen != want) break;
            uint64_t pos = __atomic_load_n(&t->pos, __ATOMIC_ACQUIRE);
            uint32_t len = (uint32_t)(taglen >> 32);
            if (pos != BB__POS_UNKNOWN) {
                if (pos < head) {
                    out[found].pos = pos;
                    out[found].len = len;
                    out[found].slot = i;
                    out[found].tag = want;
                    found++;
                }
                break;
            }
            /* between announcing and reserving: let it run */
            if (*budget <= 0) break;
            (*budget)--;
            if (tries < 10) {
                sched_yield();
            } else {
                struct timespec nap = {0, 20000};
                nanosleep(&nap, NULL);
            }
        }
    }
    return found;
}

/* Contract: see recorder_internal.h. `*budget` counts waits left across calls of one dump. */
bool bb_inflight_wait(const bb_inflight *e, int *budget) {
    const struct bb__tslot *t = &slots[e->slot];
    for (int tries = 0;; tries++) {
        if ((uint32_t)__atomic_load_n(&t->taglen, __ATOMIC_ACQUIRE) != e->tag ||
            __atomic_load_n(&t->pos, __ATOMIC_ACQUIRE) != e->pos)
            return true;
        if (*budget <= 0) return false;
        (*budget)--;
        if (tries < 10) {
            sched_yield();
        } else {
            struct timespec nap = {0, 20000};
            nanosleep(&nap, NULL);
        }
    }
}
