/* ring_check.h — the check value the ring test child (ring_child.c) stores in each record and
 * the tests (ring_e2e.c) verify: a record whose bytes are not exactly what was written fails. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_TEST_RING_CHECK_H
#define BB_TEST_RING_CHECK_H

#include <stdint.h>

static inline uint64_t ring_check(uint64_t thread, uint64_t seq) {
    uint64_t x = (thread << 40) ^ seq ^ 0x5DEECE66DULL;
    x *= 0x9E3779B97F4A7C15ULL;
    return x ^ (x >> 29);
}

#endif /* BB_TEST_RING_CHECK_H */
