/* global_internal.h — internal interfaces of the global recorder (src/lib/global*.c).
 *
 * Not public API. The pieces are kept apart so each can be unit-tested without a recorder:
 *   - configuration parsed from the environment: the table of BACKBEAT_* variables
 *     (global_config_table.c) over the value syntax (global_config.c),
 *   - dump file naming and publishing, async-signal-safe (global_name.c),
 *   - the throttle and the limit policies (global_policy.c),
 *   - the dumper: trigger, background thread, synchronous and crash dumps, all over an
 *     abstract "write a dump to this fd" callback (global_dumper.c),
 *   - crash signal handlers and alternate signal stacks (global_crash.c).
 * Symbols are prefixed bb__g_ (exported from the shared library only so tests can reach them).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_GLOBAL_INTERNAL_H
#define BACKBEAT_GLOBAL_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/error.h"

/* ---- configuration (global_config.c) ---------------------------------------------------- */

enum bb__g_limit_policy { BB__G_KEEP_OLDEST = 0, BB__G_KEEP_NEWEST = 1 };

#define BB__G_DEFAULT_BYTES (16ull << 20)
#define BB__G_MIN_BYTES 4096ull
#define BB__G_MAX_SHARDS_DEFAULT 16u
#define BB__G_MAX_SHARDS 1024u
#define BB__G_DEFAULT_THROTTLE_MS 1000ull
#define BB__G_DEFAULT_MAX_DUMPS 8u
#define BB__G_HOST_MAX 256

typedef struct bb__g_config {
    bool enable;
    uint32_t shards;
    uint64_t bytes;
    char path[PATH_MAX];  /* base dump path (stem.ext) */
    bool path_is_default; /* derived from TMPDIR and the pid (recomputed after fork) */
    uint64_t throttle_ms;
    uint32_t max_dumps; /* 0 = unlimited */
    int limit_policy;   /* enum bb__g_limit_policy */
    char host[BB__G_HOST_MAX];
    int signal; /* 0 = none */
    bool dump_on_crash;
    bool dump_on_exit;
    char ring_dir[PATH_MAX]; /* BACKBEAT_RING_DIR: file-backed rings there; "" = anonymous */
    bool ring_keep;          /* BACKBEAT_RING_KEEP: leave the ring file at a normal exit */
    uint32_t intern_entries; /* BACKBEAT_INTERN_LIMIT: strings (0 = the library's 16384) */
    uint32_t intern_bytes;   /* and string bytes (0 = the library's 1 MiB) */
    int dump_on_log;         /* BACKBEAT_DUMP_ON_LOG: a log level (log.h), BB_LOG_OFF + 1 = never */
    uint64_t dir_max_use;    /* BACKBEAT_DIR_MAX_USE: a share (bytes or BB__G_PCT | percent) */
    uint64_t dir_keep_free;  /* BACKBEAT_DIR_KEEP_FREE: a share */
    char trigger[4096];      /* BACKBEAT_TRIGGER: rules; "" = none */
    uint64_t trigger_after_ns; /* BACKBEAT_TRIGGER_AFTER */
} bb__g_config;

/* A lookup function (getenv, or a table in tests) and a warning sink (one call per invalid
 * value, with a complete message line without the trailing newline). */
typedef const char *(*bb__g_getenv_fn)(const char *name, void *ctx);
typedef void (*bb__g_warn_fn)(const char *message, void *ctx);

/* Fill `cfg` from the variables `get` returns, one row of bb__g_vars at a time. Every invalid
 * value is reported once through `warn` (naming the variable, the value and the value used
 * instead) and replaced by its fallback. `online_cpus` and `pid` feed the defaults (shards,
 * path). Never fails. (global_config_table.c) */
void bb__g_config_parse(bb__g_config *cfg, bb__g_getenv_fn get, void *get_ctx, bb__g_warn_fn warn,
                        void *warn_ctx, long online_cpus, long pid);

/* What a variable's parser may consult besides its value. */
typedef struct bb__g_env {
    bb__g_getenv_fn get; /* other variables (TMPDIR for the default path) */
    void *get_ctx;
    long online_cpus;
    long pid;
} bb__g_env;

typedef struct bb__g_var bb__g_var;
/* Set the variable's field in `cfg` from `value` (NULL when unset or empty: the default).
 * Returns NULL when the value is taken, else why not ("is not a boolean"): the field then holds
 * the fallback, which used[cap] names. */
typedef const char *(*bb__g_var_parse)(const bb__g_var *var, bb__g_config *cfg, const char *value,
                                       const bb__g_env *env, char *used, size_t cap);
typedef struct bb__g_word {
    const char *word; /* NULL ends a list */
    int value;
} bb__g_word;

/* One BACKBEAT_* variable: a row of the table (global_config_table.c) that parses the
 * environment and that docs/ENVIRONMENT.md's table is checked against (tests/global/
 * config_doc.c). A new variable is one row (and its field in bb__g_config). */
struct bb__g_var {
    const char *name;        /* BACKBEAT_... */
    const char *alias;       /* an older name, read when `name` is unset, or NULL */
    bb__g_var_parse parse;   /* how its value is read (one parser per kind of value) */
    size_t field, width;     /* where in bb__g_config (offsetof, sizeof); width 0: no field */
    uint64_t def, lo, hi;    /* numbers: default and range; texts: lo = bytes kept free */
    const bb__g_word *words; /* keywords: the accepted words and their values */
    const char *why;         /* the message for a value the parser refuses... */
    const char *used;        /* ...and the fallback it names ("off") */
    const char *doc;         /* docs/ENVIRONMENT.md: what it does */
    const char *doc_default; /* docs/ENVIRONMENT.md: its default */
};
extern const bb__g_var bb__g_vars[];
extern const size_t bb__g_var_count;

/* Parse a byte size with an optional binary suffix: "4096", "64k", "16M", "1G", "1T", "16MiB",
 * "16MB" (all suffixes are powers of 1024). Returns false on garbage or overflow. */
bool bb__g_parse_size(const char *s, uint64_t *out);

/* Parse a non-negative decimal integer (no sign, no suffix, fits uint64). */
bool bb__g_parse_u64(const char *s, uint64_t *out);

/* Parse a trigger signal name: "usr1", "usr2", "SIGUSR1", "sigusr2" (any case) or a number
 * that is a catchable, non-crash signal. Returns false on anything else. */
bool bb__g_parse_signal(const char *s, int *out);

/* The default base path for `pid`: ${TMPDIR:-/tmp}/backbeat.<pid>.bb (TMPDIR if non-empty). */
void bb__g_default_path(char *out, size_t cap, const char *tmpdir, long pid);

/* ---- the dump directory's budget (global_budget.c; async-signal-safe) ------------------ */

/* A share of a file system: bytes, or a percentage of its size with this bit set. */
#define BB__G_PCT (1ull << 63)
#define BB__G_CAP4G (1ull << 62) /* with BB__G_PCT: at most 4 GiB (the defaults, as systemd's) */
#define BB__G_DEFAULT_MAX_USE (BB__G_PCT | BB__G_CAP4G | 10u)
#define BB__G_DEFAULT_KEEP_FREE (BB__G_PCT | BB__G_CAP4G | 15u)

typedef struct bb__g_budget {
    char dir[PATH_MAX]; /* the directory; "" = no budget */
    uint64_t max_use;   /* backbeat files in it at most (0 = no bound), a share (BB__G_PCT) */
    uint64_t keep_free; /* free space left at least, a share */
    int policy;         /* keep-newest removes the oldest files; keep-oldest writes nothing */
    long reported_pid;  /* atomic: the process that reported its first refusal */
    bool ring;          /* BACKBEAT_RING_DIR's: named "the ring directory" in the message, and
                           a ring file never makes room (removes nothing, whatever the policy) */
    char *defer;        /* when set, the refusal's message goes into defer[defer_cap] (the
                           caller prints it later) instead of stderr */
    size_t defer_cap;
} bb__g_budget;

/* `share` in bytes for a file system of `fs_bytes`. */
uint64_t bb__g_share_bytes(uint64_t share, uint64_t fs_bytes);

/* Before writing a file of about `need` bytes into b->dir: take the directory's lock, measure
 * its backbeat files (any process's) and its free space and, with keep-newest (and not
 * b->ring), remove the oldest dumps and ring files of dead processes until the file fits. Returns 0
 * (write it; the lock is held until bb__g_budget_leave(*lock_fd)) or ENOSPC (do not; reported on
 * stderr once per process; no lock held). A NULL or empty budget admits everything. */
int bb__g_budget_enter(bb__g_budget *b, uint64_t need, int *lock_fd);
/* After the file was written (or not): release the lock. */
void bb__g_budget_leave(int lock_fd);
/* The directory of `path` ("." when it has no slash) into out[cap]. */
void bb__g_budget_dir(char *out, size_t cap, const char *path);

/* ---- the starting environment (global_env.c) ------------------------------------------- */

/* Copy the BACKBEAT_* variables and TMPDIR of the environment as it is now (called once, when
 * the library loads). Allocation failure leaves no copy. */
void bb__g_env_snapshot(void);
/* The variable `name` as the environment has it now, else as it had it at the snapshot (a
 * program that removed it, or cleared its environment, keeps the value it started with); NULL
 * when neither has it. */
const char *bb__g_env_get(const char *name);

/* ---- naming (global_name.c; everything here is async-signal-safe) ----------------------- */

/* Format `unix_ns` as YYYYMMDDThhmmssmmmZ (19 chars + NUL) into out[20] (bb__utc_stamp of
 * common/message.h, the stamp of the library's messages too). */
void bb__g_format_utc_ms(uint64_t unix_ns, char out[20]);

/* Split base path `path` into stem and extension: the extension is what follows the last '.'
 * of the final path component when that dot is neither its first nor its last character.
 * Writes the offset where the extension's dot starts into *dot (strlen(path) when none). */
size_t bb__g_path_ext_dot(const char *path);

/* The base path of process `pid`'s dumps (ENVIRONMENT.md, "Names") into out[cap], always
 * "<stem>.bb": `path` with every "%p" replaced by the pid; its stem is what precedes a final
 * ".bb", else the whole path; a path without "%p" gets ".<pid>" after its stem, so each
 * process's dumps keep its pid once; the default path (`is_default`: it names the pid already)
 * is copied. Returns the length, 0 when it does not fit. */
size_t bb__g_pid_path(char *out, size_t cap, const char *path, bool is_default, long pid);

/* Build "<stem>.<ts>[-N].<ext>" (or "<path>.<ts>[-N]" without extension) into out[cap].
 * seq 0 means no suffix. Returns the length, or 0 when it does not fit. */
size_t bb__g_dump_name(char *out, size_t cap, const char *base, size_t dot, const char ts[20],
                       unsigned seq);

/* Publish the fully written temporary file `tmp` under a name derived from (base, dot, ts,
 * *seq), never replacing an existing file: on a collision the -N suffix grows. The name used
 * is left in out[cap] and its suffix in *seq. Returns 0, or an errno value (the temporary file
 * is then removed). */
int bb__g_publish(const char *tmp, char *out, size_t cap, const char *base, size_t dot,
                  const char ts[20], unsigned *seq);

/* Current CLOCK_REALTIME / CLOCK_MONOTONIC in nanoseconds (async-signal-safe). */
uint64_t bb__g_realtime_ns(void);
uint64_t bb__g_monotonic_ns(void);

/* Append a decimal number / a string to out (bounded, NUL-terminated); signal-safe helpers. */
size_t bb__g_append_str(char *out, size_t cap, size_t len, const char *s);
size_t bb__g_append_u64(char *out, size_t cap, size_t len, uint64_t v);

/* ---- throttle and limits (global_policy.c) ---------------------------------------------- */

/* Throttle: dumps are at least `window_ns` apart; the first is never throttled. */
typedef struct bb__g_throttle {
    uint64_t window_ns;
    uint64_t last_ns; /* monotonic time of the last dump */
    bool have_last;
} bb__g_throttle;

/* Returns 0 when a dump may start at `now_ns`, else the nanoseconds to wait before it may. */
uint64_t bb__g_throttle_wait(const bb__g_throttle *t, uint64_t now_ns);
/* Record that a dump started at `now_ns`. */
void bb__g_throttle_mark(bb__g_throttle *t, uint64_t now_ns);

/* Limits: the files this process wrote, oldest first, in fixed-size slots allocated once
 * (so the crash path can read them without allocating). */
typedef struct bb__g_limits {
    uint32_t max; /* 0 = unlimited (no slots) */
    int policy;   /* enum bb__g_limit_policy */
    size_t slot_size;
    char *slots;    /* max * slot_size bytes */
    uint32_t first; /* index of the oldest */
    uint32_t count;
    bool cap_reported; /* keep-oldest said "cap reached" once */
} bb__g_limits;

/* Allocate slots for names up to slot_size-1 bytes. Returns false on allocation failure. */
bool bb__g_limits_init(bb__g_limits *l, uint32_t max, int policy, size_t slot_size);
void bb__g_limits_free(bb__g_limits *l);

/* Before a dump: may it be written? keep-oldest at the cap says no (sets *first_refusal the
 * first time so the caller can report it once); otherwise yes. Signal-safe. */
bool bb__g_limits_admit(bb__g_limits *l, bool *first_refusal);

/* After a dump was published as `name`: remember it; with keep-newest over the cap, remove the
 * oldest remembered file (unlink). Signal-safe. */
void bb__g_limits_commit(bb__g_limits *l, const char *name);

/* ---- the dumper (global_dumper.c) ------------------------------------------------------- */

/* Writes one complete dump into `fd`. Returns BB_OK or an error (with a message). */
typedef bb_status (*bb__g_write_fn)(void *ctx, int fd, bb_error *err);
/* As above from a signal handler: async-signal-safe; returns 0 or an errno value. */
typedef int (*bb__g_write_signal_fn)(void *ctx, int fd);

typedef struct bb__g_dumper_opts {
    const char *base; /* base path */
    uint64_t throttle_ms;
    uint32_t max_dumps;
    int limit_policy;
    bb__g_write_fn write;
    bb__g_write_signal_fn write_signal; /* may be NULL: no crash dumps */
    void *ctx;
    bb__g_warn_fn warn; /* NULL = stderr */
    void *warn_ctx;
    void (*tick)(void *ctx); /* NULL, or called by the dumper thread about once a second */
    bb__g_budget *budget;    /* NULL, or the dump directory's budget (kept by the caller) */
    uint64_t need;           /* bytes a dump is expected to take, for the budget */
} bb__g_dumper_opts;

typedef struct bb__g_dumper bb__g_dumper;

/* Create a dumper (no thread yet). Returns NULL on allocation failure or a base path too long. */
bb__g_dumper *bb__g_dumper_create(const bb__g_dumper_opts *opts);

/* Start the background thread and wait until it runs. Returns 0 or an errno value. The thread
 * blocks every signal it can and runs on an alternate signal stack when crash dumps are on. */
int bb__g_dumper_start(bb__g_dumper *d);

/* Ask for a dump: returns at once, async-signal-safe, never blocks. Triggers arriving while a
 * dump is pending, running or throttled coalesce into one later dump. */
void bb__g_dumper_trigger(bb__g_dumper *d);

/* Write a dump now on the calling thread (not throttled; counts against the limits; waits for a
 * dump in progress on the thread). On success copies the file name into name[cap] (if given).
 * Returns BB_OK, BB_ERR_FULL (keep-oldest cap reached) or an I/O error. */
bb_status bb__g_dumper_dump_now(bb__g_dumper *d, char *name, size_t cap, bb_error *err);

/* Crash path (async-signal-safe, no locks, no allocation): write a dump with write_signal.
 * A normal dump interrupted by the crash has its partial temporary file removed (the process
 * is going away: nothing would publish it). Returns 0 when written. */
int bb__g_dumper_dump_signal(bb__g_dumper *d);

/* Stop the thread (after it finishes the dump it is writing; pending throttled triggers are
 * dropped). Idempotent. */
void bb__g_dumper_stop(bb__g_dumper *d);

/* At exit: stop the thread, then write a trigger still pending if its throttle window allows
 * it now (so "trigger, then exit" still dumps); a throttled one is dropped. */
void bb__g_dumper_finish(bb__g_dumper *d);

/* Stop and free. */
void bb__g_dumper_destroy(bb__g_dumper *d);

/* Number of dumps written and failed so far (tests and diagnostics). */
uint64_t bb__g_dumper_written(const bb__g_dumper *d);
uint64_t bb__g_dumper_failed(const bb__g_dumper *d);

/* fork support: fork_prepare takes the dumper's locks (no dump in progress across fork()),
 * fork_parent releases them. The child does not use the parent's dumper again (the global
 * recorder is rebuilt), so there is no fork_child. */
void bb__g_dumper_fork_prepare(bb__g_dumper *d);
void bb__g_dumper_fork_parent(bb__g_dumper *d);
/* In a fork child: release what the child holds of the parent's dumper (its pipe) without
 * touching its locks or thread; the object itself is leaked. Async-signal-safe. */
void bb__g_dumper_abandon(bb__g_dumper *d);

/* ---- condition triggers (global_trigger.c) ------------------------------------------------ */
/* Arm cfg->trigger's rules on `rec`, each firing dumped through `d` after cfg->trigger_after_ns
 * (nothing when there are no rules or no dumper). Bad rules are reported on stderr and left out. */
struct bb_recorder;
void bb__g_trigger_arm(struct bb_recorder *rec, bb__g_dumper *d, const bb__g_config *cfg);

/* At exit: the rules are disarmed and a firing still in its after-window is written now (the
 * trigger thread would die with the process before its window ends). */
void bb__g_trigger_flush(struct bb_recorder *rec);
/* ---- crash handling (global_crash.c) ----------------------------------------------------- */

/* Install handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT that call `dump` once (first
 * crash), then restore the previous dispositions and let the signal take its course. Calling
 * it again replaces the callback only. Returns 0 or an errno value. */
typedef void (*bb__g_crash_fn)(void *ctx, int sig);
int bb__g_crash_install(bb__g_crash_fn fn, void *ctx);

/* Once the crash handlers are installed, go over each crash signal's handler the program has
 * installed since (ours then runs first and chains to it; called once, at the first record).
 * Returns how many signals were taken back. Async-signal-safe. */
int bb__g_crash_rearm(void);

/* Create the thread-exit key and compute the stack size (once; not signal-safe: call it before
 * any thread may need bb__g_altstack_install from a signal handler). */
void bb__g_altstack_prepare(void);

/* Give the calling thread an alternate signal stack if it has none (so a stack overflow can be
 * handled). The stack is unmapped when the thread exits; returns 0 or an errno value. No
 * allocation, no lock once prepared (mmap, sigaltstack, pthread_setspecific). */
int bb__g_altstack_install(void);

/* Set the callback the crash handler calls (NULL: crash handlers chain without dumping). */
void bb__g_crash_set(bb__g_crash_fn fn, void *ctx);

/* Write "backbeat[<pid>]: <UTC time> <msg>\n" to stderr with one write(2): bb__message of
 * common/message.h, the one home of that prefix. Async-signal-safe. */
void bb__g_stderr_line(const char *message);

#endif /* BACKBEAT_GLOBAL_INTERNAL_H */
