/* global_dumper.c — the dumper: triggers, the background thread, throttling, limits, crash dumps.
 *
 * It knows nothing about recorders: a dump is "call write(ctx, fd)" on a fresh temporary file,
 * then publish it under its timestamped name. A trigger is async-signal-safe: it sets a pending
 * flag and, when the flag was clear, writes one byte to a non-blocking pipe the thread polls, so
 * a storm of triggers costs one byte and coalesces into one dump. Dumps are serialised by one
 * mutex held for the whole dump (the thread's and dump_now's); the crash path takes no lock.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "global/global_internal.h"

struct bb__g_dumper {
    bb__g_dumper_opts o;
    char *base;      /* owned copy of the base path */
    size_t dot;      /* where its extension starts */
    size_t name_cap; /* room for any name we generate */

    pthread_mutex_t lock; /* serialises dumps; guards everything below up to `crash_*` */
    bb__g_throttle throttle;
    bb__g_limits limits;
    uint64_t last_ms; /* millisecond of the last dump, for the -N suffix */
    unsigned last_seq;
    bool fail_reported;
    char *name;   /* name_cap bytes */
    char *tmp;    /* name_cap bytes */
    int tmp_live; /* atomic: `tmp` names a file being written (the crash path removes it) */

    int pipe_rd, pipe_wr;
    int pending; /* atomic: a trigger is waiting */
    int stop;    /* atomic: the thread must exit */
    bool running;
    pthread_t thread;
    pthread_cond_t ready_cond; /* the thread signals `ready` (under lock) once in its loop */
    bool ready;

    uint64_t written; /* atomic */
    uint64_t failed;  /* atomic */

    int crash_busy;   /* atomic: the crash path runs */
    char *crash_name; /* name_cap bytes, preallocated */
    char *crash_tmp;
};

static void default_warn(const char *message, void *ctx) {
    (void)ctx;
    bb__g_stderr_line(message);
}

bb__g_dumper *bb__g_dumper_create(const bb__g_dumper_opts *opts) {
    if (!opts || !opts->base || !opts->write) return NULL;
    size_t blen = strlen(opts->base);
    if (blen == 0 || blen > PATH_MAX - 64) return NULL;
    bb__g_dumper *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->o = *opts;
    if (!d->o.warn) d->o.warn = default_warn;
    d->pipe_rd = d->pipe_wr = -1;
    d->base = strdup(opts->base);
    d->dot = d->base ? bb__g_path_ext_dot(d->base) : 0;
    /* stem + "." + 19-char stamp + "-" + up to 10 digits + ext + "." + pid + ".crash.tmp" */
    d->name_cap = blen + 80;
    d->name = malloc(d->name_cap);
    d->tmp = malloc(d->name_cap);
    d->crash_name = malloc(d->name_cap);
    d->crash_tmp = malloc(d->name_cap);
    d->throttle.window_ns = opts->throttle_ms * 1000000ull;
    int fds[2] = {-1, -1};
    if (!d->base || !d->name || !d->tmp || !d->crash_name || !d->crash_tmp ||
        !bb__g_limits_init(&d->limits, opts->max_dumps, opts->limit_policy, d->name_cap) ||
        pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0 || pthread_mutex_init(&d->lock, NULL) != 0 ||
        pthread_cond_init(&d->ready_cond, NULL) != 0) {
        if (fds[0] >= 0) {
            close(fds[0]);
            close(fds[1]);
        }
        bb__g_limits_free(&d->limits);
        free(d->base);
        free(d->name);
        free(d->tmp);
        free(d->crash_name);
        free(d->crash_tmp);
        free(d);
        return NULL;
    }
    d->pipe_rd = fds[0];
    d->pipe_wr = fds[1];
    return d;
}

/* Build the temporary name for `name` into tmp: "<name>.<pid>.<tag>tmp". Signal-safe. */
static bool tmp_name(char *tmp, size_t cap, const char *name, const char *tag) {
    size_t len = bb__g_append_str(tmp, cap, 0, name);
    len = bb__g_append_str(tmp, cap, len, ".");
    len = bb__g_append_u64(tmp, cap, len, (uint64_t)getpid());
    len = bb__g_append_str(tmp, cap, len, ".");
    len = bb__g_append_str(tmp, cap, len, tag);
    len = bb__g_append_str(tmp, cap, len, "tmp");
    return len < cap;
}

/* Report a failure once for the dumper's lifetime (called with the lock held). */
static void report_failure(bb__g_dumper *d, const char *what, const char *detail) {
    __atomic_add_fetch(&d->failed, 1, __ATOMIC_RELAXED);
    if (d->fail_reported) return;
    d->fail_reported = true;
    char msg[PATH_MAX + 400];
    snprintf(msg, sizeof msg, "%s %s: %s (further dump failures are not reported)", what, d->tmp,
             detail);
    d->o.warn(msg, d->o.warn_ctx);
}

static bb_status write_publish(bb__g_dumper *d, const char ts[20], unsigned *seq, bb_error *err);

/* Write one dump (lock held). */
static bb_status dump_locked(bb__g_dumper *d, char *out, size_t cap, bb_error *err) {
    bool first_refusal;
    if (!bb__g_limits_admit(&d->limits, &first_refusal)) {
        if (first_refusal) {
            char msg[128];
            snprintf(msg, sizeof msg,
                     "BACKBEAT_MAX_DUMPS=%u reached (keep-oldest): no further dumps are written",
                     d->limits.max);
            d->o.warn(msg, d->o.warn_ctx);
        }
        if (err) {
            err->status = BB_ERR_FULL;
            err->offset = UINT64_MAX;
            snprintf(err->message, sizeof err->message, "dump limit of %u files reached",
                     d->limits.max);
        }
        return BB_ERR_FULL;
    }
    uint64_t now = bb__g_realtime_ns();
    uint64_t ms = now / 1000000ull;
    unsigned seq = (d->written || d->failed) && ms == d->last_ms ? d->last_seq + 1 : 0;
    char ts[20];
    bb__g_format_utc_ms(now, ts);
    if (!bb__g_dump_name(d->name, d->name_cap, d->base, d->dot, ts, seq) ||
        !tmp_name(d->tmp, d->name_cap, d->name, "")) {
        if (err) {
            err->status = BB_ERR_INVALID;
            err->offset = UINT64_MAX;
            snprintf(err->message, sizeof err->message, "dump path too long");
        }
        return BB_ERR_INVALID;
    }
    d->last_ms = ms;
    d->last_seq = seq;
    int lock_fd;
    if (bb__g_budget_enter(d->o.budget, d->o.need, &lock_fd) != 0) {
        __atomic_add_fetch(&d->failed, 1, __ATOMIC_RELAXED);
        if (err) {
            err->status = BB_ERR_FULL;
            err->offset = UINT64_MAX;
            snprintf(err->message, sizeof err->message,
                     "the dump directory is over its budget (BACKBEAT_DIR_MAX_USE, "
                     "BACKBEAT_DIR_KEEP_FREE)");
        }
        return BB_ERR_FULL;
    }
    bb_status st = write_publish(d, ts, &seq, err);
    bb__g_budget_leave(lock_fd);
    if (st != BB_OK) return st;
    d->last_seq = seq;
    bb__g_limits_commit(&d->limits, d->name);
    __atomic_add_fetch(&d->written, 1, __ATOMIC_RELAXED);
    if (out && cap) {
        size_t n = strlen(d->name);
        if (n >= cap) n = cap - 1;
        memcpy(out, d->name, n);
        out[n] = '\0';
    }
    return BB_OK;
}

/* Write the dump into d->tmp and publish it (lock held, the directory's budget admitted it). */
static bb_status write_publish(bb__g_dumper *d, const char ts[20], unsigned *seq, bb_error *err) {
    __atomic_store_n(&d->tmp_live, 1, __ATOMIC_RELEASE);
    int fd = open(d->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        __atomic_store_n(&d->tmp_live, 0, __ATOMIC_RELEASE);
        report_failure(d, "cannot create dump", strerror(e));
        if (err) {
            err->status = BB_ERR_IO;
            err->offset = UINT64_MAX;
            snprintf(err->message, sizeof err->message, "cannot create %.180s: %s", d->tmp,
                     strerror(e));
        }
        return BB_ERR_IO;
    }
    bb_error local;
    memset(&local, 0, sizeof local);
    bb_status st = d->o.write(d->o.ctx, fd, &local);
    if (close(fd) != 0 && st == BB_OK) {
        st = BB_ERR_IO;
        snprintf(local.message, sizeof local.message, "close: %s", strerror(errno));
    }
    if (st != BB_OK) {
        unlink(d->tmp);
        __atomic_store_n(&d->tmp_live, 0, __ATOMIC_RELEASE);
        report_failure(d, "cannot write dump", local.message[0] ? local.message : bb_strerror(st));
        if (err) {
            *err = local;
            err->status = st;
        }
        return st;
    }
    int e = bb__g_publish(d->tmp, d->name, d->name_cap, d->base, d->dot, ts, seq);
    __atomic_store_n(&d->tmp_live, 0, __ATOMIC_RELEASE);
    if (e) {
        report_failure(d, "cannot publish dump", strerror(e));
        if (err) {
            err->status = BB_ERR_IO;
            err->offset = UINT64_MAX;
            snprintf(err->message, sizeof err->message, "cannot publish %.180s: %s", d->name,
                     strerror(e));
        }
        return BB_ERR_IO;
    }
    return BB_OK;
}

bb_status bb__g_dumper_dump_now(bb__g_dumper *d, char *name, size_t cap, bb_error *err) {
    if (!d) return BB_ERR_INVALID;
    pthread_mutex_lock(&d->lock);
    bb__g_throttle_mark(&d->throttle, bb__g_monotonic_ns());
    bb_status st = dump_locked(d, name, cap, err);
    pthread_mutex_unlock(&d->lock);
    return st;
}

void bb__g_dumper_trigger(bb__g_dumper *d) {
    if (!d) return;
    if (__atomic_exchange_n(&d->pending, 1, __ATOMIC_ACQ_REL)) return;
    int saved = errno;
    ssize_t r;
    do {
        r = write(d->pipe_wr, "t", 1);
    } while (r < 0 && errno == EINTR);
    errno = saved; /* a full pipe (EAGAIN) already has a wake-up in it */
}

static void drain(int fd) {
    char buf[64];
    while (read(fd, buf, sizeof buf) > 0) {}
}

/* Wait until the pipe is readable or `timeout_ms` passed (-1: forever). */
static void wait_pipe(int fd, int timeout_ms) {
    struct pollfd p = {.fd = fd, .events = POLLIN};
    int r;
    do {
        r = poll(&p, 1, timeout_ms);
    } while (r < 0 && errno == EINTR && timeout_ms < 0);
    drain(fd);
}

static bool stopping(bb__g_dumper *d) { return __atomic_load_n(&d->stop, __ATOMIC_ACQUIRE) != 0; }

static void *dumper_main(void *arg) {
    bb__g_dumper *d = arg;
    if (d->o.write_signal) bb__g_altstack_install();
    /* Tell dumper_start we are up: everything a new thread allocates (in libc, in a sanitizer
     * runtime) is done by now, so a fork() after start never copies such a lock held. */
    pthread_mutex_lock(&d->lock);
    d->ready = true;
    pthread_cond_signal(&d->ready_cond);
    pthread_mutex_unlock(&d->lock);
    while (!stopping(d)) {
        wait_pipe(d->pipe_rd, d->o.tick ? 1000 : -1);
        if (stopping(d)) break;
        if (d->o.tick) d->o.tick(d->o.ctx);
        if (!__atomic_exchange_n(&d->pending, 0, __ATOMIC_ACQ_REL)) continue;
        /* Throttle: wait out the window; triggers meanwhile coalesce into this one dump. */
        for (;;) {
            pthread_mutex_lock(&d->lock);
            uint64_t wait = bb__g_throttle_wait(&d->throttle, bb__g_monotonic_ns());
            pthread_mutex_unlock(&d->lock);
            if (!wait || stopping(d)) break;
            uint64_t ms = (wait + 999999ull) / 1000000ull;
            wait_pipe(d->pipe_rd, ms > 60000 ? 60000 : (int)ms);
        }
        if (stopping(d)) break;
        __atomic_store_n(&d->pending, 0, __ATOMIC_RELEASE);
        pthread_mutex_lock(&d->lock);
        bb__g_throttle_mark(&d->throttle, bb__g_monotonic_ns());
        dump_locked(d, NULL, 0, NULL);
        pthread_mutex_unlock(&d->lock);
    }
    return NULL;
}

int bb__g_dumper_start(bb__g_dumper *d) {
    if (!d) return EINVAL;
    if (d->running) return 0;
    sigset_t all, old;
    sigfillset(&all);
    /* synchronous faults cannot be blocked meaningfully; keep them deliverable */
    sigdelset(&all, SIGSEGV);
    sigdelset(&all, SIGBUS);
    sigdelset(&all, SIGILL);
    sigdelset(&all, SIGFPE);
    sigdelset(&all, SIGABRT);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    __atomic_store_n(&d->stop, 0, __ATOMIC_RELEASE);
    int e = pthread_create(&d->thread, NULL, dumper_main, d);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e) return e;
    d->running = true;
    pthread_mutex_lock(&d->lock);
    while (!d->ready) pthread_cond_wait(&d->ready_cond, &d->lock);
    pthread_mutex_unlock(&d->lock);
    return 0;
}

void bb__g_dumper_stop(bb__g_dumper *d) {
    if (!d || !d->running) return;
    __atomic_store_n(&d->stop, 1, __ATOMIC_RELEASE);
    ssize_t r;
    do {
        r = write(d->pipe_wr, "s", 1);
    } while (r < 0 && errno == EINTR);
    pthread_join(d->thread, NULL);
    d->running = false;
    d->ready = false;
}

void bb__g_dumper_finish(bb__g_dumper *d) {
    if (!d) return;
    bb__g_dumper_stop(d);
    if (!__atomic_exchange_n(&d->pending, 0, __ATOMIC_ACQ_REL)) return;
    pthread_mutex_lock(&d->lock);
    uint64_t now = bb__g_monotonic_ns();
    if (bb__g_throttle_wait(&d->throttle, now) == 0) {
        bb__g_throttle_mark(&d->throttle, now);
        dump_locked(d, NULL, 0, NULL);
    }
    pthread_mutex_unlock(&d->lock);
}

/* A crash interrupted a normal dump: remove its partial temporary file, which nothing would
 * ever publish (best effort; signal-safe). */
static void drop_live_tmp(bb__g_dumper *d) {
    if (__atomic_load_n(&d->tmp_live, __ATOMIC_ACQUIRE)) unlink(d->tmp);
}

static int crash_write_publish(bb__g_dumper *d, const char ts[20], unsigned *seq);

int bb__g_dumper_dump_signal(bb__g_dumper *d) {
    if (!d || !d->o.write_signal) return EINVAL;
    if (__atomic_exchange_n(&d->crash_busy, 1, __ATOMIC_ACQ_REL)) return EBUSY;
    drop_live_tmp(d);
    bool first_refusal;
    if (!bb__g_limits_admit(&d->limits, &first_refusal)) {
        bb__g_stderr_line("dump limit reached (keep-oldest): no crash dump written");
        return ENOSPC;
    }
    uint64_t now = bb__g_realtime_ns();
    char ts[20];
    bb__g_format_utc_ms(now, ts);
    unsigned seq = 0;
    if (!bb__g_dump_name(d->crash_name, d->name_cap, d->base, d->dot, ts, seq) ||
        !tmp_name(d->crash_tmp, d->name_cap, d->crash_name, "crash."))
        return ENAMETOOLONG;
    int lock_fd;
    if (bb__g_budget_enter(d->o.budget, d->o.need, &lock_fd) != 0) return ENOSPC;
    int e = crash_write_publish(d, ts, &seq);
    bb__g_budget_leave(lock_fd);
    if (e) return e;
    bb__g_limits_commit(&d->limits, d->crash_name);
    __atomic_add_fetch(&d->written, 1, __ATOMIC_RELAXED);
    char msg[PATH_MAX + 64];
    size_t len = bb__g_append_str(msg, sizeof msg, 0, "crash dump written to ");
    bb__g_append_str(msg, sizeof msg, len, d->crash_name);
    bb__g_stderr_line(msg);
    return 0;
}

/* The crash dump into d->crash_tmp, published (signal-safe). Returns 0 or an errno value. */
static int crash_write_publish(bb__g_dumper *d, const char ts[20], unsigned *seq) {
    int fd = open(d->crash_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        bb__g_stderr_line("cannot create the crash dump");
        return e;
    }
    int e = d->o.write_signal(d->o.ctx, fd);
    if (close(fd) != 0 && !e) e = EIO;
    if (e) {
        unlink(d->crash_tmp);
        bb__g_stderr_line("cannot write the crash dump");
        return e;
    }
    e = bb__g_publish(d->crash_tmp, d->crash_name, d->name_cap, d->base, d->dot, ts, seq);
    if (e) {
        bb__g_stderr_line("cannot publish the crash dump");
        return e;
    }
    return 0;
}

void bb__g_dumper_destroy(bb__g_dumper *d) {
    if (!d) return;
    bb__g_dumper_stop(d);
    close(d->pipe_rd);
    close(d->pipe_wr);
    pthread_mutex_destroy(&d->lock);
    pthread_cond_destroy(&d->ready_cond);
    bb__g_limits_free(&d->limits);
    free(d->base);
    free(d->name);
    free(d->tmp);
    free(d->crash_name);
    free(d->crash_tmp);
    free(d);
}

uint64_t bb__g_dumper_written(const bb__g_dumper *d) {
    return d ? __atomic_load_n(&d->written, __ATOMIC_RELAXED) : 0;
}

uint64_t bb__g_dumper_failed(const bb__g_dumper *d) {
    return d ? __atomic_load_n(&d->failed, __ATOMIC_RELAXED) : 0;
}

void bb__g_dumper_fork_prepare(bb__g_dumper *d) {
    if (d) pthread_mutex_lock(&d->lock);
}

void bb__g_dumper_fork_parent(bb__g_dumper *d) {
    if (d) pthread_mutex_unlock(&d->lock);
}

void bb__g_dumper_abandon(bb__g_dumper *d) {
    if (!d) return;
    close(d->pipe_rd);
    close(d->pipe_wr);
    d->pipe_rd = d->pipe_wr = -1;
}
