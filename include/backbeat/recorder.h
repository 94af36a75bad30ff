/* backbeat/recorder.h — the capture runtime: per-CPU lock-free rings, clocks, spans, interning,
 * and dumps.
 *
 * A bb_recorder owns N shards, each a ring of a power-of-two number of bytes with a monotonic
 * cursor alone on its own 128-byte line. Recording an event (BB_RECORD) is an inline fast path:
 * one relaxed load of the enable flag; the CPU number from the thread's rseq area (glibc
 * registers rseq for every thread and exports __rseq_offset); a timestamp; one atomic fetch_add
 * that reserves the record's bytes in the shard of that CPU; and a copy of
 * [ts u64][event_id u64][fields][u16 length] whose size is a compile-time constant. No lock, no
 * allocation, no syscall, no hashing. The fast path is async-signal-safe and safe from any number
 * of threads sharing a CPU (the fetch_add makes reservations disjoint).
 *
 * Compile with -DBACKBEAT_COMPILED_OUT and every BB_RECORD / BB_RECORD_PTR / BB_SPAN_* / intern
 * macro becomes nothing: no load, no call, no symbol reference (arguments are type-checked in an
 * unevaluated sizeof only).
 *
 * Clocks: timestamps are nanoseconds since the Unix epoch. BB_CLOCK_TSC reads the invariant TSC
 * and converts with a multiply-shift calibrated against CLOCK_MONOTONIC; BB_CLOCK_MONOTONIC reads
 * the vDSO CLOCK_MONOTONIC and adds the wall-clock offset latched at creation; BB_CLOCK_MANUAL is
 * set by the program (tests, simulations); BB_CLOCK_USER calls a function. BB_CLOCK_DEFAULT picks
 * TSC when the CPU's TSC is invariant and the kernel uses it as its clocksource, else MONOTONIC;
 * the environment variable BACKBEAT_CLOCK=tsc|monotonic overrides the default. The choice is made
 * once per recorder and reported by bb_recorder_clock_name.
 *
 * Besides the fetch_add, a record makes a few plain stores to a line private to its thread: it
 * announces the record in flight, so that a dump never mistakes the stale bytes of a slot whose
 * writer was descheduled between reservation and copy for a record (the dump copies such a
 * record again once complete, or blanks it if its writer does not resume within a few ms).
 *
 * Limits (inherent to fetch_add rings): a writer descheduled between its reservation and its
 * copy for longer than its ring takes to wrap writes over newer records, which the reader then
 * drops as torn; size rings so that a lap takes far longer than a scheduling delay. The fast
 * path uses two initial-exec TLS words of libbackbeat (fine for programs and for plugins loaded
 * while libbackbeat is already loaded, or with glibc's spare static TLS).
 *
 * Everything named bb__* or BB__* below is an implementation detail of the inline fast path.
 */
#ifndef BACKBEAT_RECORDER_H
#define BACKBEAT_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "schema.h"
#include "detail/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * Creation and configuration
 * ------------------------------------------------------------------------------------------- */

typedef struct bb_recorder bb_recorder;

typedef enum bb_clock_kind {
    BB_CLOCK_DEFAULT = 0,   /* fastest accurate clock of this host (TSC or MONOTONIC) */
    BB_CLOCK_TSC = 1,       /* invariant TSC, multiply-shift to ns (x86-64 only) */
    BB_CLOCK_MONOTONIC = 2, /* CLOCK_MONOTONIC + wall-clock offset latched at creation */
    BB_CLOCK_MANUAL = 3,    /* set with bb_recorder_clock_set / _advance; starts at 0 */
    BB_CLOCK_USER = 4       /* user_clock(user_clock_ctx), must be async-signal-safe */
} bb_clock_kind;

/* A user clock: returns nanoseconds since the Unix epoch. Called on every record. */
typedef uint64_t (*bb_clock_fn)(void *ctx);

typedef struct bb_recorder_options {
    uint32_t shards;           /* rings; 0 = number of online CPUs (capped at 64) */
    uint64_t bytes_per_shard;  /* ring capacity; rounded up to a power of two, at least 4096;
                                  0 = 1 MiB */
    bb_clock_kind clock;
    bb_clock_fn user_clock;    /* required with BB_CLOCK_USER */
    void *user_clock_ctx;
    uint64_t instance_id;      /* 0 = random (getrandom) */
    const char *host;          /* host label for dumps (copied, at most 255 bytes); NULL = the
                                  system hostname */
    uint32_t intern_entries;   /* capacity of the intern table in strings; 0 = 16384 */
    uint32_t intern_bytes;     /* capacity of the intern table in string bytes; 0 = 1 MiB */
} bb_recorder_options;

/* Fill *opts with the defaults (all zeros: every default above). */
BB_API void bb_recorder_options_init(bb_recorder_options *opts);

/* Create a recorder (disabled). On success returns BB_OK and sets *out. On failure returns
 * BB_ERR_INVALID (e.g. BB_CLOCK_TSC on a host without an invariant TSC, BB_CLOCK_USER without a
 * function, a capacity above 2^40) or BB_ERR_NOMEM, and *out is NULL. */
BB_API bb_status bb_recorder_create(const bb_recorder_options *opts, bb_recorder **out);

/* Convenience: default options with `shards` rings of `bytes_per_shard` bytes. NULL on failure. */
BB_API bb_recorder *bb_recorder_new(uint32_t shards, uint64_t bytes_per_shard);

/* Free the recorder and its rings. No thread may record into it or dump it any more. NULL is
 * ignored. */
BB_API void bb_recorder_free(bb_recorder *rec);

/* Arm or disarm capture. Takes effect for every thread at its next record (relaxed). */
BB_API void bb_recorder_enable(bb_recorder *rec, bool on);
BB_API bool bb_recorder_enabled(const bb_recorder *rec);

/* The clock chosen at creation: "tsc", "monotonic", "manual" or "user" (static string). */
BB_API const char *bb_recorder_clock_name(const bb_recorder *rec);
BB_API bb_clock_kind bb_recorder_clock_kind(const bb_recorder *rec);

/* How the fast path finds its shard: "rseq" (the CPU from glibc's rseq area), "thread" (no rseq:
 * a hash of the thread pointer) or "getcpu" (other architectures: sched_getcpu). */
BB_API const char *bb_recorder_cpu_hint_name(const bb_recorder *rec);

/* Read the recorder's clock (ns since the Unix epoch), as a record would. */
BB_API uint64_t bb_recorder_now(const bb_recorder *rec);

/* Manual clock: set / advance the time every subsequent record gets. No effect (returns
 * BB_ERR_INVALID) on other clocks. Async-signal-safe. */
BB_API bb_status bb_recorder_clock_set(bb_recorder *rec, uint64_t ns);
BB_API bb_status bb_recorder_clock_advance(bb_recorder *rec, uint64_t delta_ns);

/* Accessors. */
BB_API uint32_t bb_recorder_shard_count(const bb_recorder *rec);
BB_API uint64_t bb_recorder_shard_capacity(const bb_recorder *rec);
BB_API uint64_t bb_recorder_instance_id(const bb_recorder *rec);
BB_API const char *bb_recorder_host(const bb_recorder *rec);

/* Counters (relaxed, approximate while writers run). */
typedef struct bb_recorder_stats {
    uint64_t too_large;     /* records refused because they exceed the ring */
    uint64_t intern_full;   /* intern calls answered with BB_INTERN_FULL_ID */
    uint64_t intern_count;  /* strings in the intern table */
} bb_recorder_stats;
BB_API void bb_recorder_stats_get(const bb_recorder *rec, bb_recorder_stats *out);

/* Copy shard `shard`'s ring into `buf` (which holds bb_recorder_shard_capacity bytes) and set
 * *head to its cursor (total bytes ever reserved), as a dump would (writers are not stopped;
 * bytes overwritten during the copy are zeroed). BB_ERR_INVALID for a bad shard. */
BB_API bb_status bb_recorder_shard_snapshot(bb_recorder *rec, uint32_t shard, uint8_t *buf,
                                     uint64_t *head);

/* ---------------------------------------------------------------------------------------------
 * Recording
 * ------------------------------------------------------------------------------------------- */

/* Function form: record an event from a filled field struct (`size` must equal
 * desc->record_size). Returns BB_OK, BB_ERR_DISABLED when disabled, BB_ERR_INVALID for a NULL
 * recorder/descriptor or a size mismatch, BB_ERR_TOO_LARGE when the record exceeds the ring.
 * Async-signal-safe. */
BB_API bb_status bb_record_event(bb_recorder *rec, const bb_event_desc *desc, const void *fields,
                          size_t size);

/* Record with an explicit timestamp instead of the recorder's clock (replays, imports). */
BB_API bb_status bb_record_event_at(bb_recorder *rec, const bb_event_desc *desc, uint64_t ts_nanos,
                             const void *fields, size_t size);

/* BB_RECORD(rec, ident, .field = value, ...): record event `ident` (defined with BB_EVENT) with
 * the given fields (others are zero). When the recorder is NULL or disabled the cost is a NULL
 * test, one relaxed load and a branch; the field values are not evaluated. */
#define BB_RECORD(...) BB__RECORD_(__VA_ARGS__, )

/* BB_RECORD_PTR(rec, ident, ptr): as BB_RECORD from a filled `const ident *`. */
#define BB_RECORD_PTR(rec, ident, ptr) BB__RECORD_PTR_(rec, ident, ptr)

/* ---------------------------------------------------------------------------------------------
 * Spans
 * ------------------------------------------------------------------------------------------- */

/* Mint a fresh span id without coordination: a per-thread counter in the high 48 bits and a
 * per-thread seed in the low 16 (distinct for the first 65536 threads of a process). Never 0.
 * Async-signal-safe. */
BB_API uint64_t bb_span_id_new(void);

/* A span in flight, as held by the scoped helper. */
typedef struct bb_span {
    bb_recorder *rec;
    const bb_event_desc *exit; /* exit event; NULL = nothing to record at scope end */
    uint64_t id;
    uint64_t parent;
} bb_span;

/* Record `desc` (normally a span-exit event) with every field zero except those whose role is
 * span_id (set to span->id) and parent_span_id (set to span->parent). Then clears span->exit, so
 * ending twice records once. Async-signal-safe. */
BB_API bb_status bb_span_end(bb_span *span);

/* Record `desc` with its span_id field (found by role) set to `id`, its parent_span_id field
 * set to `parent` when `parent` is non-zero, and its other fields copied from `fields` (may be
 * NULL: zeros; else `size` must be desc->record_size). At most 4096 field bytes
 * (BB_ERR_TOO_LARGE above; the macros below have no such limit). Async-signal-safe. */
BB_API bb_status bb_span_record(bb_recorder *rec, const bb_event_desc *desc, uint64_t id,
                         uint64_t parent, const void *fields, size_t size);

/* BB_SPAN_ENTER(rec, enter_ident, parent_id, .field = v, ...) mints a span id, records the enter
 * event (defined with BB_SPAN_ENTER_EVENT) with its BB_SPAN_ID field set to the new id and its
 * BB_PARENT_SPAN_ID field (if any) to parent_id (0 = a root span), and evaluates to the id (0
 * when the recorder is disabled: nothing recorded, nothing minted).
 * BB_SPAN_EXIT(rec, exit_ident, id, .field = v, ...) records the matching exit event with its
 * BB_SPAN_ID field set to `id`.
 * The explicit form is just as good: id = bb_span_id_new(); BB_RECORD(rec, e, .span = id, ...).
 */
#define BB_SPAN_ENTER(...) BB__SPAN_ENTER_(__VA_ARGS__, )
#define BB_SPAN_EXIT(...) BB__SPAN_EXIT_(__VA_ARGS__, )

/* BB_SPAN_SCOPED(var, rec, enter_ident, exit_ident, parent_id, .field = v, ...) declares
 * `bb_span var`, records the enter event as BB_SPAN_ENTER, and records exit_ident (span id and
 * parent id set, other fields zero) when `var` goes out of scope, whichever way the scope is
 * left (__attribute__((cleanup))). var.id is the span's id, for children. */
#define BB_SPAN_SCOPED(var, ...) BB__SPAN_SCOPED_(var, __VA_ARGS__, )

/* ---------------------------------------------------------------------------------------------
 * Interning
 * ------------------------------------------------------------------------------------------- */

/* The id returned when the intern table is full (or the string is longer than 65535 bytes, or
 * the recorder is NULL). It resolves to the string "<backbeat: intern table full>" in every dump
 * taken after it was first handed out. Real ids start at 1. */
#define BB_INTERN_FULL_ID 0u

/* Intern `len` bytes (any bytes; UTF-8 expected) into the recorder's table and return its id:
 * the same bytes give the same id (a rare race between two first inserters of one string can
 * mint two ids, both resolving to it). Thread-safe and lock-free; async-signal-safe; memory is
 * bounded by the options (when full: BB_INTERN_FULL_ID, counted in stats). */
BB_API uint32_t bb_intern(bb_recorder *rec, const void *bytes, size_t len);
/* As bb_intern for a NUL-terminated string. */
BB_API uint32_t bb_intern_str(bb_recorder *rec, const char *s);

/* BB_INTERN(rec, "literal"): intern a string literal, caching the id at the call site: after the
 * first call it costs two loads and a compare. */
#define BB_INTERN(rec, lit) BB__INTERN_(rec, lit)

/* ---------------------------------------------------------------------------------------------
 * Dumps
 * ------------------------------------------------------------------------------------------- */

/* Write a .bb dump (FORMAT.md) of every ring, the registry, the intern table, the views and the
 * host to `fd`. Writers keep recording, never blocked: each ring is snapshotted into a scratch
 * buffer (head read with acquire, then copied); records in flight at that moment are copied
 * again once complete (or zeroed if their writer stays descheduled), bytes that writers lapped
 * during the copy are zeroed, and the reader's resync steps over both. May wait a few ms per
 * ring for a descheduled writer. Allocates (the scratch, the registry snapshot); not
 * async-signal-safe. */
BB_API bb_status bb_recorder_dump_fd(bb_recorder *rec, int fd, bb_error *err);

/* Dump to `path` atomically: written to "<path>.tmp.<pid>.<n>" then renamed over `path`.
 * `host` overrides the recorder's host label for this dump (NULL = the recorder's). */
BB_API bb_status bb_recorder_dump_path(bb_recorder *rec, const char *path, const char *host,
                                bb_error *err);

/* Dump into a malloc'ed buffer (*out, *len; free() it). */
BB_API bb_status bb_recorder_dump_buffer(bb_recorder *rec, void **out, size_t *len, bb_error *err);

/* Crash-path dump: async-signal-safe (no malloc, no locks, no stdio). Writes the live rings
 * directly (records being written at that moment may be torn; the reader skips them), using
 * descriptor arrays preallocated at creation (the first 4096 events and 256 view sets
 * registered). One at a time per recorder: a concurrent call returns BB_ERR_INVALID at once.
 * Returns BB_ERR_IO when a write fails. */
BB_API bb_status bb_recorder_dump_fd_signal_safe(bb_recorder *rec, int fd);

/* ---------------------------------------------------------------------------------------------
 * Implementation details of the inline fast path
 * ------------------------------------------------------------------------------------------- */

/* The shard cursor: total bytes ever reserved in the ring, alone on a 128-byte line. */
struct bb__cursor {
    uint64_t head;
    uint8_t pad[120];
};

/* A thread's announcement of the record it is writing (recorder_inflight.c): a dump re-copies
 * or blanks the records still in flight in its snapshot, so a writer preempted between
 * reservation and copy never exposes stale bytes of an older lap as a record. One per thread,
 * in a global table, written only by its thread. `taglen` = record length << 32 | tag, with
 * tag = ((recorder serial & 0xFFFF) << 16 | shard) + 1, 0 when idle; `pos` = the reservation's
 * position, BB__POS_UNKNOWN between announcing and reserving. */
struct bb__tslot {
    uint64_t taglen;
    uint64_t pos;
    uint32_t claimed; /* owned by recorder_inflight.c */
    uint32_t shared;  /* the overflow slot several threads use: ignored by dumps */
    uint8_t pad[104];
};
#define BB__POS_UNKNOWN UINT64_MAX
BB_API extern __thread struct bb__tslot *bb__tls_slot __attribute__((tls_model("initial-exec")));
BB_API struct bb__tslot *bb__tslot_attach(void);

/* The first bytes of every bb_recorder (read-mostly; 128-byte aligned). */
struct bb__recorder_hot {
    uint32_t enabled;      /* atomic, relaxed */
    uint32_t shard_count;
    uint32_t clock;        /* BB__CLK_* */
    uint32_t cpu_mode;     /* BB__CPU_* */
    int64_t rseq_offset;   /* __rseq_offset when cpu_mode == BB__CPU_RSEQ */
    uint64_t capacity;     /* bytes per ring, power of two */
    uint32_t cap_log2;
    uint32_t serial;       /* process-unique recorder number, for call-site caches */
    uint8_t *rings;        /* shard i at rings + (i << cap_log2) = ring_of[i] */
    struct bb__cursor *cursors;
    uint64_t fastmod_m;    /* Lemire's fastmod constant for shard_count */
    uint8_t **ring_of;     /* ring of each shard */
    uint64_t mask;         /* capacity - 1 */
    uint32_t tag_base;     /* ((serial & 0xFFFF) << 16) + 1: in-flight tag of shard 0 */
    uint32_t reserved0;
    uint64_t tsc_base;     /* TSC clock: ns = ns_base + ((tsc - tsc_base) * mult) >> 32 */
    uint64_t tsc_mult;
    uint64_t ns_base;
    int64_t mono_offset;   /* MONOTONIC clock: ns = monotonic ns + mono_offset */
    uint64_t manual_ns;    /* MANUAL clock (atomic) */
    bb_clock_fn user_fn;   /* USER clock */
    void *user_ctx;
};

enum { BB__CLK_TSC = 1, BB__CLK_MONOTONIC = 2, BB__CLK_MANUAL = 3, BB__CLK_USER = 4 };
enum { BB__CPU_RSEQ = 1, BB__CPU_THREAD = 2, BB__CPU_SYSCALL = 3 };

#define BB__LIKELY(x) __builtin_expect(!!(x), 1)
#define BB__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define BB__INLINE static inline __attribute__((always_inline))

/* Out-of-line slow paths (recorder.c). */
BB_API void bb__record_wrap(bb_recorder *rec, uint32_t shard, uint64_t pos, uint64_t ts, uint64_t id,
                     const void *fields, size_t size);
BB_API void bb__record_too_large(bb_recorder *rec);
BB_API uint32_t bb__cpu_slow(void);
BB_API uint32_t bb__intern_static_slow(bb_recorder *rec, uint64_t *cache, const char *s, size_t len);
BB_API void bb__span_cleanup(bb_span *span);

BB__INLINE bool bb__recorder_on(const bb_recorder *rec) {
    return rec && __atomic_load_n(&((const struct bb__recorder_hot *)(const void *)rec)->enabled,
                                  __ATOMIC_RELAXED);
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
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + (uint64_t)h->mono_offset;
    }
    if (h->clock == BB__CLK_MANUAL) return __atomic_load_n(&h->manual_ns, __ATOMIC_RELAXED);
    return h->user_fn(h->user_ctx);
}

/* Reserve and write one record of `size` field bytes (a compile-time constant at BB_RECORD call
 * sites) with timestamp `ts`, or the clock's reading when `read_clock` (a constant). The
 * recorder must be non-NULL. */
BB__INLINE void bb__record_body(bb_recorder *rec, uint64_t id, bool read_clock, uint64_t ts,
                                const void *fields, size_t size) {
    struct bb__recorder_hot *h = (struct bb__recorder_hot *)(void *)rec;
    const size_t total = size + 18;
    /* Rings hold at least 4096 bytes, so the check vanishes for every smaller record. */
    if (total > 4096 && BB__UNLIKELY(total > h->capacity)) {
        bb__record_too_large(rec);
        return;
    }
    /* Manual and user clocks are read first (a call keeps few values live here); TSC and
     * monotonic last (see below). */
    if (read_clock && h->clock >= BB__CLK_MANUAL) ts = bb__clock_read(h);
    uint32_t shard = bb__shard_of(h, bb__cpu_hint(h));
    struct bb__tslot *t = bb__tls_slot;
    if (BB__UNLIKELY(!t)) t = bb__tslot_attach();
    /* Announce, reserve, publish the position, copy, retire (plain stores on x86, to a line only
     * this thread writes; the acq_rel fetch_add orders the announcement before the reservation,
     * and a dump seeing `pos` change knows the previous record is complete). A signal
     * handler recording in between retires the announcement early: only the blanking of that
     * one record is lost. */
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
        uint8_t *dst = h->ring_of[shard] + off;
        uint16_t len = (uint16_t)(size + 16);
        memcpy(dst, &ts, 8);
        memcpy(dst + 8, &id, 8);
        if (size) memcpy(dst + 16, fields, size); /* folds away: size is a constant */
        memcpy(dst + 16 + size, &len, 2);
    } else {
        bb__record_wrap(rec, shard, pos, ts, id, fields, size);
    }
    __atomic_store_n(&t->taglen, 0, __ATOMIC_RELEASE);
}

BB__INLINE void bb__record_ts(bb_recorder *rec, uint64_t id, uint64_t ts, const void *fields,
                              size_t size) {
    bb__record_body(rec, id, false, ts, fields, size);
}

BB__INLINE void bb__record_inline(bb_recorder *rec, uint64_t id, const void *fields,
                                  size_t size) {
    bb__record_body(rec, id, true, 0, fields, size);
}

BB__INLINE uint32_t bb__intern_cached(bb_recorder *rec, uint64_t *cache, const char *s,
                                      size_t len) {
    uint64_t c = __atomic_load_n(cache, __ATOMIC_RELAXED);
    if (BB__LIKELY(rec && (uint32_t)(c >> 32) ==
                              ((const struct bb__recorder_hot *)(void *)rec)->serial))
        return (uint32_t)c;
    return bb__intern_static_slow(rec, cache, s, len);
}

/* Set the span_id field (role BB_ROLE_SPAN_ID) of the field bytes `ev` of event `d` to `id`, and
 * its parent_span_id field to `parent` when non-zero (both u64, checked by event.h). */
BB__INLINE void bb__span_patch(void *ev, const bb_event_desc *d, uint64_t id, uint64_t parent) {
    for (uint16_t i = 0; i < d->field_count; i++) {
        const bb_field_desc *f = &d->fields[i];
        if (f->role == BB_ROLE_SPAN_ID && f->width == 8)
            memcpy((uint8_t *)ev + f->offset, &id, 8);
        else if (f->role == BB_ROLE_PARENT_SPAN_ID && f->width == 8 && parent)
            memcpy((uint8_t *)ev + f->offset, &parent, 8);
    }
}

/* Empty initializer braces (an event without fields) are a GNU/C23 extension, designated
 * initializers a C++20 one (accepted by g++ and clang++ in earlier modes); fields left out are
 * zero by design. */
#define BB__PRAGMA_(x) _Pragma(#x)
#if defined(__cplusplus) && defined(__clang__)
#define BB__EXT_CXX                                                                            \
    BB__PRAGMA_(GCC diagnostic ignored "-Wunknown-warning-option")                             \
    BB__PRAGMA_(GCC diagnostic ignored "-Wc++20-extensions")                                   \
    BB__PRAGMA_(GCC diagnostic ignored "-Wc++20-designator")
#elif defined(__cplusplus)
#define BB__EXT_CXX                                                                            \
    BB__PRAGMA_(GCC diagnostic ignored "-Wpragmas")                                            \
    BB__PRAGMA_(GCC diagnostic ignored "-Wc++20-extensions")
#else
#define BB__EXT_CXX
#endif
#define BB__EXT_BEGIN                                                                          \
    BB__PRAGMA_(GCC diagnostic push)                                                           \
    BB__PRAGMA_(GCC diagnostic ignored "-Wpedantic")                                           \
    BB__PRAGMA_(GCC diagnostic ignored "-Wmissing-field-initializers") BB__EXT_CXX
#define BB__EXT_END BB__PRAGMA_(GCC diagnostic pop)

#ifndef BACKBEAT_COMPILED_OUT

#define BB__RECORD_(rec_, ident, ...)                                                          \
    do {                                                                                       \
        bb_recorder *const bb__rec = (rec_);                                                   \
        if (bb__recorder_on(bb__rec)) {                                                        \
            BB__EXT_BEGIN const ident bb__ev = {__VA_ARGS__};                                  \
            BB__EXT_END                                                                        \
            bb__record_inline(bb__rec, bb_event_id(BB_DESC(ident)), &bb__ev,                   \
                              BB_RECORD_SIZE(ident));                                          \
        }                                                                                      \
    } while (0)

#define BB__RECORD_PTR_(rec_, ident, ptr)                                                      \
    do {                                                                                       \
        bb_recorder *const bb__rec = (rec_);                                                   \
        if (bb__recorder_on(bb__rec)) {                                                        \
            const ident *const bb__p = (ptr);                                                  \
            bb__record_inline(bb__rec, bb_event_id(BB_DESC(ident)), bb__p,                     \
                              BB_RECORD_SIZE(ident));                                          \
        }                                                                                      \
    } while (0)

#define BB__SPAN_ENTER_(rec_, ident, parent_, ...)                                             \
    __extension__({                                                                            \
        bb_recorder *const bb__rec = (rec_);                                                   \
        uint64_t bb__sid = 0;                                                                  \
        if (bb__recorder_on(bb__rec)) {                                                        \
            bb__sid = bb_span_id_new();                                                        \
            BB__EXT_BEGIN ident bb__ev = {__VA_ARGS__};                                        \
            BB__EXT_END                                                                        \
            bb__span_patch(&bb__ev, BB_DESC(ident), bb__sid, (parent_));                       \
            bb__record_inline(bb__rec, bb_event_id(BB_DESC(ident)), &bb__ev,                   \
                              BB_RECORD_SIZE(ident));                                          \
        }                                                                                      \
        bb__sid;                                                                               \
    })

#define BB__SPAN_EXIT_(rec_, ident, id_, ...)                                                  \
    do {                                                                                       \
        bb_recorder *const bb__rec = (rec_);                                                   \
        if (bb__recorder_on(bb__rec)) {                                                        \
            BB__EXT_BEGIN ident bb__ev = {__VA_ARGS__};                                        \
            BB__EXT_END                                                                        \
            bb__span_patch(&bb__ev, BB_DESC(ident), (id_), 0);                                 \
            bb__record_inline(bb__rec, bb_event_id(BB_DESC(ident)), &bb__ev,                   \
                              BB_RECORD_SIZE(ident));                                          \
        }                                                                                      \
    } while (0)

#define BB__SPAN_SCOPED_(var, rec_, enter_ident, exit_ident, parent_, ...)                     \
    __attribute__((cleanup(bb__span_cleanup))) bb_span var = {(rec_), NULL, 0, (parent_)};     \
    if ((var.id = BB__SPAN_ENTER_(var.rec, enter_ident, var.parent, __VA_ARGS__)) != 0)        \
        var.exit = BB_DESC(exit_ident);                                                        \
    else                                                                                       \
        (void)0

#define BB__INTERN_(rec_, lit)                                                                 \
    __extension__({                                                                            \
        static uint64_t bb__intern_cache;                                                      \
        bb__intern_cached((rec_), &bb__intern_cache, "" lit, sizeof(lit) - 1);                 \
    })

#else /* BACKBEAT_COMPILED_OUT: type-check in unevaluated operands, emit nothing */

#define BB__RECORD_(rec_, ident, ...)                                                          \
    do {                                                                                       \
        (void)sizeof(rec_);                                                                    \
        BB__EXT_BEGIN(void) sizeof((ident){__VA_ARGS__});                                      \
        BB__EXT_END                                                                            \
    } while (0)
#define BB__RECORD_PTR_(rec_, ident, ptr)                                                      \
    do {                                                                                       \
        (void)sizeof(rec_);                                                                    \
        (void)sizeof(*(const ident *)(ptr));                                                   \
    } while (0)
#define BB__SPAN_ENTER_(rec_, ident, parent_, ...)                                             \
    __extension__({                                                                            \
        (void)sizeof(rec_);                                                                    \
        (void)sizeof(parent_);                                                                 \
        BB__EXT_BEGIN(void) sizeof((ident){__VA_ARGS__});                                      \
        BB__EXT_END(uint64_t) 0;                                                               \
    })
#define BB__SPAN_EXIT_(rec_, ident, id_, ...)                                                  \
    do {                                                                                       \
        (void)sizeof(rec_);                                                                    \
        (void)sizeof(id_);                                                                     \
        BB__EXT_BEGIN(void) sizeof((ident){__VA_ARGS__});                                      \
        BB__EXT_END                                                                            \
    } while (0)
#define BB__SPAN_SCOPED_(var, rec_, enter_ident, exit_ident, parent_, ...)                     \
    BB__EXT_BEGIN(void) sizeof((enter_ident){__VA_ARGS__});                                    \
    (void)sizeof(exit_ident);                                                                  \
    BB__EXT_END __attribute__((unused)) const bb_span var = {                                  \
        NULL, NULL, (uint64_t)0 * sizeof(rec_), (uint64_t)0 * sizeof(parent_)}
#define BB__INTERN_(rec_, lit) ((void)sizeof(rec_), (void)sizeof(lit), (uint32_t)0)

#endif /* BACKBEAT_COMPILED_OUT */

#ifdef __cplusplus
}
#endif

#endif /* BACKBEAT_RECORDER_H */
