/* rseq_margin_test.c — bb_rseq_margin (src/format/rseq_margin.c): one frame in whole words above
 * the head, plus the rest of the ring only when the head is nearer the ring's end than that. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "format/rseq_margin.h"

static int failures;

static void expect(uint64_t head, uint64_t cap, uint64_t frame, uint64_t want) {
    uint64_t got = bb_rseq_margin(head, cap, frame);
    if (got != want) {
        fprintf(stderr, "bb_rseq_margin(%llu, %llu, %llu) = %llu, want %llu\n",
                (unsigned long long)head, (unsigned long long)cap, (unsigned long long)frame,
                (unsigned long long)got, (unsigned long long)want);
        failures++;
    }
}

int main(void) {
    expect(0, 4096, 40, 40);               /* a whole-word frame: itself */
    expect(1000, 4096, 34, 40);            /* padded to words: the inline copy's unit */
    expect(4096 * 7 + 100, 4096, 34, 40);  /* any lap, far from the end */
    expect(4096 - 40, 4096, 40, 40);       /* exactly one frame left: no tail */
    expect(4096 - 39, 4096, 40, 40 + 39);  /* nearer the end: the tail the next record skips */
    expect(4096 * 3 - 1, 4096, 34, 40 + 1);
    expect(4096 * 2, 4096, 40, 40);        /* at a lap boundary the whole ring is room */
    expect(100, 1u << 20, 4096 + 18, 4120); /* a 4 KiB event: one frame, not two */
    if (failures) return 1;
    puts("format_rseq_margin: ok");
    return 0;
}
