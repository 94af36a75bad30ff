/* global.c — the process-wide recorder: lazy thread-safe construction from the environment, the
 * public bb_global_* API, the BACKBEAT_SIGNAL trigger handler, exit and fork handling.
 *
 * The recorder pointer is published with a release store after everything it needs exists, so
 * the fast path (global.h) is one acquire load. Building happens once, under a mutex; a failure
 * is remembered (and reported once) so the slow path does not retry per event. After fork() the
 * child forgets the parent's recorder (never touching its locks or thread) and rebuilds its own
 * on first use, with the configuration parsed in the parent.
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
#include "capture/ring_backing.h"
#include "common/error_set.h"
#include "global/global_internal.h"

bb_recorder *bb__global_rec;

typedef struct gstate {
    bb_recorder *rec;
    bb__g_dumper *dumper; /* NULL when it could not be created */
} gstate;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static gstate *g_state;          /* atomic: published with release */
static int g_dead;               /* atomic: building failed; bb_global() stays NULL */
static bb_status g_dead_status;
static bb__g_config g_cfg;       /* parsed once per process tree */
static bool g_cfg_ready;
static int g_inherit_enable = -1; /* after fork: the parent's enabled state */
static bool g_once_done;         /* atexit / atfork registered */
static gstate *g_abandoned;      /* a fork child keeps the parent's state reachable */
static struct sigaction g_prev_trigger;
static int g_trigger_sig;

/* Thread being inside build (a signal handler that records there must not re-enter). */
static __thread bool t_building __attribute__((tls_model("initial-exec")));
/* Thread running on_trigger_signal (a handler that chains back to ours must not loop). */
static __thread bool t_in_trigger __attribute__((tls_model("initial-exec")));

static const char *env_get(const char *name, void *ctx) {
    (void)ctx;
    return getenv(name);
}

static void warn_stderr(const char *message, void *ctx) {
    (void)ctx;
    bb__g_stderr_line(message);
}

static bb_status rec_write(void *ctx, int fd, bb_error *err) {
    return bb_recorder_dump_fd((bb_recorder *)ctx, fd, err);
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
    if (st && st->dumper) bb__g_dumper_dump_signal(st->dumper);
}

/* The BACKBEAT_SIGNAL handler: trigger (never build), then chain to a previous handler. */
static void on_trigger_signal(int sig, siginfo_t *info, void *uc) {
    if (t_in_trigger) return; /* reached again through a handler we chain to */
    t_in_trigger = true;
    int saved = errno;
    gstate *st = state();
    if (st && st->dumper) bb__g_dumper_trigger(st->dumper);
    if (g_prev_trigger.sa_flags & SA_SIGINFO) {
        if (g_prev_trigger.sa_sigaction) g_prev_trigger.sa_sigaction(sig, info, uc);
    } else if (g_prev_trigger.sa_handler != SIG_DFL && g_prev_trigger.sa_handler != SIG_IGN) {
        g_prev_trigger.sa_handler(sig);
    }
    errno = saved;
    t_in_trigger = false;
}

static void at_exit(void) {
    gstate *st = state();
    if (!st) return;
    if (st->dumper && g_cfg.dump_on_exit) {
        bb__g_dumper_stop(st->dumper); /* the exit dump covers any pending trigger */
        bb__g_dumper_dump_now(st->dumper, NULL, 0, NULL);
    } else if (st->dumper) {
        bb__g_dumper_finish(st->dumper); /* a pending trigger outside its window is written */
    }
    bb_ring_backing_exit(st->rec); /* a normal exit removes the ring file (unless kept) */
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
    __atomic_store_n(&bb__global_rec, NULL, __ATOMIC_RELEASE);
    __atomic_store_n(&g_state, NULL, __ATOMIC_RELEASE);
    /* (a parent that could not build it stays without one: g_dead is inherited) */
    if (g_cfg_ready && g_cfg.path_is_default)
        bb__g_default_path(g_cfg.path, sizeof g_cfg.path, getenv("TMPDIR"), (long)getpid());
}

/* Install on_trigger_signal for `sig`, keeping the disposition it replaces to chain to. A
 * second call (at build, after the load-time one) is a no-op while ours is still in place; if
 * the program replaced it meanwhile, ours goes back on top, chaining to the program's (which
 * may chain back to ours: t_in_trigger stops that round trip). */
static void install_trigger_signal(int sig) {
    if (g_trigger_sig == sig) {
        struct sigaction cur;
        if (sigaction(sig, NULL, &cur) != 0 ||
            ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_trigger_signal))
            return;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trigger_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, &g_prev_trigger) == 0) {
        g_trigger_sig = sig;
        if (g_prev_trigger.sa_sigaction == on_trigger_signal)
            memset(&g_prev_trigger, 0, sizeof g_prev_trigger);
    } else {
        char msg[128];
        snprintf(msg, sizeof msg, "cannot install the BACKBEAT_SIGNAL handler for signal %d: %s",
                 sig, strerror(errno));
        bb__g_stderr_line(msg);
    }
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
static bb_status create_sized(bb_recorder_options *o, bool file, bb_recorder **rec,
                              bb_error *err) {
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
static bb_status create_rec(bb_recorder_options *o, bb_recorder **rec) {
    bb_error err;
    if (g_cfg.ring_dir[0]) {
        bb_status st = create_sized(o, true, rec, &err);
        if (st != BB_ERR_IO) return st;
        char msg[400];
        snprintf(msg, sizeof msg, "%s; recording into anonymous memory (a SIGKILL loses it)",
                 err.message);
        bb__g_stderr_line(msg);
    }
    return create_sized(o, false, rec, &err);
}

/* Build the recorder (g_lock held). Returns it or NULL (g_dead set). */
static bb_recorder *build_locked(void) {
    if (!g_cfg_ready) {
        bb__g_config_parse(&g_cfg, env_get, NULL, warn_stderr, NULL, sysconf(_SC_NPROCESSORS_ONLN),
                           (long)getpid());
        g_cfg_ready = true;
    }
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = g_cfg.shards;
    o.bytes_per_shard = g_cfg.bytes;
    o.host = g_cfg.host;
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

    bb__g_dumper_opts d = {
        .base = g_cfg.path,
        .throttle_ms = g_cfg.throttle_ms,
        .max_dumps = g_cfg.max_dumps,
        .limit_policy = g_cfg.limit_policy,
        .write = rec_write,
        .write_signal = g_cfg.dump_on_crash ? rec_write_signal : NULL,
        .ctx = rec,
    };
    gs->dumper = bb__g_dumper_create(&d);
    int e = gs->dumper ? bb__g_dumper_start(gs->dumper) : ENOMEM;
    if (e) {
        char msg[PATH_MAX + 128];
        snprintf(msg, sizeof msg, "cannot start the dumper for %s: %s; no dumps are written",
                 g_cfg.path, strerror(e));
        bb__g_stderr_line(msg);
        bb__g_dumper_destroy(gs->dumper);
        gs->dumper = NULL;
    }

    __atomic_store_n(&g_state, gs, __ATOMIC_RELEASE);
    if (g_cfg.signal) install_trigger_signal(g_cfg.signal);
    if (g_cfg.dump_on_crash && gs->dumper) {
        bb__g_altstack_install();
        e = bb__g_crash_install(on_crash, NULL);
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
    return rec;
}

bb_recorder *bb__global_slow(void) {
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

bb_status bb_global_init(void) {
    return bb_global() ? BB_OK : g_dead_status ? g_dead_status : BB_ERR_INVALID;
}

void bb_global_enable(void) {
    bb_recorder *r = bb_global();
    if (r) bb_recorder_enable(r, true);
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

/* The main thread gets an alternate signal stack at load time when crash dumps are asked for,
 * so a stack overflow on it is caught even if another thread builds the recorder. The
 * BACKBEAT_SIGNAL handler is installed at load time too: until the recorder is built it
 * triggers nothing (there is nothing recorded to dump), but the signal no longer takes its
 * default action, which for usr1/usr2 kills the program being traced. (An invalid value is
 * reported when the recorder is built.) */
__attribute__((constructor)) static void global_ctor(void) {
    bool on = false;
    const char *v = getenv("BACKBEAT_DUMP_ON_CRASH");
    if (!v) v = getenv("BACKBEAT_DUMP_ON_PANIC");
    if (v && bb__g_parse_bool(v, &on) && on) bb__g_altstack_install();
    int sig = 0;
    v = getenv("BACKBEAT_SIGNAL");
    if (v && *v && strcasecmp(v, "none") != 0 && bb__g_parse_signal(v, &sig) && sig > 0)
        install_trigger_signal(sig);
}
