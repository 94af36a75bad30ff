/* lttng_side.c — backbeat and LTTng-UST side by side, in one process, in the same rounds
 * (issue 13; run by bench/lttng.sh, section `lttng` of scripts/bench.sh).
 *
 * Pinned to one CPU, ROUNDS rounds (at least 11); each round runs every variant once over N
 * events, in an order rotated from round to round, timed in thread CPU time:
 *   - bare loop; the ideal paths written here: raw rdtsc (or the vDSO clock_gettime), the
 *     reservation (one relaxed `lock xadd`, or a plain add) and the memcpy of the 34-byte frame,
 *     nothing else;
 *   - BB_RECORD of a 3-field event (u64, u32, u8) with each clock (tsc, monotonic) and each
 *     commit path (rseq, fetch_add), and disabled;
 *   - an LTTng-UST tracepoint with the same three fields, enabled in the snapshot session the
 *     script created, and one that no session enables (built without lttng-ust: omitted).
 * Prints ns/event medians with min and max, and ratios taken within each round (medians).
 * Then dumps the default recorder to DUMP and prints the newest conn_id both recorded, which
 * the script finds again in the dump (backbeat) and in the snapshot (babeltrace2).
 *
 * Usage: lttng_side DUMP [events_per_round [rounds]] */
/* SPDX-License-Identifier: MIT */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <backbeat/backbeat.h>

#ifdef BB_HAVE_LTTNG
#include "lttng_tp.h"
#endif

BB_ENUM(side_role, uint8_t, (SIDE_CLIENT, 0, "client"), (SIDE_SERVER, 1, "server"));
BB_EVENT(side_ev, "bench::net", "PacketSent", "A packet was sent.",
         BB_KEY(uint64_t, conn_id, "The connection."),
         BB_FIELD(uint32_t, len, "Size.", BB_UNIT("bytes")),
         BB_ENUM_F(side_role, role, "Which side sent it."),
         BB_FIELD(uint8_t[3], pad, "Explicit padding (event.h rejects implicit padding)."));

#define RING (1u << 20)

enum {
    V_BARE,
    V_IDEAL_TSC,
    V_IDEAL_TSC_PLAIN,
    V_IDEAL_MONO,
    V_TSC_RSEQ,
    V_TSC_FA,
    V_MONO_RSEQ,
    V_MONO_FA,
    V_DISABLED,
    V_LTTNG,
    V_LTTNG_OFF,
    V_COUNT
};
static const char *const vname[V_COUNT] = {"bare loop",
                                           "ideal: rdtsc + lock xadd + memcpy",
                                           "ideal: rdtsc + plain add + memcpy",
                                           "ideal: monotonic + lock xadd + memcpy",
                                           "BB_RECORD tsc, rseq",
                                           "BB_RECORD tsc, fetch_add",
                                           "BB_RECORD monotonic, rseq",
                                           "BB_RECORD monotonic, fetch_add",
                                           "BB_RECORD disabled",
                                           "LTTng-UST tracepoint (snapshot session)",
                                           "LTTng-UST tracepoint, not enabled"};

static bb_recorder *recs[V_COUNT];
static struct {
    _Alignas(128) uint64_t head;
    uint8_t pad[120];
} cursor;
static uint8_t *ideal_ring;
static uint64_t event_id;

__attribute__((noinline)) static void run_bare(uint64_t n, uint64_t base) {
    for (uint64_t i = 0; i < n; i++) __asm__ volatile("" ::"r"(base + i) : "memory");
}

static inline uint64_t raw_tsc(void) {
#if defined(__x86_64__)
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#else
    return 0;
#endif
}

static inline uint64_t mono(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

#define IDEAL_BODY(CLOCK, RESERVE)                                                          \
    for (uint64_t i = 0; i < n; i++) {                                                      \
        uint64_t ts = (CLOCK);                                                              \
        side_ev ev = {.conn_id = base + i, .len = (uint32_t)i, .role = (side_role)(i & 1)}; \
        uint64_t pos = (RESERVE);                                                           \
        uint8_t *dst = ideal_ring + (pos & (RING - 1));                                     \
        uint16_t len = 32;                                                                  \
        memcpy(dst, &ts, 8);                                                                \
        memcpy(dst + 8, &event_id, 8);                                                      \
        memcpy(dst + 16, &ev, 16);                                                          \
        memcpy(dst + 32, &len, 2);                                                          \
        __asm__ volatile("" ::: "memory");                                                  \
    }
/* The ideal ring has 64 spare bytes past RING: no wrap handling. */
__attribute__((noinline)) static void run_ideal_tsc(uint64_t n, uint64_t base) {
    IDEAL_BODY(raw_tsc(), __atomic_fetch_add(&cursor.head, 34, __ATOMIC_RELAXED))
}
__attribute__((noinline)) static void run_ideal_tsc_plain(uint64_t n, uint64_t base) {
    IDEAL_BODY(raw_tsc(), (cursor.head += 34) - 34)
}
__attribute__((noinline)) static void run_ideal_mono(uint64_t n, uint64_t base) {
    IDEAL_BODY(mono(), __atomic_fetch_add(&cursor.head, 34, __ATOMIC_RELAXED))
}

__attribute__((noinline)) static void run_record(bb_recorder *rec, uint64_t n, uint64_t base) {
    for (uint64_t i = 0; i < n; i++)
        BB_RECORD(rec, side_ev, .conn_id = base + i, .len = (uint32_t)i,
                  .role = (side_role)(i & 1));
}

#ifdef BB_HAVE_LTTNG
__attribute__((noinline)) static void run_lttng(uint64_t n, uint64_t base) {
    for (uint64_t i = 0; i < n; i++)
        lttng_ust_tracepoint(bbbench, packet_sent, base + i, (uint32_t)i, (uint8_t)(i & 1));
}
__attribute__((noinline)) static void run_lttng_off(uint64_t n, uint64_t base) {
    for (uint64_t i = 0; i < n; i++)
        lttng_ust_tracepoint(bbbench, packet_off, base + i, (uint32_t)i, (uint8_t)(i & 1));
}
#endif

static bool available(int v) {
#ifndef BB_HAVE_LTTNG
    if (v == V_LTTNG || v == V_LTTNG_OFF) return false;
#endif
#if !defined(__x86_64__)
    if (v == V_IDEAL_TSC || v == V_IDEAL_TSC_PLAIN) return false;
#endif
    if (v >= V_TSC_RSEQ && v <= V_DISABLED) return recs[v] != NULL;
    return true;
}

static void run(int v, uint64_t n, uint64_t base) {
    switch (v) {
    case V_BARE: run_bare(n, base); break;
    case V_IDEAL_TSC: run_ideal_tsc(n, base); break;
    case V_IDEAL_TSC_PLAIN: run_ideal_tsc_plain(n, base); break;
    case V_IDEAL_MONO: run_ideal_mono(n, base); break;
#ifdef BB_HAVE_LTTNG
    case V_LTTNG: run_lttng(n, base); break;
    case V_LTTNG_OFF: run_lttng_off(n, base); break;
#endif
    default: run_record(recs[v], n, base); break;
    }
}

static double thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median, min and max of v[0..n) (sorts v). */
static void stats(double *v, int n, double *med, double *lo, double *hi) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    *med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    *lo = v[0];
    *hi = v[n - 1];
}

/* Bimodal rounds: how many rounds of `a` (tsc rseq) and of `b` (its ideal) are slow (over 1.08x
 * their own median), and how many of those are the same rounds: slow rounds shared with the
 * ideal come from the host (a neighbour, an interrupt), not from the recording path. */
static void slow_rounds(const double *a, const double *b, int n, char *out, size_t cap) {
    double sa[101], sb[101], ma, mb, lo, hi;
    memcpy(sa, a, sizeof *a * (size_t)n);
    memcpy(sb, b, sizeof *b * (size_t)n);
    stats(sa, n, &ma, &lo, &hi);
    stats(sb, n, &mb, &lo, &hi);
    int ka = 0, kb = 0, both = 0;
    for (int r = 0; r < n; r++) {
        bool xa = a[r] > 1.08 * ma, xb = b[r] > 1.08 * mb;
        ka += xa;
        kb += xb;
        both += xa && xb;
    }
    snprintf(out, cap,
             "slow rounds (> 1.08x own median) of %d: tsc rseq %d, its ideal %d, "
             "both in the same round %d",
             n, ka, kb, both);
}

/* A recorder of `clock` on `commit` ("rseq" or "fetch_add"); NULL when this host cannot give
 * that pair (the path is chosen at creation: BACKBEAT_COMMIT is set around it). */
static bb_recorder *make(bb_clock_kind clock, const char *commit, bool on) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.bytes_per_shard = RING;
    o.shards = 64; /* a shard per possible CPU on most hosts: rseq allowed */
    o.clock = clock;
    setenv("BACKBEAT_COMMIT", commit, 1);
    bb_recorder *rec = NULL;
    bb_status st = bb_recorder_create(&o, &rec);
    unsetenv("BACKBEAT_COMMIT");
    if (st != BB_OK) return NULL;
    if (strcmp(bb_recorder_commit_name(rec), commit) != 0) {
        bb_recorder_free(rec);
        return NULL;
    }
    bb_recorder_enable(rec, on);
    return rec;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: lttng_side DUMP [events_per_round [rounds]]\n");
        return 2;
    }
    uint64_t n = argc > 2 ? strtoull(argv[2], NULL, 10) : 200000;
    int rounds = argc > 3 ? atoi(argv[3]) : 15;
    if (rounds < 11) rounds = 11;
    if (rounds > 101) rounds = 101;
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);
    int cpu = 0;
    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &set)) cpu++;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);

    ideal_ring = calloc(1, RING + 64);
    event_id = bb_event_id(BB_DESC(side_ev));
    recs[V_TSC_RSEQ] = make(BB_CLOCK_TSC, "rseq", true);
    recs[V_TSC_FA] = make(BB_CLOCK_TSC, "fetch_add", true);
    recs[V_MONO_RSEQ] = make(BB_CLOCK_MONOTONIC, "rseq", true);
    recs[V_MONO_FA] = make(BB_CLOCK_MONOTONIC, "fetch_add", true);
    recs[V_DISABLED] = make(BB_CLOCK_MONOTONIC, "fetch_add", false);
    bb_recorder *def = bb_recorder_new(64, RING);
    int vdef = strcmp(bb_recorder_clock_name(def), "tsc") == 0
                   ? (strcmp(bb_recorder_commit_name(def), "rseq") == 0 ? V_TSC_RSEQ : V_TSC_FA)
                   : (strcmp(bb_recorder_commit_name(def), "rseq") == 0 ? V_MONO_RSEQ : V_MONO_FA);
    bool tsc = vdef == V_TSC_RSEQ || vdef == V_TSC_FA;
    int vfall = tsc ? V_TSC_FA : V_MONO_FA, videal = tsc ? V_IDEAL_TSC : V_IDEAL_MONO;

    static double ns[V_COUNT][101];
    static double q_def[101], q_fall[101], q_plain[101], q_lttng[101], q_lttng_mono[101],
        d_dis[101], d_lttng_off[101], q_mono_rseq[101], q_mono_fa[101], q_tsc_rseq[101],
        q_lttng_tsc[101], q_lttng_ideal[101];
    for (int v = 0; v < V_COUNT; v++) /* warm up: fault rings in, register */
        if (available(v)) run(v, n / 4, 0);
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < V_COUNT; k++) {
            int v = (k + r) % V_COUNT;
            if (!available(v)) continue;
            double t0 = thread_cpu_ns();
            run(v, n, (uint64_t)r * n);
            ns[v][r] = (thread_cpu_ns() - t0) / (double)n;
        }
        q_def[r] = ns[vdef][r] / ns[videal][r];
        q_fall[r] = ns[vfall][r] / ns[videal][r];
        q_plain[r] = ns[V_IDEAL_TSC_PLAIN][r] / ns[V_IDEAL_TSC][r];
        q_mono_rseq[r] = ns[V_MONO_RSEQ][r] / ns[V_IDEAL_MONO][r];
        q_mono_fa[r] = ns[V_MONO_FA][r] / ns[V_IDEAL_MONO][r];
        q_lttng[r] = ns[V_LTTNG][r] / ns[vdef][r];
        q_lttng_mono[r] = ns[V_LTTNG][r] / ns[V_MONO_RSEQ][r];
        q_tsc_rseq[r] = ns[V_TSC_RSEQ][r] / ns[V_IDEAL_TSC][r];
        q_lttng_tsc[r] = ns[V_LTTNG][r] / ns[V_TSC_RSEQ][r];
        q_lttng_ideal[r] = ns[V_LTTNG][r] / ns[V_IDEAL_TSC][r];
        d_dis[r] = ns[V_DISABLED][r] - ns[V_BARE][r];
        d_lttng_off[r] = ns[V_LTTNG_OFF][r] - ns[V_BARE][r];
    }
    char slow[160];
    slow_rounds(ns[V_TSC_RSEQ], ns[V_IDEAL_TSC], rounds, slow, sizeof slow);
    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
    printf("== backbeat vs LTTng-UST (%s), pinned to CPU %d, %d rounds x %llu events, "
           "thread CPU time\n",
           when, cpu, rounds, (unsigned long long)n);
    printf("   default recorder: clock %s, commit %s, cpu hint %s\n", bb_recorder_clock_name(def),
           bb_recorder_commit_name(def), bb_recorder_cpu_hint_name(def));
    printf("   %-42s %9s %9s %9s\n", "ns/event", "median", "min", "max");
    for (int v = 0; v < V_COUNT; v++) {
        if (!available(v)) {
            printf("   %-42s %9s\n", vname[v], "n/a");
            continue;
        }
        double m, lo, hi;
        stats(ns[v], rounds, &m, &lo, &hi);
        printf("   %-42s %9.2f %9.2f %9.2f\n", vname[v], m, lo, hi);
    }
    printf("   ratios within a round (median [min, max]):\n");
    const struct {
        const char *label;
        double *q;
        bool ok;
        const char *unit;
    } rows[] = {
        {"default path / its lock-prefixed ideal (goal <= 1.05)", q_def, true, "x"},
        {"fetch_add path / its lock-prefixed ideal", q_fall, true, "x"},
        {"tsc rseq / tsc lock-prefixed ideal", q_tsc_rseq,
         available(V_TSC_RSEQ) && available(V_IDEAL_TSC), "x"},
        {"plain-add ideal / lock-prefixed ideal", q_plain, available(V_IDEAL_TSC_PLAIN), "x"},
        {"monotonic rseq / monotonic lock-prefixed ideal", q_mono_rseq, available(V_MONO_RSEQ),
         "x"},
        {"monotonic fetch_add / monotonic lock-prefixed ideal", q_mono_fa, true, "x"},
        {"LTTng / default path (goal >= 10)", q_lttng, available(V_LTTNG), "x"},
        {"LTTng / tsc rseq path", q_lttng_tsc, available(V_LTTNG) && available(V_TSC_RSEQ), "x"},
        {"LTTng / tsc lock-prefixed ideal (what any path can reach)", q_lttng_ideal,
         available(V_LTTNG) && available(V_IDEAL_TSC), "x"},
        {"LTTng / monotonic rseq path", q_lttng_mono, available(V_LTTNG) && available(V_MONO_RSEQ),
         "x"},
        {"disabled - bare loop (goal <= 0.3)", d_dis, available(V_DISABLED), " ns"},
        {"LTTng not enabled - bare loop", d_lttng_off, available(V_LTTNG_OFF), " ns"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (!rows[i].ok) continue;
        double m, lo, hi;
        stats(rows[i].q, rounds, &m, &lo, &hi);
        printf("   %-58s %6.2f%s [%.2f, %.2f]\n", rows[i].label, m, rows[i].unit, lo, hi);
    }
    if (available(V_TSC_RSEQ)) printf("   %s\n", slow);
    /* The newest conn_id both recorded, for the script's read-back checks. */
    bb_recorder_enable(def, true);
    run_record(def, 1000, (uint64_t)rounds * n);
    uint64_t last = (uint64_t)rounds * n + 999;
#ifdef BB_HAVE_LTTNG
    run_lttng(1000, (uint64_t)rounds * n);
#endif
    bb_error err;
    memset(&err, 0, sizeof err);
    if (bb_recorder_dump_path(def, argv[1], NULL, &err) != BB_OK) {
        fprintf(stderr, "lttng_side: dump to %s failed: %s\n", argv[1], err.message);
        return 1;
    }
    printf("newest conn_id %llu\n", (unsigned long long)last);
    for (int v = 0; v < V_COUNT; v++) bb_recorder_free(recs[v]);
    bb_recorder_free(def);
    free(ideal_ring);
    return 0;
}
