/* backbeat/recorder.h — the capture runtime: per-CPU lock-free rings, clocks, spans, interning,
 * and dumps.
 *
 * A bb_recorder owns N shards, each a ring of a power-of-two number of bytes with a monotonic
 * cursor alone on its own 128-byte line. Recording an event (BB_RECORD) is an inline fast path:
 * one relaxed load of the enable flag; the CPU number from the thread's rseq area (glibc
 * registers rseq for every thread and exports __rseq_offset); a timestamp; the reservation of
 * the record's bytes in the shard of that CPU; and a copy of
 * [ts u64][event_id u64][fields][u16 length] whose size is a compile-time constant. No lock, no
 * allocation, no syscall, no hashing. The fast path is async-signal-safe and safe from any number
 * of threads sharing a CPU. Two commit paths (bb_recorder_commit_name): "rseq" reserves, copies
 * and commits inside one restartable sequence on the CPU's own shard (plain stores; the kernel
 * restarts it on preemption, migration or signal); "fetch_add" reserves with one atomic
 * fetch_add, which makes reservations disjoint, then copies.
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
 * On the fetch_add path a record also makes a few plain stores to a line private to its
 * thread: it announces the record in flight, so that a dump never mistakes the stale bytes of a
 * slot whose writer was descheduled between reservation and copy for a record (the dump copies
 * such a record again once complete, or blanks it if its writer does not resume within a few
 * ms). Limit of that path (not of rseq): a writer descheduled between its reservation and its
 * copy for longer than its ring takes to wrap writes over newer records, which dumps then drop;
 * size rings so that a lap takes far longer than a scheduling delay. On the rseq path a dump
 * drops the oldest records of the window that the bytes of a record not yet committed may
 * overlap (the largest frame that may have been begun in that ring, rounded to 8 bytes: that
 * of the dump's largest event up to 256 bytes, or a larger one the ring has seen begun; plus
 * the rest of the ring when the head is nearer its end; docs/RING_FILE.md, "The rseq
 * margin"). The fast
 * path uses two initial-exec TLS words of libbackbeat (fine for programs and for plugins loaded
 * while libbackbeat is already loaded, or with glibc's spare static TLS).
 *
 * Everything named bb__* or BB__* (detail/recorder_inline.h) is machinery of the inline fast
 * path: user code compiles it in, so its layout is ABI (detail/abi.h), but it is not API and may
 * change in any release.
 */
/* SPDX-License-Identifier: MIT */
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

/* ABI: filled by user code; its layout changes only with the soname's major version. */
typedef struct bb_recorder_options {
    uint32_t shards;          /* rings; 0 = number of online CPUs (capped at 64) */
    uint64_t bytes_per_shard; /* ring capacity; rounded up to a power of two, at least 4096;
                                  0 = 1 MiB */
    bb_clock_kind clock;
    bb_clock_fn user_clock; /* required with BB_CLOCK_USER */
    void *user_clock_ctx;
    uint64_t instance_id;    /* 0 = random (getrandom) */
    const char *host;        /* host label for dumps (copied, at most 255 bytes); NULL = the
                                  system hostname */
    uint32_t intern_entries; /* capacity of the intern table in strings; 0 = one per 20 bytes
                                of all rings, at most 4194304, at least 16384 (16384 in a ring
                                file) */
    uint32_t intern_bytes;   /* capacity of the intern table in string bytes; 0 = 48 per
                                string, at least 1 MiB (1 MiB in a ring file) */
} bb_recorder_options;

/* Fill *opts with the defaults (all zeros: every default above). */
BB_API void bb_recorder_options_init(bb_recorder_options *opts);

/* Create a recorder (disabled). On success returns BB_OK and sets *out. On failure returns
 * BB_ERR_INVALID (e.g. BB_CLOCK_TSC on a host without an invariant TSC, BB_CLOCK_USER without a
 * function, a capacity above 2^40) or BB_ERR_NOMEM, and *out is NULL. */
BB_API bb_status bb_recorder_create(const bb_recorder_options *opts, bb_recorder **out);

/* Convenience: default options with `shards` rings of `bytes_per_shard` bytes. NULL on failure. */
BB_API bb_recorder *bb_recorder_new(uint32_t shards, uint64_t bytes_per_shard);

/* Create a recorder (disabled) whose rings, cursors, schemas, views and intern table live in a
 * ring file mapped MAP_SHARED, DIR/backbeat.<pid>.<instance id in 16 hex digits>.ring
 * (docs/RING_FILE.md), so that they survive the process however it ends (SIGKILL, the OOM
 * killer): `backbeat recover` turns the file into an ordinary dump. Recording and the record
 * bytes are the same as with bb_recorder_create. The file's whole size is reserved on disk
 * here; bb_recorder_free removes it unless `keep` (only in the process that created it).
 * Errors: BB_ERR_INVALID (options as bb_recorder_create, or no DIR), BB_ERR_IO (the file
 * cannot be created, sized or mapped: `err` names it and the reason), BB_ERR_NOMEM; *out is
 * then NULL and no file is left behind. A fork child shares the parent's mapping: record into
 * a file-backed recorder from one process only. */
BB_API bb_status bb_recorder_create_ring(const bb_recorder_options *opts, const char *dir,
                                         bool keep, bb_recorder **out, bb_error *err);

/* The path of the recorder's ring file, or NULL for a recorder in anonymous memory. */
BB_API const char *bb_recorder_ring_path(const bb_recorder *rec);

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

/* How records are committed, chosen once at creation: "rseq" (a restartable sequence on the
 * current CPU's own shard: reserve, copy and commit with plain stores; a preempted, migrated or
 * signalled writer restarts, so it never leaves a half-written record and never writes late over
 * newer ones) or "fetch_add" (an atomic fetch_add reserves, then the copy; any number of writers
 * per shard). rseq needs x86_64, glibc's registered rseq, and a shard for every possible CPU
 * (options.shards >= the CPUs of /sys/devices/system/cpu/possible); it is not used under
 * valgrind, in a ThreadSanitizer build of the library, or when the environment variable
 * BACKBEAT_COMMIT=fetch_add. */
BB_API const char *bb_recorder_commit_name(const bb_recorder *rec);

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
    uint64_t too_large;    /* records refused because they exceed the ring */
    uint64_t intern_full;  /* intern calls answered with BB_INTERN_FULL_ID */
    uint64_t intern_count; /* strings in the intern table's live generations */
} bb_recorder_stats;
BB_API void bb_recorder_stats_get(const bb_recorder *rec, bb_recorder_stats *out);

/* Copy shard `shard`'s ring into `buf` (which holds bb_recorder_shard_capacity bytes) and set
 * *head to its cursor (total bytes ever reserved), as a dump would (writers are not stopped;
 * records that bytes overwritten during the copy, or written late by a lapped writer, may have
 * touched are zeroed). BB_ERR_INVALID for a bad shard, BB_ERR_NOMEM when the registry snapshot
 * it walks by cannot be allocated. */
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

/* Mint a fresh span id without coordination: each thread counts up from a random 64-bit start
 * (getrandom), drawn again in a fork child, so ids are unique across threads, processes (fork
 * included) and hosts with overwhelming probability: two threads minting s spans each meet with
 * a probability of about 2s / 2^64 (n threads: n^2 s / 2^64). Never 0. Async-signal-safe. */
BB_API uint64_t bb_span_id_new(void);

/* A span in flight, as held by the scoped helper. ABI: by value in user code; its layout
 * changes only with the soname's major version (and BB__ABI_LAYOUT, detail/abi.h). */
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
 * the same bytes give the same id within a generation of the table (a rare race between two
 * first inserters of one string can mint two ids, both resolving to it). Thread-safe and
 * lock-free; async-signal-safe; memory is bounded by the options. A large enough table is
 * recycled in generations (docs/guide/instrument.md): ids only grow and never name another
 * string, and every string a record still in the rings names resolves in a dump; when no
 * generation can be recycled yet: BB_INTERN_FULL_ID, counted in stats.
 * Lifetime: an id is for the records written now; kept across two generation switches it may
 * no longer resolve. Intern again per record, or use BB_INTERN for literals. */
BB_API uint32_t bb_intern(bb_recorder *rec, const void *bytes, size_t len);
/* As bb_intern for a NUL-terminated string. */
BB_API uint32_t bb_intern_str(bb_recorder *rec, const char *s);

/* BB_INTERN(rec, "literal"): intern a string literal, caching the id at the call site: after the
 * first call it costs two loads and a compare (the cache misses once per table generation). */
#define BB_INTERN(rec, lit) BB__INTERN_(rec, lit)

/* ---------------------------------------------------------------------------------------------
 * Dumps
 * ------------------------------------------------------------------------------------------- */

/* Write a .bb dump (FORMAT.md) of every ring, the registry, the intern table, the views and the
 * host to `fd`. Writers keep recording, never blocked: each ring is snapshotted into a scratch
 * buffer (head read with acquire, then copied); records in flight at that moment are copied
 * again once complete (or zeroed if their writer stays descheduled), bytes that writers lapped
 * during the copy are zeroed, and the reader's resync steps over both. May wait a few ms per
 * ring for a descheduled writer. Allocates the registry snapshot, and at the first dump the
 * scratch (one ring's capacity), which the recorder keeps until bb_recorder_free so that later
 * dumps fault no page in (a dump running while another holds it maps one of its own); not
 * async-signal-safe.
 * When `fd` is a regular file that ends at its offset (a new file, as bb_recorder_dump_path's),
 * the rings are first written to it straight from memory, without snapshots or scratch; if any
 * writer recorded or was mid-record meanwhile, the file is cut back to that offset and the dump
 * written again as above. The result is the same either way. */
BB_API bb_status bb_recorder_dump_fd(bb_recorder *rec, int fd, bb_error *err);

/* Dump to `path` atomically: written to "<path>.tmp.<pid>.<n>" then renamed over `path`.
 * `host` overrides the recorder's host label for this dump (NULL = the recorder's). */
BB_API bb_status bb_recorder_dump_path(bb_recorder *rec, const char *path, const char *host,
                                       bb_error *err);

/* Dump into a malloc'ed buffer (*out, *len; free() it). */
BB_API bb_status bb_recorder_dump_buffer(bb_recorder *rec, void **out, size_t *len, bb_error *err);

/* Crash-path dump: async-signal-safe (no malloc, no locks, no stdio). Writes the live rings
 * directly, without waiting for any writer: a record announced as being written at that moment
 * (on the fetch_add path: by another thread, or by the thread the signal interrupted, also
 * when the handler recorded in between) is written as zeros, which the reader steps over; the
 * rseq path commits whole records only. Uses descriptor arrays preallocated at creation (the
 * first 4096 events and 256 view sets registered). One at a time per recorder: a concurrent call returns BB_ERR_INVALID at once.
 * Returns BB_ERR_IO when a write fails. */
BB_API bb_status bb_recorder_dump_fd_signal_safe(bb_recorder *rec, int fd);

#ifdef __cplusplus
}
#endif

/* The inline fast path behind BB_RECORD, BB_SPAN_* and BB_INTERN. */
#include "detail/recorder_inline.h"

#endif /* BACKBEAT_RECORDER_H */
