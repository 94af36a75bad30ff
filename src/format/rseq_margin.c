/* rseq_margin.c — see rseq_margin.h: the bytes above a ring's head an unfinished rseq write may
 * have touched. */
/* SPDX-License-Identifier: MIT */
#include "format/rseq_margin.h"

uint64_t bb__rseq_margin(uint64_t head, uint64_t capacity, uint64_t frame) {
    uint64_t words = (frame + 7) / 8 * 8;
    uint64_t room = capacity - (head & (capacity - 1)); /* bytes left before the ring's end */
    return words + (room < words ? room : 0);
}

void bb__rseq_frames_add(bb__rseq_frames *f, uint64_t frame) {
    if (frame > f->largest) f->largest = frame;
    if (frame <= BB_RSEQ_INLINE_FRAME && frame > f->inline_max) f->inline_max = frame;
}

uint64_t bb__rseq_shard_frame(const bb__rseq_frames *f, uint64_t big_frame) {
    if (big_frame == 0) return f->largest; /* not kept: any frame of the process */
    return big_frame > f->inline_max ? big_frame : f->inline_max;
}
