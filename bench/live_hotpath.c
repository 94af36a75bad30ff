/* live_hotpath.c — the writer's hot-path cost while `backbeat tail` / `backbeat top` follow its
 * ring file (issue 22: goal <= 1.05x of not followed). One recorder in a ring file
 * (bb_recorder_create_ring, one shard per CPU), T writer threads recording the same 3-field
 * event as fast as they go; rounds alternate between no reader, `tail --follow --format jsonl >
 * /dev/null` and `top --format jsonl --interval 100 > /dev/null` following the file. Two
 * variants: "shared" (nothing pinned: the reader competes with the writers for the CPUs) and
 * "pinned" (the writer threads on CPU 0, the reader on CPU 1: what `taskset -c 1` does, set
 * with sched_setaffinity in the reader's child before exec). Per round: the writers' thread CPU
 * time per record (the hot-path cost: what the writer thread itself spends, cache misses the
 * reader causes included, time descheduled excluded) and the wall time per record; medians
 * over the rounds and of the per-round ratio to the round's unfollowed run.
 * Usage: live_hotpath BACKBEAT_CLI [records_per_thread] [rounds] [threads] [DIR]. */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <backbeat/backbeat.h>

BB_ENUM(lv_role, uint8_t, (LV_CLIENT, 0, "client"), (LV_SERVER, 1, "server"));
BB_EVENT(lv_ev, "bench::net", "PacketSent", "A packet was sent.",
         BB_KEY(uint64_t, conn_id, "The connection."),
         BB_FIELD(uint32_t, len, "Size.", BB_UNIT("bytes")),
         BB_ENUM_F(lv_role, role, "Which side sent it."),
         BB_FIELD(uint8_t[3], pad, "Explicit padding."));

#define RING (1u << 20)
#define MAX_THREADS 16
#define MAX_ROUNDS 64
#define MODES 3

static const char *g_cli, *g_ring;
static uint64_t N = 4000000;
static int ROUNDS = 9, THREADS = 2;
static bb_recorder *g_rec;
static const char *const mode_name[MODES] = {"not followed", "tail --follow", "top"};

__attribute__((noinline)) static void run_record(uint64_t n) {
    for (uint64_t i = 0; i < n; i++)
        BB_RECORD(g_rec, lv_ev, .conn_id = i, .len = (uint32_t)i, .role = LV_SERVER);
}

static double clock_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef struct writer {
    pthread_t th;
    int cpu; /* -1: not pinned */
    double cpu_ns;
} writer;

static pthread_barrier_t g_go;

static void *write_thread(void *arg) {
    writer *w = arg;
    if (w->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(w->cpu, &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    pthread_barrier_wait(&g_go);
    double t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    run_record(N);
    w->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
    return NULL;
}

/* One run of the writers: mean thread CPU ns per record into *cpu, wall ns per record into
 * *wall (records of all threads over the wall time of the whole run). */
static void run_writers(int cpu, double *cpu_ns, double *wall_ns) {
    writer w[MAX_THREADS];
    pthread_barrier_init(&g_go, NULL, (unsigned)THREADS + 1);
    for (int i = 0; i < THREADS; i++) {
        w[i].cpu = cpu;
        pthread_create(&w[i].th, NULL, write_thread, &w[i]);
    }
    pthread_barrier_wait(&g_go);
    double t0 = clock_ns(CLOCK_MONOTONIC), sum = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(w[i].th, NULL);
        sum += w[i].cpu_ns;
    }
    *wall_ns = (clock_ns(CLOCK_MONOTONIC) - t0) / ((double)N * THREADS);
    *cpu_ns = sum / ((double)N * THREADS);
    pthread_barrier_destroy(&g_go);
}

/* Start the reader of `mode` (1 tail, 2 top) on the ring file, output to /dev/null, pinned to
 * `cpu` unless -1; its pid. */
static pid_t start_reader(int mode, int cpu) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    char *tail[] = {"backbeat", "tail", "--follow", "--format", "jsonl", (char *)g_ring, NULL};
    char *top[] = {"backbeat",   "top", "--format",     "jsonl",
                   "--interval", "100", (char *)g_ring, NULL};
    execv(g_cli, mode == 1 ? tail : top);
    _exit(127);
}

static void stop_reader(pid_t pid) {
    int st;
    kill(pid, SIGINT);
    waitpid(pid, &st, 0);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const double *v, int n) {
    double s[MAX_ROUNDS];
    memcpy(s, v, (size_t)n * sizeof *v);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    return s[n / 2];
}

/* One variant: rounds of the three modes, each round in a rotated order. */
static void variant(const char *name, int wcpu, int rcpu) {
    double cpu[MODES][MAX_ROUNDS], wall[MODES][MAX_ROUNDS], q[MODES][MAX_ROUNDS],
        qw[MODES][MAX_ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        for (int k = 0; k < MODES; k++) {
            int m = (r + k) % MODES;
            pid_t pid = m ? start_reader(m, rcpu) : 0;
            nanosleep(&(struct timespec){0, 200000000}, NULL); /* the reader is following */
            run_writers(wcpu, &cpu[m][r], &wall[m][r]);
            if (pid > 0) stop_reader(pid);
        }
        for (int m = 0; m < MODES; m++) {
            q[m][r] = cpu[m][r] / cpu[0][r];
            qw[m][r] = wall[m][r] / wall[0][r];
        }
    }
    printf("   %s\n", name);
    printf("   %-16s %14s %8s %14s %8s\n", "", "cpu ns/record", "ratio", "wall ns/record", "ratio");
    for (int m = 0; m < MODES; m++)
        printf("   %-16s %14.2f %7.3fx %14.2f %7.3fx\n", mode_name[m], median(cpu[m], ROUNDS),
               median(q[m], ROUNDS), median(wall[m], ROUNDS), median(qw[m], ROUNDS));
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: live_hotpath BACKBEAT_CLI [records] [rounds] [threads] [DIR]\n");
        return 2;
    }
    g_cli = argv[1];
    if (argc > 2) N = strtoull(argv[2], NULL, 10);
    if (argc > 3) ROUNDS = atoi(argv[3]);
    if (argc > 4) THREADS = atoi(argv[4]);
    const char *dir = argc > 5 ? argv[5] : "/dev/shm";
    if (ROUNDS < 3) ROUNDS = 3;
    if (ROUNDS > MAX_ROUNDS) ROUNDS = MAX_ROUNDS;
    if (THREADS < 1 || THREADS > MAX_THREADS) THREADS = 2;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = (uint32_t)cpus;
    o.bytes_per_shard = RING;
    bb_error err;
    if (bb_recorder_create_ring(&o, dir, false, &g_rec, &err) != BB_OK) {
        printf("   unavailable: %s\n", err.message);
        return 0;
    }
    g_ring = bb_recorder_ring_path(g_rec);
    bb_recorder_enable(g_rec, true);
    run_record(RING); /* fault every page in */
    printf("== writer's hot path followed by tail / top vs not (ring file in %s, %ld shards of %u "
           "KiB, clock %s, cpu hint %s)\n   %d writer threads x %llu records per run, %d rounds "
           "alternating the three modes; medians (ratio: of each round's pair)\n",
           dir, cpus, RING / 1024, bb_recorder_clock_name(g_rec), bb_recorder_cpu_hint_name(g_rec),
           THREADS, (unsigned long long)N, ROUNDS);
    variant("shared: nothing pinned (reader and writers compete for the CPUs)", -1, -1);
    if (cpus >= 2) variant("pinned: writers on CPU 0, reader on CPU 1 (as taskset -c 1)", 0, 1);
    bb_recorder_free(g_rec);
    return 0;
}
