/* event_id.c — content-addressed event ids (FORMAT.md "Event ids"): the public entry points
 * (bb_event_id_compute, bb_event_id_input, bb_event_id_resolve, bb_fnv1a64) over the one
 * walker of the id's byte stream, format/event_schema.c. Nothing here allocates or takes a
 * lock. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
#include "backbeat/registry.h"
#include "format/event_schema.h"

/* Plain FNV-1a 64 of `len` bytes at `data`. */
uint64_t bb_fnv1a64(const void *data, size_t len) {
    const uint8_t *p = (const uint8_t *)data;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* The id of `desc`, computed from its content; does not store it. */
uint64_t bb_event_id_compute(const bb_event_desc *desc) {
    return bb__event_hash(desc, NULL, 0, NULL);
}

/* Copy the exact hash input of `desc` into out[0..cap) and return its full length (which may
 * exceed cap; out may be NULL when cap is 0). */
size_t bb_event_id_input(const bb_event_desc *desc, uint8_t *out, size_t cap) {
    size_t len = 0;
    (void)bb__event_hash(desc, out, cap, &len);
    return len;
}

/* Compute and store desc->id if it is still 0; return it. Racing callers store the same
 * value. */
uint64_t bb_event_id_resolve(bb_event_desc *desc) {
    uint64_t id = __atomic_load_n(&desc->id, __ATOMIC_RELAXED);
    if (id == 0) {
        id = bb_event_id_compute(desc);
        __atomic_store_n(&desc->id, id, __ATOMIC_RELAXED);
    }
    return id;
}
