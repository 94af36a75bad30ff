/* dumper_test.c — the dumper over a fake dump callback: a trigger storm writes at most one dump
 * per throttle window, triggers from a signal handler work, dump_now names and limits, a
 * failing directory is reported once, and the signal-safe path publishes a file. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>

#include "global/global_internal.h"
#include "gtest_util.h"

static int calls; /* atomic */

static bb_status fake_write(void *ctx, int fd, bb_error *err) {
    (void)ctx;
    (void)err;
    __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
    return write(fd, "DUMP", 4) == 4 ? BB_OK : BB_ERR_IO;
}

/* A normal dump during which the process crashes: the crash path runs from inside it. */
static bb__g_dumper *g_crash_dumper;
static int g_crash_rc = -1;
static bb_status crashing_write(void *ctx, int fd, bb_error *err) {
    (void)ctx;
    (void)err;
    if (write(fd, "PART", 4) != 4) return BB_ERR_IO;
    g_crash_rc = bb__g_dumper_dump_signal(g_crash_dumper);
    return BB_OK;
}

static int fake_write_signal(void *ctx, int fd) {
    (void)ctx;
    return write(fd, "CRASH", 5) == 5 ? 0 : EIO;
}

typedef struct warns {
    char msg[8][1024];
    int n;
} warns;

static void warn_cb(const char *m, void *ctx) {
    warns *w = ctx;
    if (w->n < 8) snprintf(w->msg[w->n], sizeof w->msg[0], "%s", m);
    w->n++;
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* Wait (generously) until the dumper wrote at least n dumps. */
static bool wait_written(bb__g_dumper *d, uint64_t n) {
    for (int i = 0; i < 2000 && bb__g_dumper_written(d) < n; i++) sleep_ms(10);
    return bb__g_dumper_written(d) >= n;
}

static bb__g_dumper *g_sig_dumper;
static void on_usr1(int sig) {
    (void)sig;
    bb__g_dumper_trigger(g_sig_dumper);
}

int main(void) {
    char dir[4096], base[4096];
    warns w;
    bb__g_dumper_opts o = {
        .write = fake_write, .write_signal = fake_write_signal, .warn = warn_cb, .warn_ctx = &w};

    /* 1. storm with a window far longer than the test: exactly one dump */
    memset(&w, 0, sizeof w);
    gt_tmpdir(dir, sizeof dir, "storm");
    snprintf(base, sizeof base, "%s/s.bb", dir);
    o.base = base;
    o.throttle_ms = 600000;
    o.max_dumps = 0;
    bb__g_dumper *d = bb__g_dumper_create(&o);
    CHECK(d != NULL);
    CHECK(bb__g_dumper_start(d) == 0);
    for (int i = 0; i < 5000; i++) bb__g_dumper_trigger(d);
    CHECK(wait_written(d, 1));
    for (int i = 0; i < 5000; i++) bb__g_dumper_trigger(d);
    sleep_ms(200); /* give a wrong implementation the chance to write more */
    bb__g_dumper_destroy(d);
    CHECK(gt_list(dir, "s.", ".bb", NULL, 0) == 1);
    CHECK(gt_list(dir, "", "tmp", NULL, 0) == 0);
    CHECK(w.n == 0);
    gt_rmdir(dir);

    /* 2. storm over many short windows: dumps <= elapsed/window + 2, and more than one */
    gt_tmpdir(dir, sizeof dir, "storm2");
    snprintf(base, sizeof base, "%s/s.bb", dir);
    o.throttle_ms = 50;
    d = bb__g_dumper_create(&o);
    CHECK(bb__g_dumper_start(d) == 0);
    uint64_t t0 = bb__g_monotonic_ns();
    for (int i = 0; i < 3000; i++) {
        bb__g_dumper_trigger(d);
        if (i % 100 == 0) sleep_ms(10);
    }
    /* wait until the window after the last trigger surely passed, then stop */
    CHECK(wait_written(d, 2));
    sleep_ms(300);
    bb__g_dumper_destroy(d);
    uint64_t elapsed_ms = (bb__g_monotonic_ns() - t0) / 1000000ull;
    int files = gt_list(dir, "s.", ".bb", NULL, 0);
    CHECK(files >= 2);
    CHECK((uint64_t)files <= elapsed_ms / 50 + 2);
    CHECK(files == __atomic_load_n(&calls, __ATOMIC_RELAXED) - 1); /* case 1 made one call */
    gt_rmdir(dir);

    /* 2b. a trigger inside the window is deferred, not dropped: it yields exactly one more dump */
    gt_tmpdir(dir, sizeof dir, "defer");
    snprintf(base, sizeof base, "%s/w.bb", dir);
    o.throttle_ms = 300;
    d = bb__g_dumper_create(&o);
    CHECK(bb__g_dumper_start(d) == 0);
    bb__g_dumper_trigger(d);
    CHECK(wait_written(d, 1));
    uint64_t l0 = bb__g_monotonic_ns();
    for (int i = 0; i < 1000; i++) bb__g_dumper_trigger(d); /* inside the window */
    uint64_t loop_ms = (bb__g_monotonic_ns() - l0) / 1000000ull;
    CHECK(wait_written(d, 2));
    sleep_ms(700); /* more than a window: nothing else may come */
    /* (a loop preempted for longer than the window may legitimately straddle two windows) */
    uint64_t expect_max = loop_ms < 100 ? 2 : 3, got = bb__g_dumper_written(d);
    CHECK(got >= 2 && got <= expect_max);
    bb__g_dumper_destroy(d);
    CHECK(gt_list(dir, "w.", ".bb", NULL, 0) == (int)got);
    gt_rmdir(dir);

    /* 3. trigger from a signal handler */
    gt_tmpdir(dir, sizeof dir, "sig");
    snprintf(base, sizeof base, "%s/g.bb", dir);
    o.throttle_ms = 0;
    d = bb__g_dumper_create(&o);
    CHECK(bb__g_dumper_start(d) == 0);
    g_sig_dumper = d;
    signal(SIGUSR1, on_usr1);
    raise(SIGUSR1);
    CHECK(wait_written(d, 1));
    signal(SIGUSR1, SIG_DFL);
    bb__g_dumper_destroy(d);
    CHECK(gt_list(dir, "g.", ".bb", NULL, 0) == 1);
    gt_rmdir(dir);

    /* 4. dump_now without throttle: unique names; same-millisecond dumps get -N */
    gt_tmpdir(dir, sizeof dir, "now");
    snprintf(base, sizeof base, "%s/n.bb", dir);
    d = bb__g_dumper_create(&o);
    char names[20][4096];
    for (int i = 0; i < 20; i++) CHECK(bb__g_dumper_dump_now(d, names[i], 4096, NULL) == BB_OK);
    CHECK(gt_list(dir, "n.", ".bb", NULL, 0) == 20);
    for (int i = 1; i < 20; i++) {
        /* same stamp as the previous one => it must carry a suffix */
        size_t pl = strlen(dir) + strlen("/n.") + 19;
        if (strncmp(names[i], names[i - 1], pl) == 0) CHECK(names[i][pl] == '-');
        CHECK(strcmp(names[i], names[i - 1]) != 0);
    }
    bb__g_dumper_destroy(d);
    gt_rmdir(dir);

    /* 5. keep-oldest: 3 of 5 kept (the first three), one warning */
    memset(&w, 0, sizeof w);
    gt_tmpdir(dir, sizeof dir, "oldest");
    snprintf(base, sizeof base, "%s/k.bb", dir);
    o.max_dumps = 3;
    o.limit_policy = BB__G_KEEP_OLDEST;
    d = bb__g_dumper_create(&o);
    int ok = 0, full = 0;
    char kept[5][4096];
    for (int i = 0; i < 5; i++) {
        bb_status st = bb__g_dumper_dump_now(d, kept[i], 4096, NULL);
        ok += st == BB_OK;
        full += st == BB_ERR_FULL;
    }
    CHECK(ok == 3 && full == 2);
    CHECK(w.n == 1 && strstr(w.msg[0], "keep-oldest") != NULL);
    for (int i = 0; i < 3; i++) CHECK(access(kept[i], F_OK) == 0);
    CHECK(gt_list(dir, "k.", ".bb", NULL, 0) == 3);
    CHECK(bb__g_dumper_dump_signal(d) == ENOSPC); /* crash path obeys the cap too */
    bb__g_dumper_destroy(d);
    gt_rmdir(dir);

    /* 6. keep-newest: the last 3 of 5 kept */
    memset(&w, 0, sizeof w);
    gt_tmpdir(dir, sizeof dir, "newest");
    snprintf(base, sizeof base, "%s/k.bb", dir);
    o.limit_policy = BB__G_KEEP_NEWEST;
    d = bb__g_dumper_create(&o);
    for (int i = 0; i < 5; i++) CHECK(bb__g_dumper_dump_now(d, kept[i], 4096, NULL) == BB_OK);
    CHECK(access(kept[0], F_OK) != 0 && access(kept[1], F_OK) != 0);
    for (int i = 2; i < 5; i++) CHECK(access(kept[i], F_OK) == 0);
    CHECK(gt_list(dir, "k.", ".bb", NULL, 0) == 3);
    /* 7. the signal-safe path publishes a file and evicts like the others */
    CHECK(bb__g_dumper_dump_signal(d) == 0);
    CHECK(access(kept[2], F_OK) != 0);
    CHECK(gt_list(dir, "k.", ".bb", NULL, 0) == 3);
    CHECK(w.n == 0);
    bb__g_dumper_destroy(d);
    gt_rmdir(dir);

    /* 7b. a crash during a normal dump: the crash dump is published and the normal dump's
     * partial temporary file is removed (it would otherwise stay as a 0-byte .<pid>.tmp) */
    memset(&w, 0, sizeof w);
    gt_tmpdir(dir, sizeof dir, "crashmid");
    snprintf(base, sizeof base, "%s/c.bb", dir);
    o.max_dumps = 0;
    o.write = crashing_write;
    d = bb__g_dumper_create(&o);
    g_crash_dumper = d;
    CHECK(bb__g_dumper_dump_now(d, NULL, 0, NULL) != BB_OK); /* its file was taken away */
    CHECK(g_crash_rc == 0);
    CHECK(gt_list(dir, "", "tmp", NULL, 0) == 0);
    CHECK(gt_list(dir, "c.", ".bb", NULL, 0) == 1);
    bb__g_dumper_destroy(d);
    gt_rmdir(dir);
    o.write = fake_write;

    /* 8. unwritable directory: failures reported once, the caller goes on */
    memset(&w, 0, sizeof w);
    o.base = "/nonexistent-backbeat-dir/x.bb";
    o.max_dumps = 0;
    d = bb__g_dumper_create(&o);
    CHECK(bb__g_dumper_start(d) == 0);
    bb_error err;
    CHECK(bb__g_dumper_dump_now(d, NULL, 0, &err) == BB_ERR_IO);
    CHECK(strstr(err.message, "nonexistent-backbeat-dir") != NULL);
    CHECK(bb__g_dumper_dump_now(d, NULL, 0, NULL) == BB_ERR_IO);
    bb__g_dumper_trigger(d);
    for (int i = 0; i < 2000 && bb__g_dumper_failed(d) < 3; i++) sleep_ms(10);
    CHECK(bb__g_dumper_failed(d) == 3);
    bb__g_dumper_destroy(d);
    CHECK(w.n == 1);
    CHECK(strstr(w.msg[0], "nonexistent-backbeat-dir") != NULL);
    return gt_done();
}
