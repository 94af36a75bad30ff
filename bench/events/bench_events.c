/* bench_events.c — costs of the event-definition layer: the id load on the hot path, computing
 * an id (registration time only), registry add/remove, and snapshots (the crash-dump path; the
 * de-duplication is O(n^2) without allocation) for growing registries. Prints numbers; asserts
 * nothing about them. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../tests/capture/events/fixture_events.h"

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile uint64_t sink;

int main(void)
{
    const int iters = 10000000;
    double t0 = now_ns();
    for (int i = 0; i < iters; i++)
        sink += bb_event_id(BB_DESC(fixture_scalars));
    double t1 = now_ns();
    printf("bb_event_id (registered, hot path): %.2f ns/call\n", (t1 - t0) / iters);

    const int citers = 200000;
    t0 = now_ns();
    for (int i = 0; i < citers; i++)
        sink += bb_event_id_compute(BB_DESC(fixture_scalars));
    t1 = now_ns();
    printf("bb_event_id_compute fixture::Scalars (11 fields): %.1f ns\n", (t1 - t0) / citers);
    t0 = now_ns();
    for (int i = 0; i < citers; i++)
        sink += bb_event_id_compute(BB_DESC(fixture_enums));
    t1 = now_ns();
    printf("bb_event_id_compute fixture::Enums (5 fields, 9 labels): %.1f ns\n",
           (t1 - t0) / citers);

    static const bb_field_desc f = {"v", NULL, NULL, NULL, 0, 0, 4, 0, BB_TYPE_U32, 0, 0, 0};
    const size_t sizes[] = {100, 1000, 4096};
    for (size_t s = 0; s < 3; s++) {
        size_t n = sizes[s];
        bb_event_desc *d = calloc(n, sizeof *d);
        char (*names)[32] = calloc(n, sizeof *names);
        const bb_event_desc **out = calloc(n + 64, sizeof *out);
        if (!d || !names || !out)
            return 1;
        for (size_t i = 0; i < n; i++) {
            snprintf(names[i], sizeof names[i], "bench::E%zu", i);
            d[i] = (bb_event_desc){BB__ABI_LAYOUT, names[i], NULL, &f, 1, 4, BB_PHASE_NONE, 0, NULL};
        }
        t0 = now_ns();
        for (size_t i = 0; i < n; i++)
            bb_registry_add(&d[i]);
        t1 = now_ns();
        double add = (t1 - t0) / (double)n;
        int reps = n > 1000 ? 3 : 20;
        t0 = now_ns();
        size_t got = 0;
        for (int r = 0; r < reps; r++)
            got = bb_registry_snapshot(out, n + 64);
        t1 = now_ns();
        double snap = (t1 - t0) / reps;
        t0 = now_ns();
        for (size_t i = n; i-- > 0;)
            bb_registry_remove(&d[i]);
        t1 = now_ns();
        printf("registry of %zu (+13 fixtures): add %.0f ns each (incl. id), snapshot %.3f ms "
               "(%zu distinct), remove %.0f ns each\n",
               n, add, snap / 1e6, got, (t1 - t0) / (double)n);
        free(d);
        free(names);
        free(out);
    }
    return 0;
}
