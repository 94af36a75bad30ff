/* ring_cut.h — the cut a reader makes of a ring that writers may be storing into while it is
 * copied (FORMAT.md "Records and rings"): pure functions over (head before the copy, head after
 * it, capacity, the copied window) shared by the live dump (src/capture/recorder_dump.c) and the
 * ring-file reader (src/read/ring_window.c), so that a live dump and a read of a running
 * process's ring file drop exactly the same records: every record whose bytes could have changed
 * during the copy. Positions are absolute (the cursor's), the ring holds `cap` bytes (a power of
 * two), the window is [low, head) with low = head - cap (or 0). */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_FORMAT_RING_CUT_H
#define BACKBEAT_FORMAT_RING_CUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/detail/frame.h"

/* The absolute position, in the last lap below `head` (> pos), of the ring bytes that position
 * `pos` occupies: pos + k * cap for the largest k with that position < head. */
static inline uint64_t bb__ring_last_lap(uint64_t pos, uint64_t head, uint64_t cap) {
    return pos + (head - 1 - pos) / cap * cap;
}

/* The bound of a copy: the window was read at head `h0` and copied, then the head was read
 * again as `h1`, plus the rseq margin at h1 (format/rseq_margin.h; 0 on the fetch_add path).
 * Positions below the returned one may have been overwritten during the copy (by writes one lap
 * later: positions < cap hit nothing old); 0 when none. */
static inline uint64_t bb__ring_copy_cut(uint64_t h0, uint64_t h1, uint64_t margin, uint64_t cap) {
    uint64_t top = h1 + margin, from = h0 > cap ? h0 : cap;
    return top > from ? top - cap : 0;
}

/* A copy catching up on its writers (the live dump, src/capture/recorder_dump.c, and a snapshot
 * of a running process's ring file, src/read/ring_window.c): after its first pass, newest
 * first, it copies what the writers added meanwhile, newest first, moving its window up to the
 * head read again, while during the pass before they overwrote more than 1/128 of its window
 * [top - cap, top) (up to its cut `end`), in BB__RING_CATCH_UP_ROUNDS passes at most: each copies
 * only what was written during the one before, so the passes shorten and the loss is what the
 * writers add during the last, short one. */
#define BB__RING_CATCH_UP_ROUNDS 8
static inline bool bb__ring_catch_up(uint64_t top, uint64_t end, uint64_t cap) {
    uint64_t low = top > cap ? top - cap : 0;
    return end > low && (end - low) * 128 > top - low;
}

/* Where the walk of a cut below `end` (bb__ring_cut, bb__ring_cut_below) may start in a window
 * below `head` written by the rseq commit path only (src/capture/commit.c): there every lap
 * begins with a record at a multiple of `cap` (a record that does not fit before the ring's end
 * begins the next lap; the tail it skips is zeroed), so the walk down from `head` over the whole
 * records of the lap reaches that multiple, L, on a record's start, and when L >= end none of
 * them is cut: the walk from L finds the same cut, a ring shorter by head - L (half a ring on
 * average; issue 37). `head` otherwise. Not for a ring whose writers may not be rseq's (a ring
 * file does not say): a record there may straddle L. */
static inline uint64_t bb__ring_lap_start(uint64_t head, uint64_t end, uint64_t cap) {
    uint64_t lap = head & ~(cap - 1);
    return head >= cap && lap >= end ? lap : head;
}

/* Zero the bytes of absolute positions [from, to) in a copy of a ring of `cap` bytes. */
void bb__ring_blank(uint8_t *buf, uint64_t cap, uint64_t from, uint64_t to);

/* The record size of event `id` (its field bytes) as the reader of the copy will know it, or
 * -1 when the reader does not know the event. */
typedef int32_t (*bb__ring_size_fn)(void *ctx, uint64_t id);

/* The position where the reader's walk of the copy `ring` down from `head` (FORMAT.md "Records
 * and rings", the steps of src/read/reader.c bb_shard_walk over the same schemas) first accepts
 * a record that starts below `end`: zeroing [low, there) leaves every record the walk accepts
 * above, and none that overlaps a position below `end`. Runs of zeros are skipped a word at a
 * time: linear in the window, fast over empty (sparse) rings. */
uint64_t bb__ring_cut_below(const uint8_t *ring, uint64_t cap, uint64_t low, uint64_t head,
                            uint64_t end, bb__ring_size_fn size, void *ctx);

/* The start of the lowest record the walk down from `head` accepts (head when none). */
uint64_t bb__ring_lowest(const uint8_t *ring, uint64_t cap, uint64_t low, uint64_t head,
                         bb__ring_size_fn size, void *ctx);

/* Called for each record [start, end) the walk accepts, newest first; true stops the walk. */
typedef bool (*bb__ring_visit_fn)(void *vctx, uint64_t start, uint64_t end);

/* The reader's walk down from `head` to `low` (as bb__ring_lowest), calling `visit` for each
 * record it accepts. */
void bb__ring_walk_each(const uint8_t *ring, uint64_t cap, uint64_t low, uint64_t head,
                        bb__ring_size_fn size, void *ctx, bb__ring_visit_fn visit, void *vctx);

/* `n` bytes of the ring at absolute position `pos` into out (wrapping at the ring's end). */
void bb__ring_read(const uint8_t *ring, uint64_t cap, uint64_t pos, void *out, size_t n);

/* Cut the copy below `end` (a position in the window; nothing when end <= low): zero [low,
 * bb__ring_cut_below(...)). Returns the new bottom of the window (low when nothing was cut). */
uint64_t bb__ring_cut(uint8_t *ring, uint64_t cap, uint64_t low, uint64_t head, uint64_t end,
                      bb__ring_size_fn size, void *ctx);

#endif /* BACKBEAT_FORMAT_RING_CUT_H */
