/* backbeat/detail/frame.h — the record frame of format v1, its one home (FORMAT.md "Records and
 * rings"): [ts u64][event_id u64][field bytes][u16 len], little-endian, len = 16 + field bytes
 * (the record as read backwards from its trailer). The recorder's inline fast path, its wrap
 * path, `backbeat merge` and the reader all size and write frames through this header.
 *
 * Machinery: may change in any release (the wire layout itself is the format's, and does not).
 * Written with memcpy of native integers: backbeat builds only on little-endian targets. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_DETAIL_FRAME_H
#define BACKBEAT_DETAIL_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "backbeat: the .bb record frame is written natively; big-endian targets are not supported"
#endif

#define BB__FRAME_TS 0        /* offset of the timestamp (ns) */
#define BB__FRAME_ID 8        /* offset of the event id */
#define BB__FRAME_HEAD 16     /* offset of the field bytes; also the len of an empty record */
#define BB__FRAME_TRAILER 2   /* the u16 length after the field bytes */
#define BB__FRAME_OVERHEAD 18 /* frame bytes around the field bytes */

/* Bytes a record of `size` field bytes occupies in a ring. */
#define BB__FRAME_SIZE(size) ((size_t)(size) + BB__FRAME_OVERHEAD)
/* The trailer's value for `size` field bytes. */
#define BB__FRAME_LEN(size) ((uint16_t)((size) + BB__FRAME_HEAD))

/* The 16-byte head of a frame into dst. */
static inline __attribute__((always_inline)) void bb__frame_head(uint8_t *dst, uint64_t ts,
                                                                 uint64_t id) {
    memcpy(dst + BB__FRAME_TS, &ts, 8);
    memcpy(dst + BB__FRAME_ID, &id, 8);
}

/* A whole frame (BB__FRAME_SIZE(size) bytes) into contiguous dst. With a constant `size` (every
 * BB_RECORD call site) this compiles to a few stores. */
static inline __attribute__((always_inline)) void
bb__frame_write(uint8_t *dst, uint64_t ts, uint64_t id, const void *fields, size_t size) {
    uint16_t len = BB__FRAME_LEN(size);
    bb__frame_head(dst, ts, id);
    if (size) memcpy(dst + BB__FRAME_HEAD, fields, size);
    memcpy(dst + BB__FRAME_HEAD + size, &len, BB__FRAME_TRAILER);
}

#endif /* BACKBEAT_DETAIL_FRAME_H */
