/* dump_cost.c — what dumps cost and what they cost writers (issue 13; section `dump` of
 * scripts/bench.sh).
 *  - Filled rings: 16 shards x 16 MiB, the shards of the CPUs used full, then dumped REPS times
 *    to a file in DIR
 *    (bb_recorder_dump_path: snapshot + write) and to memory (bb_recorder_dump_buffer):
 *    median wall ms and MiB/s.
 *  - Mostly empty: the same configuration with a few records, and 64 x 64 MiB (4 GiB): time and
 *    the bytes the file occupies on disk (holes: src/format/sink_sparse.c).
 *  - Writers under dumps: one writer thread pinned to the first CPU records for a fixed number
 *    of events, alone and while another thread (on the second CPU when there is one) dumps back
 *    to back to a file; thread CPU ns per record, medians of REPS alternating runs.
 *  - A busy process (issue 37): 8 threads record back to back into 2 shards of 16 and of 64 MiB
 *    while the main thread dumps to memory: per shard, the share of the ring kept as whole
 *    records (min and median of REPS dumps).
 *  - Dumps at the disk's speed (issue 37): 2 x 512 MiB full rings dumped to a file against
 *    writing the same number of bytes in 1 MiB write(2) calls (what `dd bs=1M` does) to the same
 *    directory and through the crash path (bb_recorder_dump_fd_signal_safe), in turns, with the
 *    heads just past a lap's start (the cut's worst case) and mid-lap; medians and the ratios;
 *    and the crash path's time for 2 x 16 MiB full rings.
 * Usage: dump_cost DIR [reps] */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <backbeat/backbeat.h>
#include <backbeat/reader.h>

BB_EVENT(dc_ev, "bench::dump", "Tick", NULL, BB_KEY(uint64_t, n, NULL), BB_FIELD(uint32_t, a, NULL),
         BB_FIELD(uint32_t, b, NULL));

static int REPS = 7;
static const char *DIR_;
static int cpus[2], ncpu;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}
static double thread_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
static void pin(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(0, sizeof s, &s);
}

static bb_recorder *make(uint32_t shards, uint64_t bytes) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = shards;
    o.bytes_per_shard = bytes;
    bb_recorder *rec = NULL;
    if (bb_recorder_create(&o, &rec) != BB_OK) return NULL;
    bb_recorder_enable(rec, true);
    return rec;
}

/* Fill the shards of the allowed CPUs (up to two): each in turn records until its shard has
 * lapped. A thread records into its CPU's shard, so the other shards stay empty. */
static void fill(bb_recorder *rec, uint64_t bytes_per_shard) {
    uint64_t per = bytes_per_shard / 34 + 1000;
    for (int c = 0; c < ncpu; c++) {
        pin(cpus[c]);
        for (uint64_t i = 0; i < per; i++) BB_RECORD(rec, dc_ev, .n = i, .a = 1, .b = 2);
    }
    pin(cpus[0]);
}

/* Median wall seconds of REPS dumps to DIR/dump.bb (path) or to memory; *disk: bytes on disk. */
static double time_dumps(bb_recorder *rec, bool to_file, uint64_t *size, uint64_t *disk) {
    char path[4096];
    snprintf(path, sizeof path, "%s/dump_cost.bb", DIR_);
    double v[64];
    for (int r = 0; r < REPS; r++) {
        bb_error err;
        double t0 = now_s();
        if (to_file) {
            if (bb_recorder_dump_path(rec, path, NULL, &err) != BB_OK) {
                fprintf(stderr, "dump_cost: %s\n", err.message);
                exit(1);
            }
        } else {
            void *buf = NULL;
            size_t len = 0;
            if (bb_recorder_dump_buffer(rec, &buf, &len, &err) != BB_OK) exit(1);
            *size = len;
            free(buf);
        }
        v[r] = now_s() - t0;
    }
    if (to_file) {
        struct stat st;
        stat(path, &st);
        *size = (uint64_t)st.st_size;
        *disk = (uint64_t)st.st_blocks * 512;
        unlink(path);
    }
    return median(v, REPS);
}

static void report(const char *label, bb_recorder *rec, bool to_file) {
    uint64_t size = 0, disk = 0;
    double s = time_dumps(rec, to_file, &size, &disk);
    printf("   %-44s %8.1f ms %8.0f MiB/s", label, s * 1e3, (double)size / 1048576.0 / s);
    if (to_file)
        printf("   file %6.0f MiB, on disk %8.1f MiB", (double)size / 1048576.0,
               (double)disk / 1048576.0);
    printf("\n");
}

/* ---- writers while dumps run ------------------------------------------------------------- */
static bb_recorder *wrec;
static int dumping; /* atomic */
static uint64_t dumps_done;

static void *dumper(void *arg) {
    (void)arg;
    if (ncpu > 1) pin(cpus[1]);
    char path[4096];
    snprintf(path, sizeof path, "%s/dump_cost_bg.bb", DIR_);
    while (__atomic_load_n(&dumping, __ATOMIC_ACQUIRE)) {
        bb_error err;
        bb_recorder_dump_path(wrec, path, NULL, &err);
        dumps_done++;
    }
    unlink(path);
    return NULL;
}

static double writer_run(uint64_t n) {
    double t0 = thread_ns();
    for (uint64_t i = 0; i < n; i++) BB_RECORD(wrec, dc_ev, .n = i, .a = (uint32_t)i, .b = 3);
    return (thread_ns() - t0) / (double)n;
}

static bb_recorder *busy_rec;
static int busy_stop; /* atomic */
static void *busy_writer(void *arg) {
    for (uint64_t i = (uint64_t)(uintptr_t)arg << 48;
         !__atomic_load_n(&busy_stop, __ATOMIC_RELAXED); i++)
        BB_RECORD(busy_rec, dc_ev, .n = i, .a = 1, .b = 2);
    return NULL;
}

/* Share of shard `sh`'s ring kept as whole records in the dump `buf`. */
static int count_one(const bb_record *r, void *ctx) {
    (void)r;
    (*(uint64_t *)ctx)++;
    return 0;
}
static double kept_share(const void *buf, size_t len, uint32_t sh, uint64_t cap) {
    bb_dump *d = NULL;
    if (bb_dump_open_memory(buf, len, "busy", &d, NULL) != BB_OK) return -1;
    uint64_t n = 0;
    const bb_rinstance *in = bb_dump_instance_count(d) ? bb_dump_instance(d, 0) : NULL;
    if (in && sh < in->shard_count) bb_shard_walk(d, &in->shards[sh], count_one, &n, NULL);
    bb_dump_close(d);
    return (double)n * (16 + sizeof(dc_ev) + 2) / (double)cap;
}

static void busy(const cpu_set_t *allowed, uint32_t mib) {
    uint64_t cap = (uint64_t)mib << 20;
    busy_rec = make(2, cap);
    if (!busy_rec) return;
    sched_setaffinity(0, sizeof *allowed, allowed); /* the writers run anywhere */
    pthread_t t[8];
    __atomic_store_n(&busy_stop, 0, __ATOMIC_RELAXED);
    for (uintptr_t i = 0; i < 8; i++) pthread_create(&t[i], NULL, busy_writer, (void *)i);
    struct timespec nap = {0, 300 * 1000 * 1000};
    nanosleep(&nap, NULL);
    double k[2][64];
    for (int r = 0; r < REPS; r++) {
        void *buf = NULL;
        size_t len = 0;
        bb_recorder_dump_buffer(busy_rec, &buf, &len, NULL);
        for (uint32_t sh = 0; sh < 2; sh++) k[sh][r] = buf ? kept_share(buf, len, sh, cap) : 0;
        free(buf);
    }
    __atomic_store_n(&busy_stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < 8; i++) pthread_join(t[i], NULL);
    pin(cpus[0]);
    for (uint32_t sh = 0; sh < 2; sh++) {
        double lo = 1e9;
        for (int r = 0; r < REPS; r++) lo = k[sh][r] < lo ? k[sh][r] : lo;
        printf("   busy (8 writers), 2 x %u MiB, live dump to memory: shard %u keeps %.1f%% of its "
               "ring (min %.1f%%)\n",
               mib, sh, 100 * median(k[sh], REPS), 100 * lo);
    }
    bb_recorder_free(busy_rec);
}

/* Seconds to write `bytes` in 1 MiB write(2) calls to a new file in DIR_ (then removed). */
static double dd_like(uint64_t bytes) {
    char path[4096];
    snprintf(path, sizeof path, "%s/dump_cost_dd.bin", DIR_);
    static char block[1 << 20];
    memset(block, 0x5a, sizeof block);
    double t0 = now_s();
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int fd = fileno(f);
    for (uint64_t w = 0; w < bytes; w += sizeof block)
        if (write(fd, block, sizeof block) != (ssize_t)sizeof block) break;
    fclose(f);
    double s = now_s() - t0;
    unlink(path);
    return s;
}

/* Median seconds of `reps` crash-path dumps (bb_recorder_dump_fd_signal_safe: the live rings,
 * no allocation) to a new file in DIR_, closed and removed each time. */
static double crash_path(bb_recorder *rec, int reps) {
    char path[4096];
    snprintf(path, sizeof path, "%s/dump_cost_crash.bb", DIR_);
    double v[64];
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || bb_recorder_dump_fd_signal_safe(rec, fd) != BB_OK) {
            fprintf(stderr, "dump_cost: crash-path dump to %s failed\n", path);
            exit(1);
        }
        close(fd);
        v[r] = now_s() - t0;
        unlink(path);
    }
    return median(v, reps);
}

/* One row against dd: REPS (at most 5) rounds of a dump to a file, 1 MiB writes of as many
 * bytes, and a crash-path dump, in turns; medians and ratios. */
static void dd_row(bb_recorder *rec, const char *where) {
    char path[4096];
    snprintf(path, sizeof path, "%s/dump_cost_1g.bb", DIR_);
    double ours[64], dd[64], crash[64];
    struct stat st = {0};
    int reps = REPS < 5 ? REPS : 5;
    for (int r = 0; r < reps; r++) {
        double t0 = now_s();
        bb_recorder_dump_path(rec, path, NULL, NULL);
        ours[r] = now_s() - t0;
        stat(path, &st);
        unlink(path);
        sync(); /* no writeback of one step under the next */
        dd[r] = dd_like((uint64_t)st.st_size);
        sync();
        crash[r] = crash_path(rec, 1);
        sync();
        if (getenv("DC_V")) fprintf(stderr, "%.3f %.3f %.3f\n", ours[r], dd[r], crash[r]);
    }
    double o = median(ours, reps), d = median(dd, reps), c = median(crash, reps);
    printf("   2 x 512 MiB full rings (%.0f MiB), %s: dump to file %.3f s, crash path %.3f s, "
           "1 MiB writes of as many bytes %.3f s: dump at %.2fx that rate, crash path %.2fx\n",
           (double)st.st_size / 1048576.0, where, o, c, d, d / o, d / c);
}

/* The rows against dd: with each head just past the start of a lap, where a dump's cut walks
 * the whole ring (the worst case), then half a ring later (the rseq path's walk starts at the
 * lap's start, recorder_dump.c drop_lapped: the mean case). */
static void against_dd(void) {
    bb_recorder *rec = make(2, 512u << 20);
    if (!rec) {
        printf("   2 x 512 MiB: cannot map 1 GiB here\n");
        return;
    }
    fill(rec, 512u << 20);
    crash_path(rec, 3); /* warm-up: this VM's first writes of a run stall now and then */
    dd_row(rec, "heads at a lap's start");
    fill(rec, 256u << 20);
    dd_row(rec, "heads mid-lap");
    bb_recorder_free(rec);
    rec = make(2, 16u << 20); /* the default configuration on 2 CPUs */
    if (!rec) return;
    fill(rec, 16u << 20);
    printf("   2 x 16 MiB full rings (the default on 2 CPUs): crash dump %.1f ms\n",
           1e3 * crash_path(rec, REPS));
    bb_recorder_free(rec);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: dump_cost DIR [reps [dd]]\n");
        return 2;
    }
    DIR_ = argv[1];
    if (argc > 2) REPS = atoi(argv[2]);
    if (REPS < 3) REPS = 3;
    if (REPS > 64) REPS = 64;
    cpu_set_t allowed; /* before the dd row too: fill() fills the shards of these CPUs */
    sched_getaffinity(0, sizeof allowed, &allowed);
    for (int c = 0; c < CPU_SETSIZE && ncpu < 2; c++)
        if (CPU_ISSET(c, &allowed)) cpus[ncpu++] = c;
    pin(cpus[0]);
    if (argc > 3 && !strcmp(argv[3], "dd")) { /* only the row against dd (profiling) */
        against_dd();
        return 0;
    }
    printf("== dump cost (%d repetitions, medians, wall clock; output in %s)\n", REPS, DIR_);

    bb_recorder *full = make(16, 16u << 20);
    if (!full) return 1;
    printf("   commit path %s, clock %s\n", bb_recorder_commit_name(full),
           bb_recorder_clock_name(full));
    fill(full, 16u << 20);
    printf("   (a thread records into its CPU's shard: %d of the 16 shards are full, the rest "
           "empty)\n",
           ncpu < 16 ? ncpu : 16);
    report("16 x 16 MiB, filled: dump to file", full, true);
    report("16 x 16 MiB, filled: dump to memory", full, false);
    bb_recorder_free(full);

    bb_recorder *empty = make(16, 16u << 20);
    for (int i = 0; i < 1000; i++) BB_RECORD(empty, dc_ev, .n = (uint64_t)i);
    report("16 x 16 MiB, 1000 records: dump to file", empty, true);
    bb_recorder_free(empty);
    bb_recorder *big = make(64, 64u << 20);
    if (big) {
        for (int i = 0; i < 1000; i++) BB_RECORD(big, dc_ev, .n = (uint64_t)i);
        int saved = REPS;
        REPS = 3;
        report("64 x 64 MiB (4 GiB), 1000 records: to file", big, true);
        REPS = saved;
        bb_recorder_free(big);
    } else {
        printf("   64 x 64 MiB: cannot map 4 GiB here\n");
    }

    busy(&allowed, 16);
    busy(&allowed, 64);
    against_dd();

    wrec = make(16, 16u << 20);
    fill(wrec, 16u << 20);
    const uint64_t n = 2000000;
    double alone[64], under[64];
    writer_run(n / 4);
    for (int r = 0; r < REPS; r++) {
        alone[r] = writer_run(n);
        __atomic_store_n(&dumping, 1, __ATOMIC_RELEASE);
        pthread_t t;
        pthread_create(&t, NULL, dumper, NULL);
        under[r] = writer_run(n);
        __atomic_store_n(&dumping, 0, __ATOMIC_RELEASE);
        pthread_join(t, NULL);
    }
    double a = median(alone, REPS), u = median(under, REPS);
    printf("   writer (CPU %d), 16 x 16 MiB full rings: alone %.2f ns/record, while dumps run back "
           "to back (CPU %d, %llu dumps) %.2f ns/record: %.2fx\n",
           cpus[0], a, ncpu > 1 ? cpus[1] : cpus[0], (unsigned long long)dumps_done, u, u / a);
    bb_recorder_free(wrec);
    return 0;
}
