/* u64map_test.c — the CLI's open-addressing map (src/read/u64map.c) against a reference: random
 * inserts, replacements and deletions (backward-shift deletion is where such maps break),
 * including key 0 and keys that collide in their home slot; every lookup is checked. */
/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "read/u64map.h"

#define N 4096

int main(void) {
    static uint64_t keys[N];
    static uintptr_t ref[N]; /* value + 1, or 0 when absent */
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* a third of the keys are small (dense home slots), one is 0 */
        keys[i] = (i % 3 == 0) ? i : x;
    }
    bb__u64map m;
    bb__u64map_init(&m);
    int fails = 0;
    for (int round = 0; round < 200000; round++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t k = (size_t)(x % N);
        unsigned op = (unsigned)((x >> 20) % 3);
        if (op < 2) {
            if (!bb__u64map_put(&m, keys[k], (void *)(uintptr_t)(round + 1))) {
                fprintf(stderr, "put failed\n");
                return 1;
            }
            ref[k] = (uintptr_t)round + 1;
        } else {
            bb__u64map_del(&m, keys[k]);
            ref[k] = 0;
        }
        if (round % 997 == 0 || round > 199000) {
            size_t count = 0;
            for (size_t i = 0; i < N; i++) {
                uintptr_t got = (uintptr_t)bb__u64map_get(&m, keys[i]);
                if (got != ref[i] && fails++ < 10)
                    fprintf(stderr, "round %d key %zu: got %lu want %lu\n", round, i,
                            (unsigned long)got, (unsigned long)ref[i]);
                count += ref[i] != 0;
            }
            if (count != m.count && fails++ < 10)
                fprintf(stderr, "round %d: count %zu want %zu\n", round, m.count, count);
        }
    }
    bb__u64map_free(&m);
    if (bb__u64map_get(&m, 1) != NULL) fails++;
    if (fails) {
        fprintf(stderr, "%d failure(s)\n", fails);
        return 1;
    }
    puts("ok");
    return 0;
}
