/* inflight.c — per-thread announcements of records in flight, and their use by dumps.
 *
 * A writer preempted between its reservation and its copy leaves, in the middle of the ring,
 * bytes from an older lap that other writers sharing the shard have already written past. The
 * reader's walk could take them for a record (the format has no per-record check), reporting a
 * record of an older lap, or a mix of two, in the wrong place. So each thread announces the
 * record it is writing in its own slot of a global table (a few plain stores to a line only it
 * writes, see bb__record_ts). A dump lists the records in flight when it reads the ring's head,
 * copies the ring, then for each of them waits (briefly) for it to complete and copies its bytes
 * again; a record still unfinished after the wait (its writer is descheduled) is blanked in the
 * snapshot. Blanked bytes read as zero lengths, which the walk steps over.
 *
 * A thread claims an index once, in the process-wide table below; it writes that entry of the
 * table of whichever recorder it records into (recorder->slot_base): the process-wide table for
 * anonymous recorders, the ring file's own table for a file-backed one, so that `backbeat
 * recover` finds the records a killed process left in flight (ring_backing.c). */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "capture/recorder_internal.h"

/* Entries [0, BB_TSLOTS) are claimed by threads; entry BB_TSLOTS is the overflow entry (marked
 * shared by make_key, before any thread can be given it). Zero-initialized: 512 KiB of .bss,
 * not of .data, so neither the library file nor a process that never records carries it. */
static struct bb__tslot slots[BB_TSLOTS + 1] __attribute__((aligned(128)));
static uint32_t high_water; /* atomic: slots[0, high_water) may be claimed */
static pthread_key_t slot_key;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;
static int slot_key_ok;

__thread uintptr_t bb__tls_slot_off __attribute__((tls_model("initial-exec")));

static uintptr_t offset_of(uint32_t i) { return (uintptr_t)(i + 1) * sizeof(struct bb__tslot); }

/* Contract: see recorder_internal.h. */
uintptr_t bb__inflight_global_base(void) { return (uintptr_t)slots - sizeof(struct bb__tslot); }

/* Contract: see recorder_internal.h. */
void bb__inflight_table_init(struct bb__tslot *table) { table[BB_TSLOTS].shared = 1; }

/* Thread exit: give the slot back (its entries in every table are idle: each record retires its
 * announcement). */
static void slot_release(void *p) {
    struct bb__tslot *t = p;
    bb__tls_slot_off = 0;
    if (!t || t->shared) return;
    __atomic_store_n(&t->taglen, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&t->claimed, 0, __ATOMIC_RELEASE);
}

/* In a fork child only the forking thread exists: give back every other thread's slot (one
 * of them may even have been mid-record, its announcement would never retire). */
static void slots_after_fork(void) {
    uint32_t n = __atomic_load_n(&high_water, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < n; i++) {
        if (offset_of(i) == bb__tls_slot_off) continue;
        __atomic_store_n(&slots[i].taglen, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&slots[i].claimed, 0, __ATOMIC_RELEASE);
    }
}

static void make_key(void) {
    bb__inflight_table_init(slots);
    slot_key_ok = pthread_key_create(&slot_key, slot_release) == 0;
    pthread_atfork(NULL, NULL, slots_after_fork);
}

/* Contract: give the calling thread its announcement index (claimed from the process-wide table,
 * released at thread exit) and return its offset (bb__tls_slot_off); when the table is full
 * (or thread-exit hooks are unavailable), the overflow entry's, which dumps ignore. Never 0.
 * Called once per thread, from the fast path's first record. */
uintptr_t bb__tslot_attach(void) {
    pthread_once(&slot_once, make_key);
    uint32_t got = BB_TSLOTS;
    if (slot_key_ok) {
        for (uint32_t i = 0; i < BB_TSLOTS; i++) {
            uint32_t expect = 0;
            if (__atomic_load_n(&slots[i].claimed, __ATOMIC_RELAXED) == 0 &&
                __atomic_compare_exchange_n(&slots[i].claimed, &expect, 1, false, __ATOMIC_ACQUIRE,
                                            __ATOMIC_RELAXED)) {
                uint32_t hw = __atomic_load_n(&high_water, __ATOMIC_RELAXED);
                while (hw < i + 1 &&
                       !__atomic_compare_exchange_n(&high_water, &hw, i + 1, true, __ATOMIC_RELEASE,
                                                    __ATOMIC_RELAXED)) {}
                if (pthread_setspecific(slot_key, &slots[i]) == 0) {
                    got = i;
                } else {
                    __atomic_store_n(&slots[i].claimed, 0, __ATOMIC_RELEASE);
                }
                break;
            }
        }
    }
    bb__tls_slot_off = offset_of(got);
    return bb__tls_slot_off;
}

/* The entry i of the table at slot_base. */
static struct bb__tslot *entry(uintptr_t base, uint32_t i) {
    return (struct bb__tslot *)(base + offset_of(i));
}

/* Contract: collect into out[0..cap) the (position, length) of every record of the recorder
 * with hot view `h`, shard `shard`, that is in flight and reserved below `head` (the head just
 * read with acquire). An announcement whose position is not yet published is waited for,
 * spending the dump's `*budget` of waits (then skipped). Returns the number found (at most
 * cap). */
size_t bb__inflight_collect(const struct bb__recorder_hot *h, uint32_t shard, uint64_t head,
                            bb__inflight *out, size_t cap, int *budget) {
    uint32_t want = h->tag_base + shard;
    uint32_t n = __atomic_load_n(&high_water, __ATOMIC_ACQUIRE);
    size_t found = 0;
    for (uint32_t i = 0; i < n && found < cap; i++) {
        struct bb__tslot *t = entry(h->slot_base, i);
        if (!__atomic_load_n(&slots[i].claimed, __ATOMIC_ACQUIRE)) continue;
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

/* Contract: see recorder_internal.h. */
bool bb__inflight_any(const struct bb__recorder_hot *h, uint32_t shard) {
    uint32_t want = h->tag_base + shard, n = __atomic_load_n(&high_water, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++)
        if (__atomic_load_n(&slots[i].claimed, __ATOMIC_ACQUIRE) &&
            (uint32_t)__atomic_load_n(&entry(h->slot_base, i)->taglen, __ATOMIC_ACQUIRE) == want)
            return true;
    return false;
}

/* Contract: see recorder_internal.h. `*budget` counts waits left across calls of one dump. */
bool bb__inflight_wait(const struct bb__recorder_hot *h, const bb__inflight *e, int *budget) {
    const struct bb__tslot *t = entry(h->slot_base, e->slot);
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
