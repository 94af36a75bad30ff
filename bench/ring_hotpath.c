/* ring_hotpath.c — what file-backed rings (docs/RING_FILE.md) cost on the hot path: the same
 * BB_RECORD of the same 3-field event with the same clock into a recorder whose rings are
 * anonymous memory and into recorders whose rings are a MAP_SHARED ring file (on each directory
 * given, default $TMPDIR or /tmp and /dev/shm), in the same run. On one pinned core, runs of N
 * events alternate between the recorders; medians of thread CPU time per event and of the
 * per-pair ratio to the anonymous one. Usage: ring_hotpath [events_per_rep] [reps] [DIR...]. */
/* SPDX-License-Identifier: MIT */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <backbeat/backbeat.h>

BB_ENUM(rb_role, uint8_t, (RB_CLIENT, 0, "client"), (RB_SERVER, 1, "server"));
BB_EVENT(rb_ev, "bench::net", "PacketSent", "A packet was sent.",
         BB_KEY(uint64_t, conn_id, "The connection."),
         BB_FIELD(uint32_t, len, "Size.", BB_UNIT("bytes")),
         BB_ENUM_F(rb_role, role, "Which side sent it."),
         BB_FIELD(uint8_t[3], pad, "Explicit padding."));

#define RING (1u << 20)
#define MAX_REC 8

static uint64_t N = 2000000;
static int REPS = 21;

__attribute__((noinline)) static void run_record(bb_recorder *rec, uint64_t n) {
    for (uint64_t i = 0; i < n; i++)
        BB_RECORD(rec, rb_ev, .conn_id = i, .len = (uint32_t)i, .role = RB_SERVER);
}

static double thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double one(bb_recorder *rec) {
    double t0 = thread_cpu_ns();
    run_record(rec, N);
    return (thread_cpu_ns() - t0) / (double)N;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* A recorder of `cpus` shards of RING bytes: anonymous (dir NULL) or in a ring file in dir. */
static bb_recorder *make(const char *dir, long cpus) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = (uint32_t)cpus;
    o.bytes_per_shard = RING;
    bb_recorder *rec = NULL;
    bb_error err;
    bb_status st =
        dir ? bb_recorder_create_ring(&o, dir, false, &rec, &err) : bb_recorder_create(&o, &rec);
    if (st != BB_OK) {
        printf("   %-24s unavailable: %s\n", dir ? dir : "anonymous",
               dir ? err.message : bb_strerror(st));
        return NULL;
    }
    bb_recorder_enable(rec, true);
    run_record(rec, N / 2); /* fault every page in */
    return rec;
}

int main(int argc, char **argv) {
    if (argc > 1) N = strtoull(argv[1], NULL, 10);
    if (argc > 2) REPS = atoi(argv[2]);
    if (REPS < 5) REPS = 5;
    if (REPS > 64) REPS = 64;
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    const char *dirs[MAX_REC] = {NULL, tmp, "/dev/shm"};
    int nrec = 3;
    if (argc > 3)
        for (nrec = 1; nrec < MAX_REC && nrec - 1 < argc - 3; nrec++) dirs[nrec] = argv[nrec + 2];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(sched_getcpu(), &set);
    sched_setaffinity(0, sizeof set, &set);
    printf("== file-backed rings vs anonymous (same run, CPU %d pinned): %d repetitions x %llu "
           "events, medians of thread CPU ns/event\n",
           sched_getcpu(), REPS, (unsigned long long)N);
    bb_recorder *rec[MAX_REC];
    double t[MAX_REC][64], q[MAX_REC][64];
    for (int k = 0; k < nrec; k++) rec[k] = make(dirs[k], cpus);
    if (!rec[0]) return 1;
    printf("   %ld shards of %u KiB, clock %s, cpu hint %s; runs alternate between the recorders\n",
           cpus, RING / 1024, bb_recorder_clock_name(rec[0]), bb_recorder_cpu_hint_name(rec[0]));
    for (int r = 0; r < REPS; r++)
        for (int k = 0; k < nrec; k++) {
            if (!rec[k]) continue;
            t[k][r] = one(rec[k]);
            q[k][r] = t[k][r] / t[0][r];
        }
    printf("   %-40s %10s %8s\n", "rings", "ns/event", "ratio");
    for (int k = 0; k < nrec; k++) {
        if (!rec[k]) continue;
        char name[256];
        snprintf(name, sizeof name, "%s", k ? bb_recorder_ring_path(rec[k]) : "anonymous memory");
        char *base = strrchr(name, '/');
        if (base && k) snprintf(base + 1, sizeof name - (size_t)(base + 1 - name), "...ring");
        double m = median(t[k], REPS), mq = median(q[k], REPS);
        printf("   %-40s %10.2f %7.2fx\n", name, m, mq);
    }
    for (int k = 0; k < nrec; k++) bb_recorder_free(rec[k]);
    return 0;
}
