/* registry_threads.c — concurrent adds, removes and lock-free snapshots (run under TSan).
 *
 * Writer threads each own a set of descriptors and repeatedly register and unregister them;
 * reader threads take snapshots meanwhile. Every snapshot entry must be a fully initialised
 * descriptor (its id set before it became visible), entries must be distinct by id, and at the
 * end the registry holds exactly what was left registered. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "backbeat/event.h"

#define WRITERS 3
#define PER_WRITER 8
#define ROUNDS 300
#define READERS 2

static bb_field_desc fields[WRITERS * PER_WRITER];
static bb_event_desc descs[WRITERS * PER_WRITER];
static char names[WRITERS * PER_WRITER][16];
static int stop;
static int bad;

static void *writer(void *arg) {
    int w = (int)(intptr_t)arg;
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < PER_WRITER; i++) bb_registry_add(&descs[w * PER_WRITER + i]);
        for (int i = 0; i < PER_WRITER; i += 1 + (r & 1))
            bb_registry_remove(&descs[w * PER_WRITER + i]);
    }
    for (int i = 0; i < PER_WRITER; i++) bb_registry_add(&descs[w * PER_WRITER + i]);
    return NULL;
}

static void *reader(void *arg) {
    (void)arg;
    const bb_event_desc *out[WRITERS * PER_WRITER];
    uint64_t last_gen = 0;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        uint64_t g = bb_registry_generation();
        if (g < last_gen) __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
        last_gen = g;
        size_t n = bb_registry_snapshot(out, WRITERS * PER_WRITER);
        if (n > WRITERS * PER_WRITER) {
            __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
            continue;
        }
        for (size_t i = 0; i < n; i++) {
            uint64_t id = __atomic_load_n(&out[i]->id, __ATOMIC_RELAXED);
            if (id == 0 || id != bb_event_id_compute(out[i]))
                __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
            for (size_t j = 0; j < i; j++)
                if (__atomic_load_n(&out[j]->id, __ATOMIC_RELAXED) == id)
                    __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
        }
    }
    return NULL;
}

int main(void) {
    for (int i = 0; i < WRITERS * PER_WRITER; i++) {
        snprintf(names[i], sizeof names[i], "thr::E%d", i);
        fields[i] = (bb_field_desc){"v", NULL, NULL, NULL, 0, 0, 4, 0, BB_TYPE_U32, 0, 0, 0};
        descs[i] = (bb_event_desc){BB__ABI_LAYOUT, names[i], NULL, &fields[i], 1, 4,
                                   BB_PHASE_NONE,  0,        NULL};
    }
    pthread_t w[WRITERS], r[READERS];
    for (int i = 0; i < READERS; i++) pthread_create(&r[i], NULL, reader, NULL);
    for (int i = 0; i < WRITERS; i++) pthread_create(&w[i], NULL, writer, (void *)(intptr_t)i);
    for (int i = 0; i < WRITERS; i++) pthread_join(w[i], NULL);
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < READERS; i++) pthread_join(r[i], NULL);

    const bb_event_desc *out[WRITERS * PER_WRITER + 1];
    size_t n = bb_registry_snapshot(out, WRITERS * PER_WRITER + 1);
    int failures = 0;
    if (bad) {
        fprintf(stderr, "FAIL: a reader saw an inconsistent snapshot\n");
        failures++;
    }
    if (n != WRITERS * PER_WRITER) {
        fprintf(stderr, "FAIL: %zu registered at the end, want %d\n", n, WRITERS * PER_WRITER);
        failures++;
    }
    printf("registry_threads: %d failures\n", failures);
    return failures ? 1 : 0;
}
