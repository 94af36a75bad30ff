/* span.c — span ids minted without coordination (per-thread counter in the high 48 bits, a
 * per-thread seed in the low 16) and the generic span enter/exit records used by the scoped
 * helper: fields are found by their role (span_id, parent_span_id) in the descriptor. */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "capture/abi_check.h"
#include "capture/recorder_internal.h"

/* Per-thread state: (counter << 16) | seed; 0 = not seeded yet. */
static __thread uint64_t span_state __attribute__((tls_model("initial-exec")));
static uint32_t next_seed; /* atomic: the next thread's seed */

/* Contract: a fresh non-zero span id, unique within the process for the first 65536 threads
 * and 2^48 spans per thread. Async-signal-safe: a signal handler minting on the same thread
 * gets another id (the per-thread update is one atomic RMW). */
uint64_t bb_span_id_new(void) {
    uint64_t s = __atomic_load_n(&span_state, __ATOMIC_RELAXED);
    if (__builtin_expect(s == 0, 0)) {
        uint64_t seed = __atomic_fetch_add(&next_seed, 1, __ATOMIC_RELAXED) & 0xFFFFu;
        uint64_t expect = 0;
        __atomic_compare_exchange_n(&span_state, &expect, (UINT64_C(1) << 16) | seed, false,
                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    }
    return __atomic_fetch_add(&span_state, UINT64_C(1) << 16, __ATOMIC_RELAXED);
}

/* Write the low `width` bytes of v (little-endian) at p. */
static void put_le(uint8_t *p, uint16_t width, uint64_t v) {
    for (uint16_t i = 0; i < width && i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Contract: see recorder.h (span_id role field = id; parent_span_id role field = parent when
 * parent != 0; other bytes from `fields` or zero). */
bb_status bb_span_record(bb_recorder *rec, const bb_event_desc *desc, uint64_t id, uint64_t parent,
                         const void *fields, size_t size) {
    if (!rec || !desc || !bb__abi_accept(desc, "events", false)) return BB_ERR_INVALID;
    if (fields && size != desc->record_size) return BB_ERR_INVALID;
    if (desc->record_size > 4096) return BB_ERR_TOO_LARGE;
    if (!bb_recorder_enabled(rec)) return BB_ERR_DISABLED;
    uint8_t buf[4096];
    if (fields) memcpy(buf, fields, desc->record_size);
    else memset(buf, 0, desc->record_size);
    for (uint16_t i = 0; i < desc->field_count; i++) {
        const bb_field_desc *f = &desc->fields[i];
        if ((uint32_t)f->offset + f->width > desc->record_size) continue;
        if (f->role == BB_ROLE_SPAN_ID) put_le(buf + f->offset, f->width, id);
        if (f->role == BB_ROLE_PARENT_SPAN_ID && parent) put_le(buf + f->offset, f->width, parent);
    }
    return bb_record_event(rec, desc, buf, desc->record_size);
}

/* Contract: record span->exit for span->id / span->parent once, then forget it. */
bb_status bb_span_end(bb_span *span) {
    if (!span || !span->exit) return BB_OK;
    const bb_event_desc *exit = span->exit;
    span->exit = NULL;
    return bb_span_record(span->rec, exit, span->id, span->parent, NULL, 0);
}

/* The cleanup function of BB_SPAN_SCOPED. */
void bb__span_cleanup(bb_span *span) { (void)bb_span_end(span); }
