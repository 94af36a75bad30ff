/* span.c — span ids minted without coordination (a per-thread counter from a random start,
 * drawn again after fork) and the generic span enter/exit records used by the scoped
 * helper: fields are found by their role (span_id, parent_span_id) in the descriptor. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capture/abi_check.h"
#include "capture/recorder_internal.h"

/* Per-thread state: the next id; 0 = not seeded yet (in this thread since the last fork). */
static __thread uint64_t span_state __attribute__((tls_model("initial-exec")));
static __thread uint32_t span_gen __attribute__((tls_model("initial-exec")));
static uint32_t fork_gen = 1; /* atomic: bumped in every fork child (a thread's seed is void) */

static void span_fork_child(void) { __atomic_add_fetch(&fork_gen, 1, __ATOMIC_RELAXED); }

__attribute__((constructor)) static void span_init(void) {
    pthread_atfork(NULL, NULL, span_fork_child);
}

/* A random 64-bit seed (getrandom; without it, time, pid and a stack address mixed). */
static uint64_t random_seed(void) {
    uint64_t r = 0;
    if (syscall(SYS_getrandom, &r, sizeof r, 0) != (long)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        r = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
            ((uint64_t)getpid() << 40) ^ (uint64_t)(uintptr_t)&ts;
    }
    r ^= r >> 31; /* splitmix64's finalizer spreads the fallback's bits */
    r *= UINT64_C(0xBF58476D1CE4E5B9);
    r ^= r >> 27;
    return r;
}

/* Contract: a fresh non-zero span id, unique across threads, processes (fork included) and
 * hosts with overwhelming probability: each thread starts at a random 64-bit point (getrandom,
 * drawn again in a fork child) and counts up by one, so two threads' ids meet only when their
 * random starts fall within the spans they mint (about n^2 * spans / 2^64 for n threads).
 * Async-signal-safe: a signal handler minting on the same thread gets another id (the
 * per-thread update is one atomic RMW). */
uint64_t bb_span_id_new(void) {
    uint32_t gen = __atomic_load_n(&fork_gen, __ATOMIC_RELAXED);
    if (__builtin_expect(span_gen != gen, 0)) {
        __atomic_store_n(&span_state, random_seed() | 1u, __ATOMIC_RELAXED);
        span_gen = __atomic_load_n(&fork_gen, __ATOMIC_RELAXED);
    }
    uint64_t id = __atomic_fetch_add(&span_state, 1, __ATOMIC_RELAXED);
    return id ? id : __atomic_fetch_add(&span_state, 1, __ATOMIC_RELAXED);
}

/* Write the low `width` bytes of v (little-endian) at p. */
static void put_le(uint8_t *p, uint16_t width, uint64_t v) {
    for (uint16_t i = 0; i < width && i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Contract: see recorder.h (span_id role field = id; parent_span_id role field = parent when
 * parent != 0; other bytes from `fields` or zero). */
bb_status bb_span_record(bb_recorder *rec, const bb_event_desc *desc, uint64_t id, uint64_t parent,
                         const void *fields, size_t size) {
    if (!rec || !desc || !bb__abi_accept(desc, "events", false)) return BB_ERR_INVALID;
    if (fields && size != desc->record_size) return BB_ERR_INVALID;
    if (desc->record_size > 4096) return BB_ERR_TOO_LARGE;
    if (!bb_recorder_enabled(rec)) return BB_ERR_DISABLED;
    uint8_t buf[4096];
    if (fields) memcpy(buf, fields, desc->record_size);
    else memset(buf, 0, desc->record_size);
    for (uint16_t i = 0; i < desc->field_count; i++) {
        const bb_field_desc *f = &desc->fields[i];
        if ((uint32_t)f->offset + f->width > desc->record_size) continue;
        if (f->role == BB_ROLE_SPAN_ID) put_le(buf + f->offset, f->width, id);
        if (f->role == BB_ROLE_PARENT_SPAN_ID && parent) put_le(buf + f->offset, f->width, parent);
    }
    return bb_record_event(rec, desc, buf, desc->record_size);
}

/* Contract: record span->exit for span->id / span->parent once, then forget it. */
bb_status bb_span_end(bb_span *span) {
    if (!span || !span->exit) return BB_OK;
    const bb_event_desc *exit = span->exit;
    span->exit = NULL;
    return bb_span_record(span->rec, exit, span->id, span->parent, NULL, 0);
}

/* The cleanup function of BB_SPAN_SCOPED. */
void bb__span_cleanup(bb_span *span) { (void)bb_span_end(span); }
