/* global.c — the process-wide recorder: thread-safe construction from the environment (at load
 * when BACKBEAT_ENABLE, BACKBEAT_DUMP_ON_CRASH or BACKBEAT_SIGNAL is set, else on first use),
 * each thread's first use, the public bb_global_* API, the BACKBEAT_SIGNAL trigger handler, exit
 * and fork handling.
 *
 * The recorder pointer is published with a release store after everything it needs exists. A
 * thread's first use (bb__global_slow) acquires it, sets the thread up (its alternate signal
 * stack; the process's first use re-arms the handlers) and caches it in the thread-local
 * bb__global_tls, the fast path's one load (global.h). Building happens once, under a mutex; a
 * failure is remembered (and reported once) so the slow path does not retry per event. The
 * dumper thread is started only while capture is enabled or BACKBEAT_SIGNAL is set. After
 * fork() the child forgets the parent's recorder (never touching its locks or thread) and
 * rebuilds its own on first use, with the configuration parsed in the parent.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "backbeat/global.h"
#include "backbeat/log.h"
#include "capture/intern_advice.h"
#include "capture/log_hook.h"
#include "backbeat/detail/recorder_inline.h"
#include "capture/ring_backing.h"
#include "capture/trigger_hook.h"
#include "common/bool_word.h"
#include "common/error_set.h"
#include "global/global_crash_info.h"
#include "global/global_internal.h"

bb_recorder *bb__global_rec;
__thread bb_recorder *bb__global_tls __attribute__((tls_model("initial-exec")));

typedef struct gstate {
    bb_recorder *rec;
    bb__g_dumper *dumper; /* NULL when it could not be created */
    int thread_on;        /* atomic: the dumper thread was started (under g_lock) */
} gstate;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static gstate *g_state; /* atomic: published with release */
static int g_dead;      /* atomic: building failed; bb_global() stays NULL */
static bb_status g_dead_status;
static bb__g_config g_cfg;         /* parsed once per process tree */
static char g_base[PATH_MAX];      /* this process's dump base path (bb__g_pid_path of g_cfg's) */
static bb__g_budget g_budget;      /* the dump directory's (bb__g_budget_enter) */
static bb__g_budget g_ring_budget; /* BACKBEAT_RING_DIR's */
/* Why there is no ring file (its directory over budget), printed at the process's first use of
 * the recorder (rearm): a process that never records (a control command) says nothing. */
static char g_ring_refused[PATH_MAX + 600];
static bool g_cfg_ready;
static int g_inherit_enable = -1;       /* after fork: the parent's enabled state */
static bool g_once_done;                /* atexit / atfork registered */
static gstate *g_abandoned;             /* a fork child keeps the parent's state reachable */
static struct sigaction g_orig_trigger; /* the dump signal's disposition before ours */
static struct sigaction g_prev_trigger; /* what ours chains to: the original, or the program's
                                         * handler ours went over at re-arming */
static int g_trigger_sig;               /* atomic (the dumper thread reads it) */
static int g_rearmed;                   /* atomic: the process's first use re-armed the handlers */
static int g_exit_done;                 /* atomic: at_exit ran in this process */

/* Thread being inside build (a signal handler that records there must not re-enter). */
static __thread bool t_building __attribute__((tls_model("initial-exec")));
/* Thread running on_trigger_signal (a handler that chains back to ours must not loop). */
static __thread bool t_in_trigger __attribute__((tls_model("initial-exec")));
/* Thread inside its first-use set-up (a signal handler using bb_global() meanwhile skips it). */
static __thread bool t_attaching __attribute__((tls_model("initial-exec")));

static const char *env_get(const char *name, void *ctx) {
    (void)ctx;
    return bb__g_env_get(name);
}

static void warn_stderr(const char *message, void *ctx) {
    (void)ctx;
    bb__g_stderr_line(message);
}

/* Report once on stderr that the intern table filled up (the strings refused so far record as
 * "<backbeat: intern table full>"). Called after each dump. */
static void report_intern_full(bb_recorder *rec) {
    static int reported;
    bb_recorder_stats s;
    bb_recorder_stats_get(rec, &s);
    if (!s.intern_full || __atomic_exchange_n(&reported, 1, __ATOMIC_RELAXED)) return;
    char msg[768], why[512];
    bb__intern_advice(rec, why, sizeof why);
    snprintf(msg, sizeof msg,
             "the intern table is full (%llu strings; %llu calls refused so far): later new "
             "strings record as <backbeat: intern table full>; %s",
             (unsigned long long)s.intern_count, (unsigned long long)s.intern_full, why);
    bb__g_stderr_line(msg);
}

static bb_status rec_write(void *ctx, int fd, bb_error *err) {
    bb_status st = bb_recorder_dump_fd((bb_recorder *)ctx, fd, err);
    report_intern_full((bb_recorder *)ctx);
    return st;
}

static int rec_write_signal(void *ctx, int fd) {
    return bb_recorder_dump_fd_signal_safe((bb_recorder *)ctx, fd) == BB_OK ? 0 : EIO;
}

static gstate *state(void) { return __atomic_load_n(&g_state, __ATOMIC_ACQUIRE); }

/* The crash callback: dump the current process's recorder (none in a child before rebuild). */
static void on_crash(void *ctx, int sig) {
    (void)ctx;
    (void)sig;
    gstate *st = state();
    if (st && st->dumper) {
        bb__g_crash_record(st->rec); /* backbeat::Crash and ::Module, then the dump */
        /* Written whole, the dump holds what the ring file did: remove the file (unless kept),
         * so a crash loop's dead workers do not fill the ring directory's budget. */
        if (bb__g_dumper_dump_signal(st->dumper) == 0) bb__ring_backing_exit(st->rec, false);
    }
}

static void on_trigger_signal(int sig, siginfo_t *info, void *uc);

/* Whether `sa` is a handler of the program (not the default action, not ignored, not ours). */
static bool program_handler(const struct sigaction *sa) {
    if (sa->sa_flags & SA_SIGINFO) return sa->sa_sigaction != on_trigger_signal;
    return sa->sa_handler != SIG_DFL && sa->sa_handler != SIG_IGN;
}

static void call_handler(const struct sigaction *sa, int sig, siginfo_t *info, void *uc) {
    if (!program_handler(sa)) return;
    if (sa->sa_flags & SA_SIGINFO) sa->sa_sigaction(sig, info, uc);
    else sa->sa_handler(sig);
}

static bool same_handler(const struct sigaction *a, const struct sigaction *b) {
    return (a->sa_flags & SA_SIGINFO) == (b->sa_flags & SA_SIGINFO) &&
           ((a->sa_flags & SA_SIGINFO) ? a->sa_sigaction == b->sa_sigaction
                                       : a->sa_handler == b->sa_handler);
}

/* The BACKBEAT_SIGNAL handler: trigger (never build), then chain to the handler it went over.
 * Reached again through that handler (a program handler chaining to ours, gone over at
 * re-arming), it calls the disposition from before ours instead, so no handler runs twice. */
static void on_trigger_signal(int sig, siginfo_t *info, void *uc) {
    int saved = errno;
    if (t_in_trigger) {
        if (!same_handler(&g_orig_trigger, &g_prev_trigger))
            call_handler(&g_orig_trigger, sig, info, uc);
        errno = saved;
        return;
    }
    t_in_trigger = true;
    gstate *st = state();
    if (st && st->dumper) bb__g_dumper_trigger(st->dumper);
    call_handler(&g_prev_trigger, sig, info, uc);
    errno = saved;
    t_in_trigger = false;
}

/* The exit handler, registered when the recorder is built and again at the process's first
 * record: the later registration runs first, before the program's destructors (which unregister
 * its schemas and view sets) when the library was built at load as a shared library; the other
 * call then does nothing. A process that never recorded writes no exit dump and leaves no ring
 * file (BACKBEAT_RING_KEEP notwithstanding): short-lived control commands leave nothing. */
static void at_exit(void) {
    gstate *st = state();
    if (!st || __atomic_exchange_n(&g_exit_done, 1, __ATOMIC_ACQ_REL)) return;
    bool any = bb__recorder_took_record(st->rec);
    if (st->dumper && g_cfg.dump_on_exit && any) {
        bb__g_dumper_stop(st->dumper); /* the exit dump covers any pending trigger */
        bb__g_dumper_dump_now(st->dumper, NULL, 0, NULL);
    } else if (st->dumper) {
        bb__g_trigger_flush(st->rec);    /* a rule's firing in its after-window: dumped now */
        bb__g_dumper_finish(st->dumper); /* a pending trigger outside its window is written */
    }
    bb__ring_backing_exit(st->rec, !any); /* a normal exit removes the ring file (unless kept) */
}

static void fork_prepare(void) {
    pthread_mutex_lock(&g_lock);
    gstate *st = state();
    if (st) bb__g_dumper_fork_prepare(st->dumper);
}

static void fork_parent(void) {
    gstate *st = state();
    if (st) bb__g_dumper_fork_parent(st->dumper);
    pthread_mutex_unlock(&g_lock);
}

static void fork_child(void) {
    pthread_mutex_init(&g_lock, NULL);
    gstate *st = state();
    if (st) {
        g_inherit_enable = bb_recorder_enabled(st->rec) ? 1 : 0;
        bb__g_dumper_abandon(st->dumper); /* its thread does not exist here */
        g_abandoned = st;
    }
    /* The parent's recorder and dumper are left alone (their memory is the parent's copy). */
    bb__global_tls = NULL; /* the forking thread, the child's only one */
    g_exit_done = 0;
    __atomic_store_n(&bb__global_rec, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&g_state, NULL, __ATOMIC_RELEASE);
    /* (a parent that could not build it stays without one: g_dead is inherited) */
    if (g_cfg_ready && g_cfg.path_is_default)
        bb__g_default_path(g_cfg.path, sizeof g_cfg.path, bb__g_env_get("TMPDIR"), (long)getpid());
}

/* "signal 10 (SIGUSR1)" into out[cap], async-signal-safe (no strsignal). */
static size_t signal_words(char *out, size_t cap, size_t len, int sig) {
    static const struct {
        int sig;
        const char *name;
    } names[] = {
        {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}, {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},
        {SIGQUIT, "SIGQUIT"}, {SIGTERM, "SIGTERM"}, {SIGALRM, "SIGALRM"}, {SIGWINCH, "SIGWINCH"},
        {SIGPIPE, "SIGPIPE"}, {SIGCHLD, "SIGCHLD"}, {SIGCONT, "SIGCONT"}, {SIGTSTP, "SIGTSTP"},
    };
    len = bb__g_append_str(out, cap, len, "signal ");
    len = bb__g_append_u64(out, cap, len, (uint64_t)sig);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (names[i].sig != sig) continue;
        len = bb__g_append_str(out, cap, len, " (");
        len = bb__g_append_str(out, cap, len, names[i].name);
        len = bb__g_append_str(out, cap, len, ")");
    }
    return len;
}

/* One stderr line: head, the signal, tail (async-signal-safe). */
static void signal_line(const char *head, int sig, const char *tail) {
    char msg[320];
    size_t len = bb__g_append_str(msg, sizeof msg, 0, head);
    len = signal_words(msg, sizeof msg, len, sig);
    bb__g_append_str(msg, sizeof msg, len, tail);
    bb__g_stderr_line(msg);
}

/* The dumper's tick: warn once when the program has replaced the BACKBEAT_SIGNAL handler (the
 * signal then no longer triggers dumps), and report a full intern table. Not before the first
 * record: that re-arms the handler over one the program installed while setting up. */
static void on_tick(void *ctx) {
    static int warned;
    report_intern_full((bb_recorder *)ctx);
    int sig = __atomic_load_n(&g_trigger_sig, __ATOMIC_RELAXED);
    struct sigaction cur;
    if (!sig || warned || !__atomic_load_n(&g_rearmed, __ATOMIC_ACQUIRE) ||
        sigaction(sig, NULL, &cur) != 0 || !program_handler(&cur))
        return;
    warned = 1;
    signal_line("BACKBEAT_SIGNAL: the program replaced backbeat's handler for ", sig,
                ": that signal no longer triggers dumps (choose another BACKBEAT_SIGNAL)");
}

/* Install on_trigger_signal for `sig`, chaining to the disposition it replaces. A second call
 * (the re-arming at the first record) is a no-op while ours is still in place; if the program
 * replaced it meanwhile, ours goes back on top, chaining to the program's (which may chain back
 * to ours: on_trigger_signal then calls the original disposition). A program handler gone over
 * is reported once per call on stderr. Async-signal-safe. */
static void install_trigger_signal(int sig) {
    bool first = __atomic_load_n(&g_trigger_sig, __ATOMIC_RELAXED) != sig;
    struct sigaction cur;
    if (!first && (sigaction(sig, NULL, &cur) != 0 ||
                   ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_trigger_signal)))
        return;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trigger_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, &old) != 0) {
        signal_line("cannot install the BACKBEAT_SIGNAL handler for ", sig, "");
        return;
    }
    if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction == on_trigger_signal)
        memset(&old, 0, sizeof old);
    g_prev_trigger = old;
    if (first) g_orig_trigger = old;
    __atomic_store_n(&g_trigger_sig, sig, __ATOMIC_RELAXED);
    if (program_handler(&old))
        signal_line("BACKBEAT_SIGNAL: the program already handles ", sig,
                    "; backbeat dumps on it, then calls the program's handler");
}

enum { FALLBACK_BYTES = 1u << 20 };

/* One attempt: in a ring file under BACKBEAT_RING_DIR (`file`; BB_ERR_IO and a message in *err
 * when the file cannot be created, sized or mapped) or in anonymous memory. */
static bb_status try_create(const bb_recorder_options *o, bool file, bb_recorder **rec,
                            bb_error *err) {
    memset(err, 0, sizeof *err);
    return file ? bb_recorder_create_ring(o, g_cfg.ring_dir, g_cfg.ring_keep, rec, err)
                : bb_recorder_create(o, rec);
}

/* Create in a ring file or anonymous memory with the configured ring size, and when that fails
 * for rings over 1 MiB, in the same kind of storage with 1 MiB rings (too big for this process
 * or its disk: g_cfg.bytes becomes 1 MiB, with a message) rather than tracing nothing. On
 * failure returns the first attempt's status and message. */
static bb_status create_sized(bb_recorder_options *o, bool file, bb_recorder **rec, bb_error *err) {
    o->bytes_per_shard = g_cfg.bytes;
    bb_status st = try_create(o, file, rec, err);
    if (st == BB_OK || g_cfg.bytes <= FALLBACK_BYTES) return st;
    bb_error small;
    o->bytes_per_shard = FALLBACK_BYTES;
    if (try_create(o, file, rec, &small) != BB_OK) {
        o->bytes_per_shard = g_cfg.bytes;
        return st;
    }
    char msg[600];
    snprintf(msg, sizeof msg,
             "cannot create the global recorder%s with %u shards of %llu bytes (%s); "
             "using 1M per shard",
             file ? " in a ring file" : "", g_cfg.shards, (unsigned long long)g_cfg.bytes,
             file && err->message[0] ? err->message : bb_strerror(st));
    bb__g_stderr_line(msg);
    g_cfg.bytes = FALLBACK_BYTES;
    return BB_OK;
}

/* The recorder with options `o`: in a ring file under BACKBEAT_RING_DIR when set (at 1 MiB per
 * ring when the configured size does not fit), falling back to anonymous memory (with a
 * message) when no file can be created, sized or mapped. */
/* Bytes a dump (or a ring file, with its 1 MiB metadata log and in-flight table: 2 MiB) of the
 * configured size takes at most, about: the rings, the intern table, 64 KiB for the rest. */
static uint64_t file_need(bool ring) {
    uint64_t rings = (uint64_t)g_cfg.shards * g_cfg.bytes;
    /* the table's defaults (recorder.h): in memory, a string per 20 ring bytes (at most 4 Mi),
     * 48 bytes each */
    uint64_t per = rings / 20 < (1u << 22) ? rings / 20 : (1u << 22);
    uint64_t entries = g_cfg.intern_entries ? g_cfg.intern_entries
                       : ring               ? 16384u
                                            : (per > 16384u ? per : 16384u);
    uint64_t bytes = g_cfg.intern_bytes ? g_cfg.intern_bytes
                     : ring             ? 1u << 20
                                        : (entries * 48 > (1u << 20) ? entries * 48 : 1u << 20);
    return rings + bytes + entries * 16u + (64u << 10) + (ring ? 2u << 20 : 0u);
}

/* Set the budgets of the dump directory and of BACKBEAT_RING_DIR from the configuration. */
static void set_budgets(void) {
    bb__g_budget *bs[2] = {&g_budget, &g_ring_budget};
    for (int i = 0; i < 2; i++) {
        bs[i]->max_use = g_cfg.dir_max_use;
        bs[i]->keep_free = g_cfg.dir_keep_free;
        bs[i]->policy = g_cfg.limit_policy;
    }
    if (!bb__g_pid_path(g_base, sizeof g_base, g_cfg.path, g_cfg.path_is_default, (long)getpid()))
        snprintf(g_base, sizeof g_base, "%s", g_cfg.path); /* too long with the pid: as set */
    bb__g_budget_dir(g_budget.dir, sizeof g_budget.dir, g_base);
    snprintf(g_ring_budget.dir, sizeof g_ring_budget.dir, "%s", g_cfg.ring_dir);
    g_ring_budget.ring = true;
    g_ring_budget.defer = g_ring_refused;
    g_ring_budget.defer_cap = sizeof g_ring_refused;
}

static bb_status create_rec(bb_recorder_options *o, bb_recorder **rec) {
    bb_error err;
    int lock_fd = -1;
    g_ring_refused[0] = '\0';
    if (g_cfg.ring_dir[0] && bb__g_budget_enter(&g_ring_budget, file_need(true), &lock_fd) != 0) {
        size_t len = strlen(g_ring_refused);
        bb__g_append_str(g_ring_refused, sizeof g_ring_refused, len,
                         len ? "; no ring file: recording into anonymous memory (a SIGKILL "
                               "loses it)"
                             : "no ring file (BACKBEAT_RING_DIR is over its budget); recording "
                               "into anonymous memory (a SIGKILL loses it)");
        if (__atomic_load_n(&g_rearmed, __ATOMIC_ACQUIRE)) { /* built at a use (a fork's child) */
            bb__g_stderr_line(g_ring_refused);
            g_ring_refused[0] = '\0';
        }
    } else if (g_cfg.ring_dir[0]) {
        bb_status st = create_sized(o, true, rec, &err);
        bb__g_budget_leave(lock_fd);
        if (st != BB_ERR_IO) return st;
        char msg[400];
        snprintf(msg, sizeof msg, "%s; recording into anonymous memory (a SIGKILL loses it)",
                 err.message);
        bb__g_stderr_line(msg);
    }
    return create_sized(o, false, rec, &err);
}

/* Start the dumper thread of `gs` unless it runs (g_lock held). */
static void start_dumper_locked(gstate *gs) {
    if (!gs->dumper || __atomic_load_n(&gs->thread_on, __ATOMIC_ACQUIRE)) return;
    int e = bb__g_dumper_start(gs->dumper);
    if (e) {
        char msg[PATH_MAX + 128];
        snprintf(msg, sizeof msg,
                 "cannot start the dumper thread for %s: %s; triggers are written at exit", g_base,
                 strerror(e));
        bb__g_stderr_line(msg);
        return;
    }
    __atomic_store_n(&gs->thread_on, 1, __ATOMIC_RELEASE);
}

/* Create the dumper of `gs` (g_lock held); its thread only when `thread` (capture on or a
 * dump signal: nothing else needs it; bb_global_enable starts it later). */
static void make_dumper(gstate *gs, bb_recorder *rec, bool thread) {
    bb__g_dumper_opts d = {
        .base = g_base,
        .throttle_ms = g_cfg.throttle_ms,
        .max_dumps = g_cfg.max_dumps,
        .limit_policy = g_cfg.limit_policy,
        .write = rec_write,
        .write_signal = g_cfg.dump_on_crash ? rec_write_signal : NULL,
        .ctx = rec,
        .tick = on_tick,
        .budget = &g_budget,
        .need = file_need(false),
    };
    gs->dumper = bb__g_dumper_create(&d);
    if (!gs->dumper) {
        char msg[PATH_MAX + 128];
        snprintf(msg, sizeof msg, "cannot create the dumper for %s: %s; no dumps are written",
                 g_base, strerror(ENOMEM));
        bb__g_stderr_line(msg);
        return;
    }
    if (thread) start_dumper_locked(gs);
}

/* Build the recorder (g_lock held). Returns it or NULL (g_dead set). */
/* A log line at or above BACKBEAT_DUMP_ON_LOG was recorded (log_site.c): a dump of the global
 * recorder, if that is where it went. */
static void log_fired(bb_recorder *rec, int level) {
    (void)level;
    if (rec == __atomic_load_n(&bb__global_rec, __ATOMIC_ACQUIRE)) bb_global_trigger();
}

static bb_recorder *build_locked(void) {
    if (!g_cfg_ready) {
        bb__g_config_parse(&g_cfg, env_get, NULL, warn_stderr, NULL, sysconf(_SC_NPROCESSORS_ONLN),
                           (long)getpid());
        g_cfg_ready = true;
    }
    set_budgets();
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = g_cfg.shards;
    o.bytes_per_shard = g_cfg.bytes;
    o.host = g_cfg.host;
    o.intern_entries = g_cfg.intern_entries;
    o.intern_bytes = g_cfg.intern_bytes;
    bb_recorder *rec = NULL;
    bb_status st = create_rec(&o, &rec);
    gstate *gs = st == BB_OK ? calloc(1, sizeof *gs) : NULL;
    if (!gs) {
        if (st == BB_OK) st = BB_ERR_NOMEM;
        bb_recorder_free(rec);
        char msg[160];
        snprintf(msg, sizeof msg,
                 "cannot create the global recorder (%u shards of %llu bytes): %s; "
                 "recording through it is off",
                 g_cfg.shards, (unsigned long long)g_cfg.bytes, bb_strerror(st));
        bb__g_stderr_line(msg);
        g_dead_status = st;
        __atomic_store_n(&g_dead, 1, __ATOMIC_RELEASE);
        return NULL;
    }
    gs->rec = rec;
    bool on = g_inherit_enable >= 0 ? g_inherit_enable == 1 : g_cfg.enable;
    bb_recorder_enable(rec, on);

    make_dumper(gs, rec, on || g_cfg.signal);
    bb__g_trigger_arm(rec, gs->dumper, &g_cfg);

    __atomic_store_n(&g_state, gs, __ATOMIC_RELEASE);
    if (g_cfg.signal) install_trigger_signal(g_cfg.signal);
    if (g_cfg.dump_on_crash && gs->dumper) {
        bb__g_altstack_prepare();
        bb__g_altstack_install();
        int e = bb__g_crash_install(on_crash, NULL);
        if (e) {
            char msg[128];
            snprintf(msg, sizeof msg, "cannot install the crash handlers: %s", strerror(e));
            bb__g_stderr_line(msg);
        }
    }
    if (!g_once_done) {
        g_once_done = true;
        atexit(at_exit);
        pthread_atfork(fork_prepare, fork_parent, fork_child);
    }
    __atomic_store_n(&bb__global_rec, rec, __ATOMIC_RELEASE);
    if (g_cfg.dump_on_log <= BB_FATAL) {
        bb__log_dump_hook_set(log_fired);
        __atomic_store_n(&bb__log_dump_min, g_cfg.dump_on_log, __ATOMIC_RELAXED);
    }
    return rec;
}

/* Build the recorder unless it exists or building failed. */
static bb_recorder *build(void) {
    if (__atomic_load_n(&g_dead, __ATOMIC_ACQUIRE) || t_building) return NULL;
    pthread_mutex_lock(&g_lock);
    bb_recorder *r = __atomic_load_n(&bb__global_rec, __ATOMIC_ACQUIRE);
    if (!r && !__atomic_load_n(&g_dead, __ATOMIC_ACQUIRE)) {
        t_building = true;
        r = build_locked();
        t_building = false;
    }
    pthread_mutex_unlock(&g_lock);
    return r;
}

/* The process's first use: handlers the program installed over ours while setting up (after
 * the library loaded, before it recorded) are gone over again, ours chaining to them. */
static void rearm(void) {
    atexit(at_exit); /* after the program's destructors were registered: runs before them */
    if (g_ring_refused[0]) bb__g_stderr_line(g_ring_refused);
    int sig = __atomic_load_n(&g_trigger_sig, __ATOMIC_RELAXED);
    if (sig) install_trigger_signal(sig);
    if (g_cfg.dump_on_crash) bb__g_crash_rearm();
}

/* A thread's first use (no lock, no allocation): its alternate signal stack when crash dumps
 * are on (freed at its exit), the process's re-arming, then the fast path's cached pointer. */
bb_recorder *bb__global_slow(void) {
    bb_recorder *r = __atomic_load_n(&bb__global_rec, __ATOMIC_ACQUIRE);
    if (!r) r = build();
    if (!r || t_attaching) return r;
    t_attaching = true;
    if (g_cfg.dump_on_crash) bb__g_altstack_install();
    if (!__atomic_exchange_n(&g_rearmed, 1, __ATOMIC_ACQ_REL)) rearm();
    bb__global_tls = r;
    t_attaching = false;
    return r;
}

bb_status bb_global_init(void) {
    return bb_global() ? BB_OK : g_dead_status ? g_dead_status : BB_ERR_INVALID;
}

void bb_global_enable(void) {
    bb_recorder *r = bb_global();
    if (!r) return;
    bb_recorder_enable(r, true);
    gstate *st = state();
    if (!st || __atomic_load_n(&st->thread_on, __ATOMIC_ACQUIRE)) return;
    pthread_mutex_lock(&g_lock);
    if (state() == st) start_dumper_locked(st); /* a pending trigger is then written */
    pthread_mutex_unlock(&g_lock);
}

void bb_global_disable(void) {
    bb_recorder *r = bb_global();
    if (r) bb_recorder_enable(r, false);
}

bool bb_global_enabled(void) {
    bb_recorder *r = bb_global();
    return r && bb_recorder_enabled(r);
}

void bb_global_trigger(void) {
    gstate *st = state();
    if (!st) {
        bb_global();
        st = state();
    }
    if (st && st->dumper) bb__g_dumper_trigger(st->dumper);
}

bb_status bb_global_dump(char *path_out, size_t cap, bb_error *err) {
    if (!bb_global()) {
        return bb__err_set(err, g_dead_status ? g_dead_status : BB_ERR_INVALID, UINT64_MAX, NULL,
                           "the global recorder could not be built");
    }
    gstate *st = state();
    if (!st || !st->dumper) {
        if (err) {
            err->status = BB_ERR_IO;
            err->offset = UINT64_MAX;
            snprintf(err->message, sizeof err->message, "the global dumper is not running");
        }
        return BB_ERR_IO;
    }
    return bb__g_dumper_dump_now(st->dumper, path_out, cap, err);
}

bb_status bb_global_thread_init(void) {
    return bb__g_altstack_install() == 0 ? BB_OK : BB_ERR_NOMEM;
}

/* Whether the environment asks for coverage from the start: capture on, crash dumps or a dump
 * signal (an invalid value counts: building reports it at once). */
static bool wanted_at_load(void) {
    bool on = false;
    const char *v = getenv("BACKBEAT_ENABLE");
    if (v && bb__bool_word(v, &on) && on) return true;
    v = getenv("BACKBEAT_DUMP_ON_CRASH");
    if (!v) v = getenv("BACKBEAT_DUMP_ON_PANIC");
    if (v && bb__bool_word(v, &on) && on) return true;
    v = getenv("BACKBEAT_SIGNAL");
    return v && *v && strcasecmp(v, "none") != 0;
}

/* With BACKBEAT_ENABLE, BACKBEAT_DUMP_ON_CRASH or BACKBEAT_SIGNAL set, the recorder is built
 * when the library loads: the crash and dump-signal handlers are armed (and the main thread has
 * its alternate signal stack) before main, so a start-up crash or signal dumps what there is
 * (the registry, the process's metadata, empty rings). Nothing set: nothing happens until the
 * first use (no recorder, no thread). If building fails, the dump signal still gets a handler,
 * so that it never takes its default action (for usr1/usr2, killing the program). */
__attribute__((constructor)) static void global_ctor(void) {
    bb__g_env_snapshot();
    if (!wanted_at_load()) return;
    build();
    if (__atomic_load_n(&g_dead, __ATOMIC_ACQUIRE) && g_cfg_ready && g_cfg.signal)
        install_trigger_signal(g_cfg.signal);
}
