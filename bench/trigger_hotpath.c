/* trigger_hotpath.c — the costs of condition triggers (issue 39), side by side in one run:
 * the writer thread's CPU time per record (medians of interleaved rounds) of a plain event on a
 * recorder with no rule, of the same event on a recorder whose rules name another event, and
 * of an event a field rule names (evaluated, never true); the firing latency in process (the
 * record's commit to the callback, after-window 0); how late a hung span is caught past its
 * DURATION; and the process's extra CPU while rules are armed and nothing fires at 1 M
 * records/s (the trigger thread's polling of open spans included); with the CLI given, the
 * firing latency of `backbeat watch` (the record's commit to its line, printed once the dump
 * is written) on a ring file.
 * Usage: trigger_hotpath [records_per_round] [rounds] [BACKBEAT_CLI DIR]. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include <backbeat/backbeat.h>
#include <backbeat/trigger.h>

BB_EVENT(tb_plain, "bench::trig", "Plain", NULL, BB_KEY(uint64_t, conn, NULL),
         BB_FIELD(uint32_t, len, NULL), BB_FIELD(uint8_t[4], pad, NULL));
BB_EVENT(tb_named, "bench::trig", "Named", NULL, BB_KEY(uint64_t, conn, NULL),
         BB_FIELD(uint32_t, len, NULL), BB_FIELD(uint8_t[4], pad, NULL));
BB_EVENT(tb_fire, "bench::trig", "Fire", NULL, BB_FIELD(uint64_t, n, NULL));
BB_SPAN_ENTER_EVENT(tb_begin, "bench::req", "Begin", NULL, BB_SPAN_ID(uint64_t, span, NULL));
BB_SPAN_EXIT_EVENT(tb_end, "bench::req", "End", NULL, BB_SPAN_ID(uint64_t, span, NULL));

static double now_ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static bb_recorder *make(void) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 2;
    bb_recorder *r = NULL;
    if (bb_recorder_create(&o, &r) != BB_OK) exit(1);
    bb_recorder_enable(r, true);
    return r;
}

__attribute__((noinline)) static double run_plain(bb_recorder *r, uint64_t n) {
    double t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    for (uint64_t i = 0; i < n; i++) BB_RECORD(r, tb_plain, .conn = i, .len = (uint32_t)i);
    return (now_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / (double)n;
}

__attribute__((noinline)) static double run_named(bb_recorder *r, uint64_t n) {
    double t0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    for (uint64_t i = 0; i < n; i++) BB_RECORD(r, tb_named, .conn = i, .len = (uint32_t)i);
    return (now_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / (double)n;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double pct(double *v, int n, double p) {
    qsort(v, (size_t)n, sizeof *v, cmp);
    int k = (int)(p * (n - 1) + 0.5);
    return v[k];
}

static double g_fired_at;
static int g_fired;
static void on_fire(bb_recorder *rec, const bb_trigger_firing *f, void *ctx) {
    (void)rec, (void)f, (void)ctx;
    g_fired_at = now_ns(CLOCK_MONOTONIC);
    __atomic_store_n(&g_fired, 1, __ATOMIC_RELEASE);
}

static void sleep_ms(int ms) {
    struct timespec d = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&d, NULL);
}

static void arm(bb_recorder *r, const char *rules) {
    bb_trigger_options t = {.fn = on_fire, .throttle_ns = 1};
    bb_error err;
    if (bb_recorder_trigger_options(r, &t, &err) != BB_OK ||
        bb_recorder_trigger_add(r, rules, &err) != BB_OK) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
}

static void hot_path(uint64_t n, int rounds) {
    bb_recorder *none = make(), *other = make(), *named = make();
    arm(other, "bench::trig::Fire n == 12345678");
    arm(named, "bench::trig::Named len == 4294967295; bench::trig::Fire n == 12345678");
    double a[64], b[64], c[64], rb[64], rc[64];
    for (int k = 0; k < rounds; k++) { /* interleaved */
        a[k] = run_plain(none, n);
        b[k] = run_plain(other, n);
        c[k] = run_named(named, n);
        rb[k] = b[k] / a[k];
        rc[k] = c[k] / a[k];
    }
    printf("  hot path, writer CPU per record (median of %d interleaved rounds of %llu):\n", rounds,
           (unsigned long long)n);
    printf("    no rule                              %6.2f ns\n", pct(a, rounds, 0.5));
    printf("    rules armed, event no rule names     %6.2f ns  ratio %.3fx\n", pct(b, rounds, 0.5),
           pct(rb, rounds, 0.5));
    printf("    event a field rule names (not true)  %6.2f ns  ratio %.3fx\n", pct(c, rounds, 0.5),
           pct(rc, rounds, 0.5));
    bb_recorder_free(none);
    bb_recorder_free(other);
    bb_recorder_free(named);
}

static void latency(void) {
    bb_recorder *r = make();
    arm(r, "bench::trig::Fire n == 7; span bench::req::Begin > 20ms");
    enum { N = 200, H = 20 };
    double lat[N], hung[H];
    for (int k = 0; k < N; k++) {
        __atomic_store_n(&g_fired, 0, __ATOMIC_RELEASE);
        double t0 = now_ns(CLOCK_MONOTONIC);
        BB_RECORD(r, tb_fire, .n = 7);
        while (!__atomic_load_n(&g_fired, __ATOMIC_ACQUIRE)) {}
        lat[k] = g_fired_at - t0;
        sleep_ms(2);
    }
    for (int k = 0; k < H; k++) {
        __atomic_store_n(&g_fired, 0, __ATOMIC_RELEASE);
        double t0 = now_ns(CLOCK_MONOTONIC);
        uint64_t sid = BB_SPAN_ENTER(r, tb_begin, 0);
        while (!__atomic_load_n(&g_fired, __ATOMIC_ACQUIRE)) sleep_ms(0);
        hung[k] = g_fired_at - t0 - 20e6;
        BB_SPAN_EXIT(r, tb_end, sid);
        sleep_ms(2);
    }
    printf("  firing latency in process, record -> callback (dump begins), after 0, %d firings:\n"
           "    median %.3f ms  p99 %.3f ms\n",
           N, pct(lat, N, 0.5) / 1e6, pct(lat, N, 0.99) / 1e6);
    printf("  hung span (rule > 20ms) caught past its DURATION, %d spans:\n"
           "    median %.3f ms  p99 %.3f ms (max %.3f)\n",
           H, pct(hung, H, 0.5) / 1e6, pct(hung, H, 0.99) / 1e6, pct(hung, H, 1.0) / 1e6);
    bb_recorder_free(r);
}

/* The process's CPU beyond the writer thread's over `secs` at 1 M records/s. */
static double idle_cpu(bb_recorder *r, int secs) {
    struct rusage u0, u1;
    getrusage(RUSAGE_SELF, &u0);
    double w0 = now_ns(CLOCK_THREAD_CPUTIME_ID), t0 = now_ns(CLOCK_MONOTONIC);
    uint64_t i = 0;
    for (int ms = 0; ms < secs * 1000; ms++) {
        for (int k = 0; k < 500; k++, i++) {
            uint64_t sid = BB_SPAN_ENTER(r, tb_begin, 0);
            BB_SPAN_EXIT(r, tb_end, sid);
        }
        double until = t0 + (ms + 1) * 1e6;
        while (now_ns(CLOCK_MONOTONIC) < until) sleep_ms(0);
    }
    double wall = now_ns(CLOCK_MONOTONIC) - t0, writer = now_ns(CLOCK_THREAD_CPUTIME_ID) - w0;
    getrusage(RUSAGE_SELF, &u1);
    double all = ((double)(u1.ru_utime.tv_sec - u0.ru_utime.tv_sec) +
                  (double)(u1.ru_stime.tv_sec - u0.ru_stime.tv_sec)) *
                     1e9 +
                 ((double)(u1.ru_utime.tv_usec - u0.ru_utime.tv_usec) +
                  (double)(u1.ru_stime.tv_usec - u0.ru_stime.tv_usec)) *
                     1e3;
    return (all - writer) / wall * 100;
}

/* `backbeat watch` on a ring file of this process: record -> its line (the dump written). */
static void watch_latency(const char *cli, const char *dir) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 2;
    o.bytes_per_shard = 65536;
    bb_recorder *r = NULL;
    bb_error err;
    if (bb_recorder_create_ring(&o, dir, false, &r, &err) != BB_OK) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    bb_recorder_enable(r, true);
    enum { N = 20 }; /* watch spaces dumps of one process by 1 s */
    int p[2];
    if (pipe(p) != 0) return;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        close(p[0]);
        char max[16];
        snprintf(max, sizeof max, "%d", N);
        execl(cli, cli, "watch", "--when", "bench::trig::Fire n == 7", "--max", max, "-o", dir,
              bb_recorder_ring_path(r), (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    FILE *in = fdopen(p[0], "r");
    sleep_ms(500); /* watch is following */
    double lat[N];
    char line[4096];
    int n = 0;
    for (; n < N; n++) {
        double t0 = now_ns(CLOCK_MONOTONIC);
        BB_RECORD(r, tb_fire, .n = 7);
        if (!fgets(line, sizeof line, in)) break;
        lat[n] = now_ns(CLOCK_MONOTONIC) - t0;
        char *tab = strrchr(line, '\t');
        if (tab) {
            tab[strcspn(tab, "\n")] = '\0';
            unlink(tab + 1);
        }
        sleep_ms(1020);
    }
    fclose(in);
    waitpid(pid, NULL, 0);
    if (n)
        printf("  firing latency of backbeat watch, record -> its line (dump written), after 0, "
               "%d firings:\n    median %.3f ms  p99 %.3f ms\n",
               n, pct(lat, n, 0.5) / 1e6, pct(lat, n, 0.99) / 1e6);
    bb_recorder_free(r);
}

int main(int argc, char **argv) {
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 9;
    if (rounds > 64) rounds = 64;
    printf("== trigger: costs of condition triggers (bench/trigger_hotpath.c)\n");
    hot_path(n, rounds);
    latency();
    bb_recorder *plain = make(), *armed = make();
    arm(armed, "span bench::req::Begin > 50ms; bench::trig::Fire n == 12345678");
    double base = idle_cpu(plain, 2), with = idle_cpu(armed, 2);
    printf("  extra CPU at 1 M records/s (span enter+exit pairs), beyond the writer thread:\n"
           "    no rule %.2f%% of a core, rules armed (nothing fires) %.2f%% of a core\n",
           base, with);
    if (argc > 4) watch_latency(argv[3], argv[4]);
    return 0;
}
