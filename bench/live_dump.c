/* live_dump.c — how much of each shard a live dump of a busy process keeps (issue 37, "Live
 * dumps keep every shard"): 8 threads record back to back through the global recorder (2 CPUs:
 * more writers than CPUs) into the default shard count at MIB MiB per shard, and
 *  - inproc: the program itself dumps RUNS times with bb_global_dump() (the BACKBEAT_SIGNAL path);
 *  - outside: a child records into a ring file (BACKBEAT_RING_DIR) and this process runs
 *    `backbeat recover --force` on it RUNS times, then `backbeat watch` RUNS times (a rule on a
 *    marker record the child writes every 20 ms; `--max 1`).
 * Per dump and shard: the records kept, the share of the window (the ring, or the bytes written
 * when it has not wrapped yet) they fill (whole records of the one event, as frames), the records
 * that fail their check word (torn: must be 0), and the dump's wall time. Figures, not thresholds
 * (scripts/bench.sh section `livedump`).
 * Usage: live_dump inproc|outside MIB RUNS DIR [BACKBEAT_CLI] */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <backbeat/backbeat.h>
#include <backbeat/global.h>
#include <backbeat/reader.h>

#define WRITERS 8
#define MAX_SHARDS 16

BB_EVENT(ld_rec, "bench::live", "Rec", NULL, BB_KEY(uint32_t, writer, NULL),
         BB_FIELD(uint32_t, pad, NULL), BB_FIELD(uint64_t, seq, NULL),
         BB_FIELD(uint64_t, check, NULL));
BB_EVENT(ld_mark, "bench::live", "Mark", NULL, BB_FIELD(uint64_t, n, NULL));

static int stop; /* atomic */

static uint64_t check_of(uint32_t w, uint64_t s) { return (s * 0x9E3779B97F4A7C15ull) ^ w; }

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void nap_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void *writer(void *arg) {
    uint32_t w = (uint32_t)(uintptr_t)arg;
    for (uint64_t s = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); s++)
        BB_GRECORD(ld_rec, .writer = w, .seq = s, .check = check_of(w, s));
    return NULL;
}

static void configure(const char *mib) {
    char bytes[32];
    snprintf(bytes, sizeof bytes, "%sM", mib);
    setenv("BACKBEAT_BYTES", bytes, 1);
    setenv("BACKBEAT_ENABLE", "1", 1);
}

static void start_writers(pthread_t *t) {
    for (uintptr_t i = 0; i < WRITERS; i++) pthread_create(&t[i], NULL, writer, (void *)i);
}

/* Per shard of one dump: records of ld_rec kept and those failing their check. */
typedef struct tally {
    uint64_t n[MAX_SHARDS], bad[MAX_SHARDS], skipped[MAX_SHARDS], head[MAX_SHARDS];
    uint32_t shards;
} tally;

static int count(const bb_record *r, void *ctx) {
    tally *t = ctx;
    static const char want[] = "bench::live::Rec";
    if (!r->schema || r->schema->name.len != sizeof want - 1 ||
        memcmp(r->schema->name.ptr, want, sizeof want - 1) || r->shard_id >= MAX_SHARDS)
        return 0;
    ld_rec x;
    memcpy(&x, r->fields, sizeof x);
    t->n[r->shard_id]++;
    t->bad[r->shard_id] += x.writer >= WRITERS || x.check != check_of(x.writer, x.seq);
    return 0;
}

/* Print one line per shard of the dump at `path` (shards of `cap` bytes); returns the lowest
 * share kept, or -1 when the dump cannot be read. */
static double report(const char *what, int run, const char *path, uint64_t cap, double secs) {
    bb_dump *d = NULL;
    bb_error err;
    if (bb_dump_open(path, &d, &err) != BB_OK) {
        printf("   %s run %d: cannot read %s: %s\n", what, run, path, err.message);
        return -1;
    }
    tally t = {0};
    for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
        const bb_rinstance *in = bb_dump_instance(d, i);
        for (uint32_t s = 0; s < in->shard_count; s++) {
            bb_walk_stats ws = {0, 0};
            bb_shard_walk(d, &in->shards[s], count, &t, &ws);
            uint32_t id = in->shards[s].shard_id;
            if (id < MAX_SHARDS && in->shards[s].capacity == cap) {
                t.skipped[id] += ws.skipped_bytes;
                t.head[id] = in->shards[s].head;
            }
        }
        if (in->shard_count > t.shards) t.shards = in->shard_count;
    }
    bb_dump_close(d);
    double lo = 2;
    printf("   %-8s run %d (%6.1f ms):", what, run, secs * 1e3);
    for (uint32_t s = 0; s < 2 && s < MAX_SHARDS; s++) {
        /* of the window: the ring, or what was written when it has not wrapped yet */
        uint64_t window = t.head[s] < cap ? t.head[s] : cap;
        double share = window ? (double)t.n[s] * (16 + sizeof(ld_rec) + 2) / (double)window : 1;
        lo = share < lo ? share : lo;
        printf("  shard %u %8llu records %5.1f%% torn %llu (laps %.1f, skipped %.1f%%)", s,
               (unsigned long long)t.n[s], 100 * share, (unsigned long long)t.bad[s],
               (double)t.head[s] / (double)cap, 100.0 * (double)t.skipped[s] / (double)cap);
    }
    printf("\n");
    return lo;
}

static int inproc(const char *mib, int runs, const char *dir) {
    char base[4096];
    snprintf(base, sizeof base, "%s/live_dump_%%p.bb", dir);
    setenv("BACKBEAT_PATH", base, 1);
    configure(mib);
    uint64_t cap = (uint64_t)atoi(mib) << 20;
    pthread_t t[WRITERS];
    start_writers(t);
    nap_ms(1000);
    double lo = 2;
    for (int r = 0; r < runs; r++) {
        char path[4096];
        bb_error err;
        double t0 = now_s();
        if (bb_global_dump(path, sizeof path, &err) != BB_OK) {
            printf("   bb_global_dump: %s\n", err.message);
            break;
        }
        double s = now_s() - t0, k = report("inproc", r, path, cap, s);
        lo = k < lo ? k : lo;
        unlink(path);
        nap_ms(50);
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < WRITERS; i++) pthread_join(t[i], NULL);
    printf("   inproc, %s MiB shards: lowest shard %.1f%%\n", mib, 100 * lo);
    return 0;
}

/* The child of `outside`: records until killed, a marker every 20 ms. */
static void child(const char *mib, const char *dir) {
    setenv("BACKBEAT_RING_DIR", dir, 1);
    configure(mib);
    pthread_t t[WRITERS];
    start_writers(t);
    for (uint64_t n = 0;; n++) {
        BB_GRECORD(ld_mark, .n = n);
        nap_ms(20);
    }
}

/* The ring file of process `pid` in dir. */
static int ring_of(const char *dir, pid_t pid, char *out, size_t cap) {
    char prefix[64];
    snprintf(prefix, sizeof prefix, "backbeat.%ld.", (long)pid);
    for (int tries = 0; tries < 200; tries++) {
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (!strncmp(e->d_name, prefix, strlen(prefix)) && strstr(e->d_name, ".ring")) {
                int n = snprintf(out, cap, "%s/%s", dir, e->d_name);
                closedir(d);
                return n > 0 && (size_t)n < cap ? 0 : -1;
            }
        if (d) closedir(d);
        nap_ms(10);
    }
    return -1;
}

/* Run argv, its stdout to /dev/null; its exit status. */
static int run(char *const *argv) {
    pid_t p = fork();
    if (p == 0) {
        if (!freopen("/dev/null", "w", stdout)) _exit(126);
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    waitpid(p, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The one file DIR/watch.* (the dump watch wrote), moved to `out`. */
static int take_watch_dump(const char *dir, const char *out) {
    DIR *d = opendir(dir);
    struct dirent *e;
    int rc = -1;
    while (d && (e = readdir(d)))
        if (!strncmp(e->d_name, "watch.", 6) && strstr(e->d_name, ".bb") && rc) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            rc = rename(p, out);
        }
    if (d) closedir(d);
    return rc;
}

static int outside(const char *mib, int runs, const char *dir, const char *cli) {
    char rdir[4096], ring[4096], out[4096];
    snprintf(rdir, sizeof rdir, "%s/live_dump_rings", dir);
    mkdir(rdir, 0755);
    pid_t pid = fork();
    if (pid == 0) child(mib, rdir);
    if (ring_of(rdir, pid, ring, sizeof ring)) {
        printf("   no ring file of the child in %s\n", rdir);
        kill(pid, SIGKILL);
        return 1;
    }
    uint64_t cap = (uint64_t)atoi(mib) << 20;
    nap_ms(300);
    snprintf(out, sizeof out, "%s/live_dump_out.bb", dir);
    double lo[2] = {2, 2};
    for (int r = 0; r < runs; r++) {
        char *argv[] = {(char *)cli, "recover", ring, "-o", out, "--force", NULL};
        double t0 = now_s();
        int rc = run(argv);
        double s = now_s() - t0;
        if (rc) printf("   recover --force exited %d\n", rc);
        double k = rc ? 0 : report("recover", r, out, cap, s);
        lo[0] = k < lo[0] ? k : lo[0];
        unlink(out);
        nap_ms(50);
    }
    for (int r = 0; r < runs; r++) {
        char *argv[] = {(char *)cli, "watch", "--when", "bench::live::Mark", "--max", "1", "-o",
                        (char *)dir, ring,    NULL};
        double t0 = now_s();
        int rc = run(argv);
        double s = now_s() - t0;
        if (rc || take_watch_dump(dir, out)) printf("   watch exited %d (or wrote no dump)\n", rc);
        double k = rc ? 0 : report("watch", r, out, cap, s);
        lo[1] = k < lo[1] ? k : lo[1];
        unlink(out);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    unlink(ring);
    rmdir(rdir);
    printf("   outside, %s MiB shards: lowest shard recover --force %.1f%%, watch %.1f%%\n", mib,
           100 * lo[0], 100 * lo[1]);
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* nothing buffered is copied into the children */
    if (argc < 5 || (strcmp(argv[1], "inproc") && strcmp(argv[1], "outside")) ||
        (!strcmp(argv[1], "outside") && argc < 6)) {
        fprintf(stderr, "usage: live_dump inproc|outside MIB RUNS DIR [BACKBEAT_CLI]\n");
        return 2;
    }
    int runs = atoi(argv[3]);
    if (!strcmp(argv[1], "inproc")) return inproc(argv[2], runs, argv[4]);
    return outside(argv[2], runs, argv[4], argv[5]);
}
