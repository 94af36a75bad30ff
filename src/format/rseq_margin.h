/* rseq_margin.h — how many bytes above a ring's head may hold bytes of a record that the rseq
 * commit path has not committed, so that readers of the ring (a live dump, `backbeat recover`)
 * drop the oldest records of a full window those bytes may overlap. Pure arithmetic, shared by
 * every reader of rseq-written rings. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_FORMAT_RSEQ_MARGIN_H
#define BACKBEAT_FORMAT_RSEQ_MARGIN_H

#include <stdint.h>

/* The margin above `head` (a cursor value: total bytes ever reserved) of a ring of `capacity`
 * bytes (a power of two) whose largest frame that may be written into it is `frame` bytes
 * (BB__FRAME_SIZE of the largest record). Above the head lie, on the rseq path:
 *  - the word padding of the last inline copy, and the bytes of an attempt that was aborted
 *    (preempted, migrated, signalled) after it began to copy and not retried on this ring:
 *    both within one frame rounded up to whole words, the inline copy's unit;
 *  - when the head is less than that from the ring's end, the bytes up to the end, which the
 *    out-of-line path zeroes before it starts the record at the next lap (the tail it skips is
 *    shorter than the record that follows).
 * The positions [head, head + margin) are the bottom of the window [head - capacity, head) one
 * lap earlier: a reader drops the records that start below head + margin - capacity. With no
 * writer in flight, that is at most the one record the padding may overlap when frames are whole
 * words (one or two otherwise). */
uint64_t bb__rseq_margin(uint64_t head, uint64_t capacity, uint64_t frame);

/* A shard's cursor keeps `big_frame`: BB_RSEQ_FRAME_KEPT once its recorder is created, then the
 * largest frame the out-of-line rseq path (frames over BB_RSEQ_INLINE_FRAME, and the ring's end)
 * began to write in the shard, stored before its first byte; 0 where the writer predates it. */
#define BB_RSEQ_FRAME_KEPT 1u
/* The largest frame the inline sequence copies (BB__RSEQ_STAGE, a constant user code compiles
 * in: ABI), whole words. */
#define BB_RSEQ_INLINE_FRAME 256u

/* The frames (BB__FRAME_SIZE) of the process's (the dump's) events that bound a margin: the
 * largest, and the largest of those the inline sequence copies (at most BB_RSEQ_INLINE_FRAME).
 * Zero-initialised, then one bb__rseq_frames_add per event. */
typedef struct bb__rseq_frames {
    uint64_t largest, inline_max;
} bb__rseq_frames;
void bb__rseq_frames_add(bb__rseq_frames *f, uint64_t frame);

/* The `frame` argument of bb__rseq_margin for one shard whose cursor holds `big_frame`: the
 * largest frame that may have been begun in it. Inline writes are at most f->inline_max; larger
 * ones are the out-of-line path's, which the cursor keeps. Not kept (0): f->largest. */
uint64_t bb__rseq_shard_frame(const bb__rseq_frames *f, uint64_t big_frame);

#endif /* BACKBEAT_FORMAT_RSEQ_MARGIN_H */
