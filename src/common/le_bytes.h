/* le_bytes.h — private helpers to encode and decode little-endian integers in byte buffers.
 *
 * The .bb format (FORMAT.md) is little-endian throughout. These inline helpers work byte by
 * byte, so they are correct on any host byte order, need no alignment, and are
 * async-signal-safe (no calls, no state). Shared by the dump writer, the reader and the CLI.
 * On a little-endian host built by GCC or Clang the u16/u32/u64 loads are one unaligned load
 * (a type of alignment 1 that may alias anything: still no call, at any optimisation level);
 * the byte loop is not always merged by the compiler, and the reader does these per record.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_LE_BYTES_H
#define BB_LE_BYTES_H

#include <stdint.h>

/* Store v at p[0..1], least significant byte first. */
static inline void bb__le_put_u16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

/* Store v at p[0..3], least significant byte first. */
static inline void bb__le_put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Store v at p[0..7], least significant byte first. */
static inline void bb__le_put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BB_LE_NATIVE 1
typedef uint16_t bb__le_u16 __attribute__((aligned(1), may_alias));
typedef uint32_t bb__le_u32 __attribute__((aligned(1), may_alias));
typedef uint64_t bb__le_u64 __attribute__((aligned(1), may_alias));
#else
#define BB_LE_NATIVE 0
#endif

/* Load the little-endian u16 at p[0..1]. */
static inline uint16_t bb__le_get_u16(const uint8_t *p) {
#if BB_LE_NATIVE
    return *(const bb__le_u16 *)(const void *)p;
#else
    return (uint16_t)(p[0] | ((uint16_t)p[1] << 8));
#endif
}

/* Load the little-endian u32 at p[0..3]. */
static inline uint32_t bb__le_get_u32(const uint8_t *p) {
#if BB_LE_NATIVE
    return *(const bb__le_u32 *)(const void *)p;
#else
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
    return v;
#endif
}

/* Load the little-endian u64 at p[0..7]. */
static inline uint64_t bb__le_get_u64(const uint8_t *p) {
#if BB_LE_NATIVE
    return *(const bb__le_u64 *)(const void *)p;
#else
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
#endif
}

/* Load the little-endian unsigned integer of `width` bytes (0..8) at p[0..width-1]. */
static inline uint64_t bb__le_get_uw(const uint8_t *p, unsigned width) {
    uint64_t v = 0;
    for (unsigned k = 0; k < width; k++) v |= (uint64_t)p[k] << (8 * k);
    return v;
}

#endif /* BB_LE_BYTES_H */
