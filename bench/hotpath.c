/* hotpath.c — the recorder's hot-path benchmark (issue 3).
 *
 * On one pinned core, medians over REPS repetitions of N events each:
 *  - BB_RECORD of a 3-field event (u64 key, u32, u8 enum; plus the explicit padding event.h
 *    requires) with each clock: tsc, monotonic, manual, user;
 *  - per clock, a floor made of the bare primitives the hot path needs, written here: the clock
 *    read (converted to ns the same way), one fetch_add on a cursor alone on its 128-byte line,
 *    and the copy of [ts][id][fields][u16 length] into a ring of the same size;
 *  - BB_RECORD with the recorder disabled, and the bare loop;
 *  - throughput of 1 thread vs 2 threads (one per core, the default clock).
 * Prints ns/event and the ratio to the floor. Usage: hotpath [events_per_rep] [reps]. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <backbeat/backbeat.h>

BB_ENUM(bench_role, uint8_t, (BENCH_CLIENT, 0, "client"), (BENCH_SERVER, 1, "server"));
BB_EVENT(bench_ev, "bench::net", "PacketSent", "A packet was sent.",
         BB_KEY(uint64_t, conn_id, "The connection."),
         BB_FIELD(uint32_t, len, "Size.", BB_UNIT("bytes")),
         BB_ENUM_F(bench_role, role, "Which side sent it."),
         BB_FIELD(uint8_t[3], pad, "Explicit padding (event.h rejects implicit padding)."));

#define RING (1u << 20)

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- the measured loops ---------------------------------------------------------------- */

__attribute__((noinline)) static void run_record(bb_recorder *rec, uint64_t n) {
    for (uint64_t i = 0; i < n; i++)
        BB_RECORD(rec, bench_ev, .conn_id = i, .len = (uint32_t)i, .role = (bench_role)(i & 1));
}

__attribute__((noinline)) static void run_bare(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) __asm__ volatile("" ::"r"(i) : "memory");
}

/* The floor: clock read + one fetch_add + the copy, nothing else. */
struct floor_ring {
    _Alignas(128) uint64_t head;
    uint8_t pad[120];
    uint8_t *ring;
};

static uint64_t user_clock(void *ctx) {
    (void)ctx;
    return 1;
}

typedef enum { F_TSC, F_MONO, F_MANUAL, F_USER } floor_kind;
static uint64_t tsc_mult = 0x66666666ull, tsc_base, manual_ns;
static uint64_t (*volatile user_fn)(void *) = user_clock;

#define FLOOR_BODY(CLOCK_EXPR)                                                         \
    for (uint64_t i = 0; i < n; i++) {                                                 \
        uint64_t ts = (CLOCK_EXPR);                                                    \
        bench_ev ev = {.conn_id = i, .len = (uint32_t)i, .role = (bench_role)(i & 1)}; \
        uint64_t pos = __atomic_fetch_add(&f->head, 34, __ATOMIC_ACQ_REL);             \
        uint8_t *dst = f->ring + (pos & (RING - 1));                                   \
        uint16_t len = 32;                                                             \
        memcpy(dst, &ts, 8);                                                           \
        memcpy(dst + 8, &id, 8);                                                       \
        memcpy(dst + 16, &ev, 16);                                                     \
        memcpy(dst + 32, &len, 2);                                                     \
    }

/* The ring has 64 spare bytes past RING, so the floor needs no wrap handling. */
__attribute__((noinline)) static void floor_tsc(struct floor_ring *f, uint64_t n, uint64_t id) {
    __extension__ typedef unsigned __int128 u128;
#if defined(__x86_64__)
    FLOOR_BODY(__extension__({
        uint32_t lo, hi;
        __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
        (uint64_t)(((u128)((((uint64_t)hi << 32) | lo) - tsc_base) * tsc_mult) >> 32);
    }))
#else
    (void)f, (void)n, (void)id;
#endif
}
__attribute__((noinline)) static void floor_mono(struct floor_ring *f, uint64_t n, uint64_t id) {
    FLOOR_BODY(__extension__({
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        (uint64_t) t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec + 17u;
    }))
}
__attribute__((noinline)) static void floor_manual(struct floor_ring *f, uint64_t n, uint64_t id) {
    FLOOR_BODY(__atomic_load_n(&manual_ns, __ATOMIC_RELAXED))
}
__attribute__((noinline)) static void floor_user(struct floor_ring *f, uint64_t n, uint64_t id) {
    FLOOR_BODY(user_fn(NULL))
}

/* ---- driver ------------------------------------------------------------------------------ */

static uint64_t N = 2000000;
static int REPS = 15;

/* Per-event cost of one run, in thread CPU time (time the shared machine gives to other
 * processes while we are descheduled is not counted). */
static double thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef struct floor_state {
    struct floor_ring *f;
    uint64_t id;
} floor_state;

static double one_floor(floor_state *s, floor_kind k) {
    double t0 = thread_cpu_ns();
    switch (k) {
    case F_TSC: floor_tsc(s->f, N, s->id); break;
    case F_MONO: floor_mono(s->f, N, s->id); break;
    case F_MANUAL: floor_manual(s->f, N, s->id); break;
    case F_USER: floor_user(s->f, N, s->id); break;
    }
    return (thread_cpu_ns() - t0) / (double)N;
}

static double one_record(bb_recorder *rec) {
    double t0 = thread_cpu_ns();
    run_record(rec, N);
    return (thread_cpu_ns() - t0) / (double)N;
}

/* Record and floor runs alternate, so both see the same neighbours; medians of each and of
 * the per-pair ratio. */
static void time_pair(bb_recorder *rec, floor_kind k, double *rec_ns, double *floor_ns,
                      double *ratio) {
    floor_state s;
    s.f = aligned_alloc(128, sizeof *s.f);
    memset(s.f, 0, sizeof *s.f);
    s.f->ring = calloc(1, RING + 64);
    s.id = bb_event_id(BB_DESC(bench_ev));
    double a[64], b[64], q[64];
    run_record(rec, N / 4); /* warm up: fault the rings in */
    (void)one_floor(&s, k);
    for (int r = 0; r < REPS; r++) {
        a[r] = one_record(rec);
        b[r] = one_floor(&s, k);
        q[r] = a[r] / b[r];
    }
    *rec_ns = median(a, REPS);
    *floor_ns = median(b, REPS);
    *ratio = median(q, REPS);
    free(s.f->ring);
    free(s.f);
}

/* Disabled recording and the bare loop, alternating. */
static void time_disabled(bb_recorder *rec, double *dis, double *bare) {
    double a[64], b[64];
    for (int r = 0; r < REPS; r++) {
        double t0 = thread_cpu_ns();
        run_record(rec, N * 4);
        double t1 = thread_cpu_ns();
        run_bare(N * 4);
        double t2 = thread_cpu_ns();
        a[r] = (t1 - t0) / (double)(N * 4);
        b[r] = (t2 - t1) / (double)(N * 4);
    }
    *dis = median(a, REPS);
    *bare = median(b, REPS);
}

static int cpus[64], ncpu;

static void pin(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    if (sched_setaffinity(0, sizeof s, &s) != 0) perror("sched_setaffinity");
}

/* Throughput: `threads` threads (each pinned to its own core) record N events each. */
typedef struct tp_arg {
    bb_recorder *rec;
    int cpu;
    pthread_barrier_t *bar;
    double cpu_s; /* thread CPU time of the measured run */
} tp_arg;

static double thread_cpu_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *tp_thread(void *p) {
    tp_arg *a = p;
    pin(a->cpu);
    run_record(a->rec, N / 4);
    pthread_barrier_wait(a->bar);
    double c0 = thread_cpu_s();
    run_record(a->rec, N);
    a->cpu_s = thread_cpu_s() - c0;
    return NULL;
}

/* Median over REPS runs of: wall-clock throughput (M events/s, all threads), and *cpu_rate the
 * throughput per CPU-second summed over threads (what the threads would do with their cores to
 * themselves: the machine is shared, so wall time includes the neighbours' share). */
static double throughput(bb_recorder *rec, int threads, double *cpu_rate) {
    double v[64], c[64];
    for (int r = 0; r < REPS; r++) {
        pthread_t th[2];
        tp_arg a[2];
        pthread_barrier_t bar;
        pthread_barrier_init(&bar, NULL, (unsigned)threads + 1);
        for (int t = 0; t < threads; t++) {
            a[t] = (tp_arg){rec, cpus[t % ncpu], &bar, 0};
            pthread_create(&th[t], NULL, tp_thread, &a[t]);
        }
        pthread_barrier_wait(&bar);
        uint64_t t0 = now_ns();
        for (int t = 0; t < threads; t++) pthread_join(th[t], NULL);
        v[r] = (double)N * threads / ((double)(now_ns() - t0) / 1e9) / 1e6; /* M events/s */
        c[r] = 0;
        for (int t = 0; t < threads; t++) c[r] += (double)N / a[t].cpu_s / 1e6;
        pthread_barrier_destroy(&bar);
    }
    *cpu_rate = median(c, REPS);
    return median(v, REPS);
}

int main(int argc, char **argv) {
    if (argc > 1) N = strtoull(argv[1], NULL, 10);
    if (argc > 2) REPS = atoi(argv[2]);
    if (REPS < 11) REPS = 11;
    if (REPS > 64) REPS = 64;
    cpu_set_t allowed;
    sched_getaffinity(0, sizeof allowed, &allowed);
    for (int c = 0; c < 64; c++)
        if (CPU_ISSET(c, &allowed)) cpus[ncpu++] = c;
    pin(cpus[0]);

    time_t now = time(NULL);
    char when[64];
    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
    printf("== recorder hot path (%s), pinned to CPU %d, %d repetitions x %llu events, "
           "medians\n",
           when, cpus[0], REPS, (unsigned long long)N);
    printf("   event: u64 key + u32 + u8 enum (+3 bytes explicit padding) = 16 field bytes, "
           "34-byte records, %u KiB rings\n",
           RING / 1024);

    const struct {
        bb_clock_kind kind;
        floor_kind floor;
    } clocks[] = {{BB_CLOCK_TSC, F_TSC},
                  {BB_CLOCK_MONOTONIC, F_MONO},
                  {BB_CLOCK_MANUAL, F_MANUAL},
                  {BB_CLOCK_USER, F_USER}};
    printf(
        "   per-event cost in thread CPU time; record and floor runs alternate; ratio = median of "
        "per-pair ratios\n");
    printf("   %-10s %12s %12s %8s\n", "clock", "record ns", "floor ns", "ratio");
    bb_recorder *def = NULL;
    for (size_t c = 0; c < sizeof clocks / sizeof clocks[0]; c++) {
        bb_recorder_options o;
        bb_recorder_options_init(&o);
        o.shards = (uint32_t)ncpu;
        o.bytes_per_shard = RING;
        o.clock = clocks[c].kind;
        o.user_clock = user_clock;
        bb_recorder *rec = NULL;
        if (bb_recorder_create(&o, &rec) != BB_OK) {
            printf("   %-10s unavailable on this host\n",
                   clocks[c].kind == BB_CLOCK_TSC ? "tsc" : "?");
            continue;
        }
        bb_recorder_enable(rec, true);
        double r, f, q;
        time_pair(rec, clocks[c].floor, &r, &f, &q);
        printf("   %-10s %12.2f %12.2f %8.2fx\n", bb_recorder_clock_name(rec), r, f, q);
        bb_recorder_free(rec);
    }
    def = bb_recorder_new((uint32_t)ncpu, RING);
    printf("   default clock on this host: %s (cpu hint: %s)\n", bb_recorder_clock_name(def),
           bb_recorder_cpu_hint_name(def));
    double dis, bare;
    time_disabled(def, &dis, &bare);
    printf("   disabled   %12.2f ns/event (bare loop %.2f ns/iteration)\n", dis, bare);

    bb_recorder_enable(def, true);
    if (ncpu >= 2) {
        double c1, c2;
        double t1 = throughput(def, 1, &c1), t2 = throughput(def, 2, &c2);
        printf("   throughput (%s), wall clock: 1 thread %.1f M events/s, 2 threads (CPUs %d,%d) "
               "%.1f M events/s: %.2fx\n",
               bb_recorder_clock_name(def), t1, cpus[0], cpus[1], t2, t2 / t1);
        printf("   throughput per CPU-second (excludes time the shared machine gave to others): "
               "1 thread %.1f, 2 threads %.1f M events/s: %.2fx\n",
               c1, c2, c2 / c1);
    } else {
        printf("   throughput: only one CPU available, 2-thread run skipped\n");
    }
    bb_recorder_free(def);
    return 0;
}
