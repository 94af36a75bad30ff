/* rseq_margin_test.c — bb__rseq_margin (src/format/rseq_margin.c): one frame in whole words above
 * the head, plus the rest of the ring only when the head is nearer the ring's end than that; and
 * bb__rseq_shard_frame: that frame for one shard, from the events' frames and its cursor's
 * big_frame. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "format/rseq_margin.h"

static int failures;

static void expect(uint64_t head, uint64_t cap, uint64_t frame, uint64_t want) {
    uint64_t got = bb__rseq_margin(head, cap, frame);
    if (got != want) {
        fprintf(stderr, "bb__rseq_margin(%llu, %llu, %llu) = %llu, want %llu\n",
                (unsigned long long)head, (unsigned long long)cap, (unsigned long long)frame,
                (unsigned long long)got, (unsigned long long)want);
        failures++;
    }
}

static void expect_shard(const bb__rseq_frames *f, uint64_t big_frame, uint64_t want) {
    uint64_t got = bb__rseq_shard_frame(f, big_frame);
    if (got != want) {
        fprintf(stderr, "bb__rseq_shard_frame({%llu, %llu}, %llu) = %llu, want %llu\n",
                (unsigned long long)f->largest, (unsigned long long)f->inline_max,
                (unsigned long long)big_frame, (unsigned long long)got, (unsigned long long)want);
        failures++;
    }
}

static void shard_frames(void) {
    bb__rseq_frames f = {0, 0};
    bb__rseq_frames_add(&f, 40);
    bb__rseq_frames_add(&f, 4018); /* out of line: not an inline bound */
    bb__rseq_frames_add(&f, 34);
    bb__rseq_frames_add(&f, 256); /* the largest the inline sequence copies */
    bb__rseq_frames_add(&f, 257);
    if (f.largest != 4018 || f.inline_max != 256) {
        fprintf(stderr, "bb__rseq_frames_add: {%llu, %llu}, want {4018, 256}\n",
                (unsigned long long)f.largest, (unsigned long long)f.inline_max);
        failures++;
    }
    expect_shard(&f, 0, 4018);                 /* not kept (an older writer): the largest */
    expect_shard(&f, BB_RSEQ_FRAME_KEPT, 256); /* kept, nothing out of line: inline bound */
    expect_shard(&f, 300, 300);                /* a larger frame begun out of line */
    expect_shard(&f, 100, 256);                /* a small one (the ring's end): inline bound */
    bb__rseq_frames g = {0, 0};
    bb__rseq_frames_add(&g, 40);
    bb__rseq_frames_add(&g, 4018);
    expect_shard(&g, BB_RSEQ_FRAME_KEPT, 40); /* the 4 KiB event never begun here */
    expect_shard(&g, 4018, 4018);
}

int main(void) {
    shard_frames();
    expect(0, 4096, 40, 40);              /* a whole-word frame: itself */
    expect(1000, 4096, 34, 40);           /* padded to words: the inline copy's unit */
    expect(4096 * 7 + 100, 4096, 34, 40); /* any lap, far from the end */
    expect(4096 - 40, 4096, 40, 40);      /* exactly one frame left: no tail */
    expect(4096 - 39, 4096, 40, 40 + 39); /* nearer the end: the tail the next record skips */
    expect(4096 * 3 - 1, 4096, 34, 40 + 1);
    expect(4096 * 2, 4096, 40, 40);         /* at a lap boundary the whole ring is room */
    expect(100, 1u << 20, 4096 + 18, 4120); /* a 4 KiB event: one frame, not two */
    if (failures) return 1;
    puts("format_rseq_margin: ok");
    return 0;
}
