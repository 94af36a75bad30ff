/* rseq_margin.c — see rseq_margin.h: the bytes above a ring's head an unfinished rseq write may
 * have touched. */
/* SPDX-License-Identifier: MIT */
#include "format/rseq_margin.h"

uint64_t bb_rseq_margin(uint64_t head, uint64_t capacity, uint64_t frame) {
    uint64_t words = (frame + 7) / 8 * 8;
    uint64_t room = capacity - (head & (capacity - 1)); /* bytes left before the ring's end */
    return words + (room < words ? room : 0);
}
