/* backbeat/detail/recorder_inline.h — machinery of recorder.h's inline fast path: the recorder's
 * hot view, the thread slot, the CPU hint, the clocks, the record body and the macros behind
 * BB_RECORD, BB_SPAN_* and BB_INTERN (their contract is in recorder.h).
 *
 * Machinery: may change in any release. User code compiles it in, so the structures here are
 * ABI, guarded by the layout tag (detail/abi.h). Included by recorder.h only.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_DETAIL_RECORDER_INLINE_H
#define BACKBEAT_DETAIL_RECORDER_INLINE_H

#ifndef BACKBEAT_RECORDER_H
#error "include <backbeat/recorder.h>, not this file"
#endif

#include "abi.h"
#include "export.h"
#include "frame.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The shard cursor: total bytes ever reserved in the ring, alone on a 128-byte line. */
struct bb__cursor {
    uint64_t head;
    uint64_t damaged_below; /* owned by the library (bb__record_lapped); never read inline */
    uint64_t big_frame;     /* owned by the library: 0 (not kept), 1 (kept, none yet) or the
                               largest frame the out-of-line rseq path began to write in this
                               shard (src/format/rseq_margin.h); never read or written inline */
    uint8_t pad[104];
};

/* A thread's announcement of the record it is writing (src/capture/inflight.c): a dump re-copies
 * or blanks the records still in flight in its snapshot, and `backbeat recover` blanks those of
 * a killed process, so a writer stopped between reservation and copy never exposes stale bytes
 * of an older lap as a record. Each recorder has a table of them (the process-wide one for
 * anonymous recorders, one in the ring file for a file-backed recorder); a thread has the same
 * entry in every table, written only by it. `taglen` = record length << 32 | tag, with
 * tag = ((recorder serial & 0xFFFF) << 16 | shard) + 1, 0 when idle; `pos` = the reservation's
 * position, BB__POS_UNKNOWN between announcing and reserving.
 * ABI (detail/abi.h): written by inline code; only reached through a recorder whose enable word
 * matched the code's layout tag. */
struct bb__tslot {
    uint64_t taglen;
    uint64_t pos;
    uint32_t claimed; /* owned by inflight.c (meaningful in the process-wide table only) */
    uint32_t shared;  /* the overflow entry several threads use: ignored by dumps */
    uint8_t pad[104];
};
#define BB__POS_UNKNOWN UINT64_MAX
/* The calling thread's entry in every table, as a byte offset from a table's `slot_base`:
 * (index + 1) * sizeof(struct bb__tslot); 0 until the thread's first record attaches it. */
BB_API extern __thread uintptr_t bb__tls_slot_off __attribute__((tls_model("initial-exec")));
BB_API uintptr_t bb__tslot_attach(void);

/* The first bytes of every bb_recorder (read-mostly; 128-byte aligned).
 * ABI (detail/abi.h): read by inline code at these offsets. `enabled` is BB__ABI_LAYOUT while
 * capture is on and 0 while off, so code built against another layout sees it off. */
struct bb__recorder_hot {
    uint32_t enabled; /* atomic, relaxed: BB__ABI_LAYOUT (on) or 0 (off) */
    uint32_t shard_count;
    uint32_t clock;      /* BB__CLK_* */
    uint32_t cpu_mode;   /* BB__CPU_* */
    int64_t rseq_offset; /* __rseq_offset when cpu_mode == BB__CPU_RSEQ */
    uint64_t capacity;   /* bytes per ring, power of two */
    uint32_t cap_log2;
    uint32_t serial; /* atomic: the call-site cache key, process-unique; a new one with each
                        intern generation (src/capture/intern.c) */
    uint8_t *rings;  /* shard i at rings + (i << cap_log2) = ring_of[i] */
    struct bb__cursor *cursors;
    uint64_t fastmod_m;  /* Lemire's fastmod constant for shard_count */
    uint8_t **ring_of;   /* ring of each shard */
    uint64_t mask;       /* capacity - 1 */
    uint32_t tag_base;   /* ((serial & 0xFFFF) << 16) + 1: in-flight tag of shard 0 */
    uint32_t commit;     /* BB__COMMIT_*: chosen once at creation (src/capture/commit.c) */
    uintptr_t slot_base; /* the announcement table's address minus one entry (bb__tslot) */
    uint64_t tsc_base;   /* TSC clock: ns = ns_base + ((tsc - tsc_base) * mult) >> 32 */
    uint64_t tsc_mult;
    uint64_t ns_base;
    int64_t mono_offset; /* MONOTONIC clock: ns = monotonic ns + mono_offset */
    uint64_t manual_ns;  /* MANUAL clock (atomic) */
    bb_clock_fn user_fn; /* USER clock */
    void *user_ctx;
};

enum { BB__CLK_TSC = 1, BB__CLK_MONOTONIC = 2, BB__CLK_MANUAL = 3, BB__CLK_USER = 4 };
enum { BB__CPU_RSEQ = 1, BB__CPU_THREAD = 2, BB__CPU_SYSCALL = 3 };
/* How a record is reserved and committed. FETCH_ADD: an atomic fetch_add reserves, then the
 * copy, with in-flight announcements (any number of writers per shard). RSEQ: one restartable
 * sequence on the current CPU's own shard reads the cursor, copies and commits with a plain
 * store (one shard per possible CPU; x86_64). A recorder uses one of them for its whole life. */
enum { BB__COMMIT_FETCH_ADD = 0, BB__COMMIT_RSEQ = 1 };
/* Frames up to this many bytes are staged on the stack and copied by the inline sequence. */
#define BB__RSEQ_STAGE 256

#define BB__LIKELY(x) __builtin_expect(!!(x), 1)
#define BB__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define BB__INLINE static inline __attribute__((always_inline))

/* Out-of-line slow paths (recorder.c). */
BB_API void bb__record_wrap(bb_recorder *rec, uint32_t shard, uint64_t pos, uint64_t ts,
                            uint64_t id, const void *fields, size_t size);
BB_API void bb__record_too_large(bb_recorder *rec);
BB_API void bb__record_lapped(bb_recorder *rec, uint32_t shard, uint64_t pos, size_t total,
                              uint64_t head);
BB_API uint32_t bb__cpu_slow(void);
/* CLOCK_MONOTONIC in ns, for code compiled where <time.h> declares no POSIX clocks. */
BB_API uint64_t bb__clock_monotonic_ns(void);
BB_API uint32_t bb__intern_static_slow(bb_recorder *rec, uint64_t *cache, const char *s,
                                       size_t len);
BB_API void bb__span_cleanup(bb_span *span);
/* Which event ids trigger rules arm, by id modulo BB__ARMED_SLOTS (src/capture/registry.c), and
 * the hook that hands a committed record of an armed event to `rec`'s rules (recorder.c). */
#define BB__ARMED_SLOTS 4096
BB_API extern uint8_t bb__armed[BB__ARMED_SLOTS];
BB_API void bb__trigger_hit(bb_recorder *rec, const bb_event_desc *d, const void *fields,
                            uint64_t ts);
BB_API void bb__record_rseq_slow(bb_recorder *rec, uint64_t ts, uint64_t id, const void *fields,
                                 size_t size);

/* On, and laid out as these headers say (detail/abi.h): one relaxed load and a compare. */
BB__INLINE bool bb__recorder_on(const bb_recorder *rec) {
    return rec && __atomic_load_n(&((const struct bb__recorder_hot *)(const void *)rec)->enabled,
                                  __ATOMIC_RELAXED) == BB__ABI_LAYOUT;
}

/* The CPU this thread runs on (a hint: it may change right after). */
BB__INLINE uint32_t bb__cpu_hint(const struct bb__recorder_hot *h) {
#if defined(__x86_64__)
    if (BB__LIKELY(h->cpu_mode == BB__CPU_RSEQ)) {
        uint32_t cpu; /* struct rseq's cpu_id_start is its first member */
        __asm__ volatile("movl %%fs:(%1), %0" : "=r"(cpu) : "r"(h->rseq_offset));
        return cpu;
    }
    if (h->cpu_mode == BB__CPU_THREAD) { /* no rseq: spread threads by their thread pointer */
        uint64_t tp;
        __asm__ volatile("movq %%fs:0, %0" : "=r"(tp));
        return (uint32_t)(((tp >> 12) * UINT64_C(0x9E3779B97F4A7C15)) >> 40);
    }
#elif defined(__aarch64__)
    if (BB__LIKELY(h->cpu_mode == BB__CPU_RSEQ)) {
        return *(const volatile uint32_t *)((const char *)__builtin_thread_pointer() +
                                            h->rseq_offset);
    }
    if (h->cpu_mode == BB__CPU_THREAD) {
        uint64_t tp = (uint64_t)(uintptr_t)__builtin_thread_pointer();
        return (uint32_t)(((tp >> 12) * UINT64_C(0x9E3779B97F4A7C15)) >> 40);
    }
#endif
    return bb__cpu_slow();
}

/* cpu modulo shard_count: the identity while cpu < shard_count (the common case), else
 * Lemire's fastmod (two multiplies, no division). */
BB__INLINE uint32_t bb__shard_of(const struct bb__recorder_hot *h, uint32_t cpu) {
    if (BB__LIKELY(cpu < h->shard_count)) return cpu;
    __extension__ typedef unsigned __int128 bb__u128;
    uint64_t low = h->fastmod_m * cpu;
    return (uint32_t)(((bb__u128)low * h->shard_count) >> 64);
}

BB__INLINE uint64_t bb__clock_read(const struct bb__recorder_hot *h) {
    __extension__ typedef unsigned __int128 bb__u128;
#if defined(__x86_64__)
    if (BB__LIKELY(h->clock == BB__CLK_TSC)) {
        uint32_t lo, hi;
        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
        uint64_t d = (((uint64_t)hi << 32) | lo) - h->tsc_base;
        return h->ns_base + (uint64_t)(((bb__u128)d * h->tsc_mult) >> 32);
    }
#endif
    if (BB__LIKELY(h->clock == BB__CLK_MONOTONIC)) {
#if defined(CLOCK_MONOTONIC) /* <time.h> declared POSIX clocks (not so under -std=c11 etc.) */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + (uint64_t)h->mono_offset;
#else
        return bb__clock_monotonic_ns() + (uint64_t)h->mono_offset;
#endif
    }
    if (h->clock == BB__CLK_MANUAL) return __atomic_load_n(&h->manual_ns, __ATOMIC_RELAXED);
    return h->user_fn(h->user_ctx);
}

#if defined(__x86_64__)
/* The rseq commit path (BB__COMMIT_RSEQ; x86_64). The frame is staged on the stack as whole
 * words (zero padded: each word one store, so the sequence's loads forward from them); then one
 * restartable sequence (struct rseq at %fs:rseq_offset: cpu_id at +4, rseq_cs at +8) reads the
 * CPU number, that shard's cursor, checks that the padded frame fits before the ring's end,
 * copies it and commits with one plain store of the new cursor, its last instruction.
 * Preemption, migration or a signal restarts it from the top (the abort handler, after the
 * signature the kernel checks, jumps back), so a record is either committed whole or not at
 * all; the bytes an aborted attempt (or the padding) wrote lie above the cursor, which dumps
 * account for (recorder_dump.c). Larger frames, the ring's end and a CPU number beyond the
 * shards go to bb__record_rseq_slow. The descriptor lives in the object this code is compiled
 * into (a plugin, say): every way out of the sequence stores 0 to rseq_cs (the kernel clears it
 * itself on abort), so the kernel never reads it after the object is unloaded (dlclose). */

/* Word k of the frame [ts][id][fields][u16 len] zero-padded (constant-folded per call site). */
BB__INLINE uint64_t bb__frame_word(uint64_t ts, uint64_t id, const void *fields, size_t size,
                                   size_t k) {
    if (k == 0) return ts;
    if (k == 1) return id;
    uint64_t v = 0;
    const size_t a = 8 * k - 16; /* offset in the field bytes of this word's first byte */
    if (a < size) memcpy(&v, (const uint8_t *)fields + a, size - a < 8 ? size - a : 8);
    const uint64_t len = BB__FRAME_LEN(size);
    if (size >= a && size < a + 8) v |= (len & 0xFF) << (8 * (size - a));
    if (size + 1 >= a && size + 1 < a + 8) v |= (len >> 8) << (8 * (size + 1 - a));
    return v;
}

/* The sequence, around the copy of the staged words from %[src] to %%r9. */
#define BB__RSEQ_BEGIN                                                \
    "1:\n\t"                                                          \
    "leaq 3f(%%rip), %%rax\n\t"                                       \
    "movq %c[o_rs](%[h]), %%rdx\n\t"                                  \
    "movq %%rax, %%fs:8(%%rdx)\n\t" /* rseq->rseq_cs = &descriptor */ \
    "2:\n\t"                                                          \
    "movl %%fs:4(%%rdx), %%eax\n\t" /* cpu_id */                      \
    "cmpl %c[o_sc](%[h]), %%eax\n\t"                                  \
    "jae 7f\n\t"                                                      \
    "movq %%rax, %%rcx\n\t"                                           \
    "shlq $7, %%rcx\n\t"                                              \
    "addq %c[o_cur](%[h]), %%rcx\n\t" /* rcx: the shard's cursor */   \
    "movq (%%rcx), %%r8\n\t"          /* r8: head */                  \
    "movq %c[o_mask](%[h]), %%r9\n\t"                                 \
    "andq %%r8, %%r9\n\t" /* r9: offset */                            \
    "leaq (%%r9,%[w],8), %%r10\n\t"                                   \
    "cmpq %c[o_cap](%[h]), %%r10\n\t"                                 \
    "ja 7f\n\t"                                                       \
    "movq %c[o_ring](%[h]), %%r10\n\t"                                \
    "addq (%%r10,%%rax,8), %%r9\n\t" /* r9: destination */
#define BB__RSEQ_END                                                                        \
    "addq %[tot], %%r8\n\t"                                                                 \
    "movq %%r8, (%%rcx)\n\t" /* commit */                                                   \
    "5:\n\t"                                                                                \
    "movq $0, %%fs:8(%%rdx)\n\t" /* rseq_cs = NULL: never left pointing into this object */ \
    ".pushsection __rseq_cs, \"aw?\"\n\t"                                                   \
    ".balign 32\n\t"                                                                        \
    "3:\n\t"                                                                                \
    ".long 0, 0\n\t"            /* version, flags */                                        \
    ".quad 2b, 5b - 2b, 6f\n\t" /* start_ip, post_commit_offset, abort_ip */                \
    ".popsection\n\t"                                                                       \
    ".pushsection __rseq_failure, \"ax?\"\n\t"                                              \
    ".byte 0x0f, 0xb9, 0x3d\n\t" /* ud1 with the signature as displacement */               \
    ".long 0x53053053\n\t"       /* RSEQ_SIG (x86), the 4 bytes before abort_ip */          \
    "6:\n\t"                                                                                \
    "jmp 1b\n\t"                                                                            \
    "7:\n\t" /* out of the sequence to the slow path, descriptor cleared */                 \
    "movq $0, %%fs:8(%%rdx)\n\t"                                                            \
    "jmp %l[slow]\n\t"                                                                      \
    ".popsection"
#define BB__RSEQ_W(k) "movq " #k "(%[src]), %%r10\n\tmovq %%r10, " #k "(%%r9)\n\t"
#define BB__RSEQ_LOOP                  \
    "xorl %%eax, %%eax\n\t"            \
    "4:\n\t"                           \
    "movq (%[src],%%rax,8), %%r10\n\t" \
    "movq %%r10, (%%r9,%%rax,8)\n\t"   \
    "incq %%rax\n\t"                   \
    "cmpq %[w], %%rax\n\t"             \
    "jb 4b\n\t"
#define BB__RSEQ_ASM(copy)                                                                   \
    __asm__ goto(BB__RSEQ_BEGIN copy BB__RSEQ_END                                            \
                 :                                                                           \
                 : [h] "r"(h), [src] "r"(stage), [w] "r"(words), [tot] "r"((uint64_t)total), \
                   [o_rs] "i"(offsetof(struct bb__recorder_hot, rseq_offset)),               \
                   [o_sc] "i"(offsetof(struct bb__recorder_hot, shard_count)),               \
                   [o_cur] "i"(offsetof(struct bb__recorder_hot, cursors)),                  \
                   [o_mask] "i"(offsetof(struct bb__recorder_hot, mask)),                    \
                   [o_cap] "i"(offsetof(struct bb__recorder_hot, capacity)),                 \
                   [o_ring] "i"(offsetof(struct bb__recorder_hot, ring_of))                  \
                 : "rax", "rcx", "rdx", "r8", "r9", "r10", "cc", "memory"                    \
                 : slow)

BB__INLINE void bb__record_rseq(bb_recorder *rec, struct bb__recorder_hot *h, uint64_t ts,
                                uint64_t id, const void *fields, size_t size) {
    const size_t total = BB__FRAME_SIZE(size);
    if (BB__UNLIKELY(total > BB__RSEQ_STAGE)) {
        bb__record_rseq_slow(rec, ts, id, fields, size);
        return;
    }
    uint64_t stage[BB__RSEQ_STAGE / 8];
    const uint64_t words = (total + 7) / 8;
    for (size_t k = 0; k < words; k++) stage[k] = bb__frame_word(ts, id, fields, size, k);
    /* Frames of up to 8 words (46 field bytes) are copied by straight-line moves. */
    switch (words) {
    case 3: BB__RSEQ_ASM(BB__RSEQ_W(0) BB__RSEQ_W(8) BB__RSEQ_W(16)); return;
    case 4: BB__RSEQ_ASM(BB__RSEQ_W(0) BB__RSEQ_W(8) BB__RSEQ_W(16) BB__RSEQ_W(24)); return;
    case 5:
        BB__RSEQ_ASM(BB__RSEQ_W(0) BB__RSEQ_W(8) BB__RSEQ_W(16) BB__RSEQ_W(24) BB__RSEQ_W(32));
        return;
    case 6:
        BB__RSEQ_ASM(BB__RSEQ_W(0) BB__RSEQ_W(8) BB__RSEQ_W(16) BB__RSEQ_W(24) BB__RSEQ_W(32)
                         BB__RSEQ_W(40));
        return;
    case 7:
        BB__RSEQ_ASM(BB__RSEQ_W(0) BB__RSEQ_W(8) BB__RSEQ_W(16) BB__RSEQ_W(24) BB__RSEQ_W(32)
                         BB__RSEQ_W(40) BB__RSEQ_W(48));
        return;
    case 8:
        BB__RSEQ_ASM(BB__RSEQ_W(0) BB__RSEQ_W(8) BB__RSEQ_W(16) BB__RSEQ_W(24) BB__RSEQ_W(32)
                         BB__RSEQ_W(40) BB__RSEQ_W(48) BB__RSEQ_W(56));
        return;
    default: BB__RSEQ_ASM(BB__RSEQ_LOOP); return;
    }
slow:
    bb__record_rseq_slow(rec, ts, id, fields, size);
}
#endif

/* Reserve and write one record of `size` field bytes (a compile-time constant at BB_RECORD call
 * sites) with timestamp `ts`, or the clock's reading when `read_clock` (a constant). The
 * recorder must be non-NULL. */
BB__INLINE uint64_t bb__record_body(bb_recorder *rec, uint64_t id, bool read_clock, uint64_t ts,
                                    const void *fields, size_t size) {
    struct bb__recorder_hot *h = (struct bb__recorder_hot *)(void *)rec;
    const size_t total = BB__FRAME_SIZE(size);
    /* Rings hold at least 4096 bytes, so the check vanishes for every smaller record. */
    if (total > 4096 && BB__UNLIKELY(total > h->capacity)) {
        bb__record_too_large(rec);
        return ts;
    }
#if defined(__x86_64__)
    if (BB__LIKELY(h->commit == BB__COMMIT_RSEQ)) {
        if (read_clock) ts = bb__clock_read(h);
        bb__record_rseq(rec, h, ts, id, fields, size);
        return ts;
    }
#endif
    /* Manual and user clocks are read first (a call keeps few values live here); TSC and
     * monotonic last (see below). */
    if (read_clock && h->clock >= BB__CLK_MANUAL) ts = bb__clock_read(h);
    uint32_t shard = bb__shard_of(h, bb__cpu_hint(h));
    uintptr_t so = bb__tls_slot_off;
    if (BB__UNLIKELY(!so)) so = bb__tslot_attach();
    struct bb__tslot *t = (struct bb__tslot *)(h->slot_base + so);
    /* Announce, reserve, publish the position, copy, retire (plain stores on x86, to a line only
     * this thread writes; the acq_rel fetch_add orders the announcement before the reservation,
     * and a dump seeing `pos` change knows the previous record is complete). A signal
     * handler recording in between (this record interrupted the thread's own record: `prev`
     * is non-zero) puts the interrupted announcement back when it is done, so a dump taken
     * later in the handler still blanks the record the thread left half written. */
    const uint64_t prev = __atomic_load_n(&t->taglen, __ATOMIC_RELAXED);
    const uint64_t prev_pos = __atomic_load_n(&t->pos, __ATOMIC_RELAXED);
    __atomic_store_n(&t->pos, BB__POS_UNKNOWN, __ATOMIC_RELEASE);
    __atomic_store_n(&t->taglen, ((uint64_t)total << 32) | (h->tag_base + shard), __ATOMIC_RELEASE);
    /* The TSC or monotonic clock is read last before the reservation: records of a shard are
     * then nearly in timestamp order, and the read overlaps the stores above. */
    if (read_clock && h->clock < BB__CLK_MANUAL) ts = bb__clock_read(h);
    /* acq_rel: the record's bytes are not written before the reservation is visible, which the
     * dump's overwrite check relies on (a lock xadd on x86 either way). */
    uint64_t pos = __atomic_fetch_add(&h->cursors[shard].head, (uint64_t)total, __ATOMIC_ACQ_REL);
    __atomic_store_n(&t->pos, pos, __ATOMIC_RELEASE);
    uint64_t off = pos & h->mask;
    if (BB__LIKELY(off + total <= h->capacity)) {
        bb__frame_write(h->ring_of[shard] + off, ts, id, fields, size); /* size is a constant */
    } else {
        bb__record_wrap(rec, shard, pos, ts, id, fields, size);
    }
    /* Lapped while writing (descheduled for a whole lap of the ring): these bytes may have
     * landed over newer records. Rare; the slow path marks the ring so dumps drop them. */
    if (BB__UNLIKELY(__atomic_load_n(&h->cursors[shard].head, __ATOMIC_RELAXED) - pos >
                     h->capacity))
        bb__record_lapped(rec, shard, pos, total,
                          __atomic_load_n(&h->cursors[shard].head, __ATOMIC_RELAXED));
    __atomic_store_n(&t->taglen, 0, __ATOMIC_RELEASE);
    if (BB__UNLIKELY(prev != 0)) { /* retired first: never our tag with the other's pos */
        __atomic_store_n(&t->pos, prev_pos, __ATOMIC_RELEASE);
        __atomic_store_n(&t->taglen, prev, __ATOMIC_RELEASE);
    }
    return ts;
}

BB__INLINE uint64_t bb__record_ts(bb_recorder *rec, uint64_t id, uint64_t ts, const void *fields,
                                  size_t size) {
    return bb__record_body(rec, id, false, ts, fields, size);
}

BB__INLINE uint64_t bb__record_inline(bb_recorder *rec, uint64_t id, const void *fields,
                                      size_t size) {
    return bb__record_body(rec, id, true, 0, fields, size);
}

/* After the commit: a record of an event some trigger rule may name (its id's byte in
 * bb__armed, set by the registry when a rule arms the event; a collision of ids only costs a
 * lookup) is handed to the recorder's rules. Other events pay one load and a branch that is
 * never taken. */
BB__INLINE void bb__record_armed(bb_recorder *rec, const bb_event_desc *d, uint64_t id,
                                 const void *fields, uint64_t ts) {
    if (BB__UNLIKELY(__atomic_load_n(&bb__armed[id & (BB__ARMED_SLOTS - 1)], __ATOMIC_RELAXED)))
        bb__trigger_hit(rec, d, fields, ts);
}

/* Record `ident` from `p` into `rec` (on), then look at bb__armed. */
#define BB__RECORD_CHECKED(rec, ident, p)                                           \
    do {                                                                            \
        const uint64_t bb__id = bb_event_id(BB_DESC(ident));                        \
        bb__record_armed(rec, BB_DESC(ident), bb__id, p,                            \
                         bb__record_inline(rec, bb__id, p, BB_RECORD_SIZE(ident))); \
    } while (0)

BB__INLINE uint32_t bb__intern_cached(bb_recorder *rec, uint64_t *cache, const char *s,
                                      size_t len) {
    uint64_t c = __atomic_load_n(cache, __ATOMIC_RELAXED);
    if (BB__LIKELY(rec &&
                   (uint32_t)(c >> 32) ==
                       __atomic_load_n(&((const struct bb__recorder_hot *)(void *)rec)->serial,
                                       __ATOMIC_RELAXED)))
        return (uint32_t)c;
    return bb__intern_static_slow(rec, cache, s, len);
}

/* Set the span_id field (role BB_ROLE_SPAN_ID) of the field bytes `ev` of event `d` to `id`, and
 * its parent_span_id field to `parent` when non-zero (both u64, checked by event.h). */
BB__INLINE void bb__span_patch(void *ev, const bb_event_desc *d, uint64_t id, uint64_t parent) {
    for (uint16_t i = 0; i < d->field_count; i++) {
        const bb_field_desc *f = &d->fields[i];
        if (f->role == BB_ROLE_SPAN_ID && f->width == 8) memcpy((uint8_t *)ev + f->offset, &id, 8);
        else if (f->role == BB_ROLE_PARENT_SPAN_ID && f->width == 8 && parent)
            memcpy((uint8_t *)ev + f->offset, &parent, 8);
    }
}

/* Empty initializer braces (an event without fields) are a GNU/C23 extension, designated
 * initializers a C++20 one (accepted by g++ and clang++ in earlier modes); fields left out are
 * zero by design. */
#define BB__PRAGMA_(x) _Pragma(#x)
#if defined(__cplusplus) && defined(__clang__)
#define BB__EXT_CXX                                                \
    BB__PRAGMA_(GCC diagnostic ignored "-Wunknown-warning-option") \
    BB__PRAGMA_(GCC diagnostic ignored "-Wc++20-extensions")       \
    BB__PRAGMA_(GCC diagnostic ignored "-Wc++20-designator")
#elif defined(__cplusplus)
#define BB__EXT_CXX                                 \
    BB__PRAGMA_(GCC diagnostic ignored "-Wpragmas") \
    BB__PRAGMA_(GCC diagnostic ignored "-Wc++20-extensions")
#else
#define BB__EXT_CXX
#endif
#define BB__EXT_BEGIN                                \
    BB__PRAGMA_(GCC diagnostic push)                 \
    BB__PRAGMA_(GCC diagnostic ignored "-Wpedantic") \
    BB__PRAGMA_(GCC diagnostic ignored "-Wmissing-field-initializers") BB__EXT_CXX
#define BB__EXT_END BB__PRAGMA_(GCC diagnostic pop)

#ifndef BACKBEAT_COMPILED_OUT

#define BB__RECORD_(rec_, ident, ...)                         \
    do {                                                      \
        bb_recorder *const bb__rec = (rec_);                  \
        if (bb__recorder_on(bb__rec)) {                       \
            BB__EXT_BEGIN const ident bb__ev = {__VA_ARGS__}; \
            BB__EXT_END                                       \
            BB__RECORD_CHECKED(bb__rec, ident, &bb__ev);      \
        }                                                     \
    } while (0)

#define BB__RECORD_PTR_(rec_, ident, ptr)              \
    do {                                               \
        bb_recorder *const bb__rec = (rec_);           \
        if (bb__recorder_on(bb__rec)) {                \
            const ident *const bb__p = (ptr);          \
            BB__RECORD_CHECKED(bb__rec, ident, bb__p); \
        }                                              \
    } while (0)

#define BB__SPAN_ENTER_(rec_, ident, parent_, ...)                       \
    __extension__({                                                      \
        bb_recorder *const bb__rec = (rec_);                             \
        uint64_t bb__sid = 0;                                            \
        if (bb__recorder_on(bb__rec)) {                                  \
            bb__sid = bb_span_id_new();                                  \
            BB__EXT_BEGIN ident bb__ev = {__VA_ARGS__};                  \
            BB__EXT_END                                                  \
            bb__span_patch(&bb__ev, BB_DESC(ident), bb__sid, (parent_)); \
            BB__RECORD_CHECKED(bb__rec, ident, &bb__ev);                 \
        }                                                                \
        bb__sid;                                                         \
    })

#define BB__SPAN_EXIT_(rec_, ident, id_, ...)                  \
    do {                                                       \
        bb_recorder *const bb__rec = (rec_);                   \
        if (bb__recorder_on(bb__rec)) {                        \
            BB__EXT_BEGIN ident bb__ev = {__VA_ARGS__};        \
            BB__EXT_END                                        \
            bb__span_patch(&bb__ev, BB_DESC(ident), (id_), 0); \
            BB__RECORD_CHECKED(bb__rec, ident, &bb__ev);       \
        }                                                      \
    } while (0)

#define BB__SPAN_SCOPED_(var, rec_, enter_ident, exit_ident, parent_, ...)                 \
    __attribute__((cleanup(bb__span_cleanup))) bb_span var = {(rec_), NULL, 0, (parent_)}; \
    if ((var.id = BB__SPAN_ENTER_(var.rec, enter_ident, var.parent, __VA_ARGS__)) != 0)    \
        var.exit = BB_DESC(exit_ident);                                                    \
    else (void)0

#define BB__INTERN_(rec_, lit)                                                 \
    __extension__({                                                            \
        static uint64_t bb__intern_cache;                                      \
        bb__intern_cached((rec_), &bb__intern_cache, "" lit, sizeof(lit) - 1); \
    })

#else /* BACKBEAT_COMPILED_OUT: type-check in unevaluated operands, emit nothing */

#define BB__RECORD_(rec_, ident, ...)                     \
    do {                                                  \
        (void)sizeof(rec_);                               \
        BB__EXT_BEGIN(void) sizeof((ident){__VA_ARGS__}); \
        BB__EXT_END                                       \
    } while (0)
#define BB__RECORD_PTR_(rec_, ident, ptr)    \
    do {                                     \
        (void)sizeof(rec_);                  \
        (void)sizeof(*(const ident *)(ptr)); \
    } while (0)
#define BB__SPAN_ENTER_(rec_, ident, parent_, ...)        \
    __extension__({                                       \
        (void)sizeof(rec_);                               \
        (void)sizeof(parent_);                            \
        BB__EXT_BEGIN(void) sizeof((ident){__VA_ARGS__}); \
        BB__EXT_END(uint64_t) 0;                          \
    })
#define BB__SPAN_EXIT_(rec_, ident, id_, ...)             \
    do {                                                  \
        (void)sizeof(rec_);                               \
        (void)sizeof(id_);                                \
        BB__EXT_BEGIN(void) sizeof((ident){__VA_ARGS__}); \
        BB__EXT_END                                       \
    } while (0)
#define BB__SPAN_SCOPED_(var, rec_, enter_ident, exit_ident, parent_, ...) \
    BB__EXT_BEGIN(void) sizeof((enter_ident){__VA_ARGS__});                \
    (void)sizeof(exit_ident);                                              \
    BB__EXT_END __attribute__((unused))                                    \
    const bb_span var = {NULL, NULL, (uint64_t)0 * sizeof(rec_), (uint64_t)0 * sizeof(parent_)}
#define BB__INTERN_(rec_, lit) ((void)sizeof(rec_), (void)sizeof(lit), (uint32_t)0)

#endif /* BACKBEAT_COMPILED_OUT */

#ifdef __cplusplus
}
#endif

#endif /* BACKBEAT_DETAIL_RECORDER_INLINE_H */
