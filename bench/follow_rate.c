/* follow_rate.c — the follow table of issue 37 ("Follow at the writer's speed"): one writer
 * process (one thread pinned to CPU 1, paced at an offered rate R for MS ms) records into a ring
 * file (bb_recorder_create_ring: 2 shards x 16 MiB, the BACKBEAT_RING_DIR defaults) while one
 * follower pinned to CPU 0 reads it: (api) the record-level follow call in process
 * (bb_ring_follow_records), counting records; (apidump) the dump-based call (bb_ring_follow,
 * then the dump opened and walked), counting records; (watch) `backbeat watch` with a rule
 * that never fires; (top) `backbeat top --format jsonl`;
 * (tail) `backbeat tail --follow --format jsonl > file`. Per rate and follower: the records
 * written, seen (counted, printed), the loss the follower reported (bytes, and records of the
 * one frame size), whether seen + lost == written (the loss is exact), and the rate seen over
 * the writer's time. `watch` counts nothing it saw: its row shows written - lost (`~`), not
 * checked. Figures, not thresholds (scripts/bench.sh section `follow`).
 * Usage: follow_rate BACKBEAT_CLI [MS] [DIR] [RATE_M...] (defaults 2000, /dev/shm, 3 6 12 20);
 * BB_FOLLOW_ONLY=api|apidump|watch|top|tail runs one follower only; for the api follower,
 * BB_FOLLOW_TRACE=FILE writes a line per follow call (its cost) and BB_FOLLOW_PRIO=fifo|nice
 * raises its priority. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <backbeat/backbeat.h>
#include <backbeat/reader.h>
#include <backbeat/ring_reader.h>

BB_EVENT(fr_tick, "bench::follow", "Tick", "A paced record.",
         BB_FIELD(uint64_t, seq, "The writer's record number."),
         BB_FIELD(uint64_t, val, "A value no rule matches."));

#define SHARD_BYTES ((uint64_t)16 << 20)
#define MODES 5
static const char *const mode_name[MODES] = {"api", "apidump", "watch", "top", "tail"};
enum { API, APIDUMP, WATCH, TOP, TAIL };

static const char *g_cli, *g_dir;
static int g_ms = 2000;
static char g_work[512];

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu % (int)sysconf(_SC_NPROCESSORS_ONLN), &set);
    sched_setaffinity(0, sizeof set, &set);
}

static void nap_ms(int ms) {
    nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000L}, NULL);
}

/* ---- the writer ------------------------------------------------------------------------------ */

typedef struct writer {
    pid_t pid;
    int go, done; /* go: the parent's end of "start"; done: {written, ns, bytes} */
    char path[512];
} writer;

/* In the child: create the ring, say where, wait for "go", record `rate` records per second
 * (checked every 64 records) for g_ms, report and exit (the file is kept: the parent removes
 * it once every follower is done). */
static void writer_main(double rate, int info, int go) {
    pin(1);
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 2;
    o.bytes_per_shard = SHARD_BYTES;
    bb_recorder *rec;
    bb_error err;
    if (bb_recorder_create_ring(&o, g_dir, true, &rec, &err) != BB_OK) {
        fprintf(stderr, "follow_rate: %s\n", err.message);
        _exit(3);
    }
    char path[512] = {0};
    snprintf(path, sizeof path, "%s", bb_recorder_ring_path(rec));
    char c;
    if (write(info, path, sizeof path) != (ssize_t)sizeof path || read(go, &c, 1) != 1) _exit(4);
    bb_recorder_enable(rec, true);
    uint64_t t0 = now_ns(), end = t0 + (uint64_t)g_ms * 1000000u, n = 0, t = t0;
    while (t < end) {
        uint64_t target = (uint64_t)(rate * (double)(t - t0) / 1e9);
        for (uint64_t k = 0; n < target && k < 64; k++, n++)
            BB_RECORD(rec, fr_tick, .seq = n, .val = n & 0xff);
        t = now_ns();
    }
    uint64_t msg[2] = {n, now_ns() - t0};
    if (write(info, msg, sizeof msg) != (ssize_t)sizeof msg) _exit(5);
    bb_recorder_free(rec);
    _exit(0);
}

static bool writer_start(writer *w, double rate) {
    int info[2], go[2];
    if (pipe(info) || pipe(go)) return false;
    fflush(NULL);
    w->pid = fork();
    if (w->pid < 0) return false;
    if (w->pid == 0) {
        close(info[0]);
        close(go[1]);
        writer_main(rate, info[1], go[0]);
    }
    close(info[1]);
    close(go[0]);
    w->go = go[1];
    w->done = info[0];
    return read(w->done, w->path, sizeof w->path) == (ssize_t)sizeof w->path;
}

/* Written records and the writer's time; the writer reaped. */
static bool writer_finish(writer *w, uint64_t *written, uint64_t *ns) {
    uint64_t msg[2] = {0, 0};
    bool ok = read(w->done, msg, sizeof msg) == (ssize_t)sizeof msg;
    int st;
    waitpid(w->pid, &st, 0);
    close(w->done);
    close(w->go);
    *written = msg[0];
    *ns = msg[1];
    return ok && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* A Tick's frame: 16 field bytes, 8 of timestamp, 8 of event id, 2 of length. */
#define FRAME 34u

/* The bytes the writer's heads advanced by beyond its records' frames: frames a writer
 * preempted in the middle of a record leaves (the reader skips them; a loss's byte count
 * takes those of its range). */
static uint64_t filler_of(const char *path, uint64_t written) {
    bb_ring *r;
    bb_error err;
    if (!written || bb_ring_open(path, &r, &err) != BB_OK) return 0;
    uint32_t n = bb_ring_get_info(r)->shards;
    bb_ring_cursor cur[8];
    memset(cur, 0, sizeof cur);
    for (uint32_t i = 0; i < n && i < 8; i++) cur[i].pos = BB_RING_NOW;
    void *mem = NULL;
    size_t len;
    uint64_t bytes = 0;
    if (n <= 8 && bb_ring_follow(r, cur, &mem, &len, &err) == BB_OK)
        for (uint32_t i = 0; i < n; i++) bytes += cur[i].head;
    bb_ring_buffer_free(mem);
    bb_ring_close(r);
    return bytes > written * FRAME ? bytes - written * FRAME : 0;
}

/* ---- the followers --------------------------------------------------------------------------- */

typedef struct result {
    uint64_t seen, lost_bytes;
    double cpu_s; /* the follower's user + system time */
    bool have_seen, failed;
} result;

static int count_rec(const bb_record *r, void *ctx) {
    (void)r;
    ++*(uint64_t *)ctx;
    return 0;
}

static int count_new(void *ctx, const bb_ring_record *r) {
    (void)r;
    ++*(uint64_t *)ctx;
    return 0;
}

/* One follow call of the API's (`records`: bb_ring_follow_records, else bb_ring_follow and its
 * dump walked), the records counted into *seen. */
static void follow_once(bb_ring *r, bb_ring_cursor *cur, bool records, const char *path,
                        uint64_t *seen) {
    bb_error err;
    if (records) {
        if (bb_ring_follow_records(r, cur, count_new, seen, &err) != BB_OK) _exit(5);
        return;
    }
    void *mem = NULL;
    size_t len;
    bb_dump *d;
    if (bb_ring_follow(r, cur, &mem, &len, &err) != BB_OK ||
        bb_dump_open_memory(mem, len, path, &d, &err) != BB_OK)
        _exit(5);
    for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
        const bb_rinstance *in = bb_dump_instance(d, i);
        for (size_t k = 0; k < in->shard_count; k++)
            bb_shard_walk(d, &in->shards[k], count_rec, seen, NULL);
    }
    bb_dump_close(d);
    bb_ring_buffer_free(mem);
}

/* BB_FOLLOW_PRIO=fifo|nice (api only): the follower as SCHED_FIFO 1, or at nice -10, when
 * allowed (whether a higher priority keeps a follower on a shared CPU; issue 37). */
static void prio_from_env(void) {
    const char *v = getenv("BB_FOLLOW_PRIO");
    if (v && !strcmp(v, "fifo")) {
        struct sched_param sp = {.sched_priority = 1};
        if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) perror("follow_rate: SCHED_FIFO");
    } else if (v && !strcmp(v, "nice")) {
        if (setpriority(PRIO_PROCESS, 0, -10) != 0) perror("follow_rate: nice -10");
    }
}

/* BB_FOLLOW_TRACE=FILE (api only): per follow call, a line of what it cost — wall, on-CPU and
 * run-queue wait (/proc/self/schedstat) in us, minor faults, records, bytes and loss reported,
 * whether it followed a nap, and the time since the last call returned (the slow calls of issue
 * 37, attributed). */
typedef struct trace_row {
    uint64_t wall, cpu, rq, flt, recs, bytes, lost, napped, since;
} trace_row;

static uint64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t runq_ns(void) {
    unsigned long long run = 0, wait = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (f && fscanf(f, "%llu %llu", &run, &wait) != 2) wait = 0;
    if (f) fclose(f);
    return wait;
}

static uint64_t minflt(void) {
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (uint64_t)ru.ru_minflt;
}

static void trace_write(const char *path, const trace_row *t, size_t n) {
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "wall_us cpu_us rq_us minflt recs bytes lost napped since_us\n");
    for (size_t k = 0; k < n; k++)
        fprintf(f, "%.1f %.1f %.1f %llu %llu %llu %llu %llu %.1f\n", (double)t[k].wall / 1e3,
                (double)t[k].cpu / 1e3, (double)t[k].rq / 1e3, (unsigned long long)t[k].flt,
                (unsigned long long)t[k].recs, (unsigned long long)t[k].bytes,
                (unsigned long long)t[k].lost, (unsigned long long)t[k].napped,
                (double)t[k].since / 1e3);
    fclose(f);
}

/* The follow API in process: every record counted, every loss summed, until the writer is
 * gone and a last call found nothing new. Reports {seen, lost bytes} on `out`. */
static void api_main(const char *path, bool records, int ready, int out) {
    pin(0);
    prio_from_env();
    bb_ring *r;
    bb_error err;
    if (bb_ring_open(path, &r, &err) != BB_OK) _exit(3);
    uint32_t n = bb_ring_get_info(r)->shards;
    bb_ring_cursor *cur = calloc(n, sizeof *cur); /* pos 0: a loss from the start is counted */
    if (!cur || write(ready, "r", 1) != 1) _exit(4);
    uint64_t seen = 0, lost = 0;
    const char *tpath = getenv("BB_FOLLOW_TRACE");
    size_t tn = 0, tcap = tpath ? 1u << 20 : 0;
    trace_row *tr = tcap ? calloc(tcap, sizeof *tr) : NULL;
    bool napped = false;
    uint64_t last_end = 0; /* when the last traced call returned */
    for (;;) {
        bool gone = bb_ring_liveness(r) == BB_RING_GONE;
        uint64_t before = seen, w0 = 0, c0 = 0, q0 = 0, f0 = 0;
        if (tr) {
            w0 = now_ns(), c0 = thread_cpu_ns(), q0 = runq_ns(), f0 = minflt();
        }
        follow_once(r, cur, records, path, &seen);
        if (tr && tn < tcap) {
            trace_row *t = &tr[tn++];
            t->wall = now_ns() - w0, t->cpu = thread_cpu_ns() - c0, t->rq = runq_ns() - q0;
            t->flt = minflt() - f0, t->recs = seen - before, t->napped = napped;
            t->since = tn > 1 ? w0 - last_end : 0;
            last_end = now_ns();
            for (uint32_t i = 0; i < n; i++) t->bytes += cur[i].bytes, t->lost += cur[i].lost;
        }
        for (uint32_t i = 0; i < n; i++) lost += cur[i].lost;
        if (gone) break;
        napped = seen == before;
        if (napped) nap_ms(1);
    }
    if (tr) trace_write(tpath, tr, tn);
    uint64_t msg[2] = {seen, lost};
    if (write(out, msg, sizeof msg) != (ssize_t)sizeof msg) _exit(6);
    _exit(0);
}

/* Exec the CLI pinned to CPU 0, stdout and stderr to files. */
static pid_t spawn_cli(char *const *args, const char *out, const char *errf) {
    fflush(NULL);
    pid_t p = fork();
    if (p != 0) return p;
    pin(0);
    int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0) _exit(126);
    execv(g_cli, args);
    _exit(127);
}

/* Bytes reported lost in lines "... lost N bytes ..." of `errf`. */
static uint64_t lost_in(const char *errf) {
    FILE *f = fopen(errf, "r");
    char line[2048];
    uint64_t sum = 0;
    while (f && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, " lost ");
        unsigned long long b;
        if (p && sscanf(p, " lost %llu bytes", &b) == 1) sum += b;
    }
    if (f) fclose(f);
    return sum;
}

static uint64_t lines_in(const char *path) {
    FILE *f = fopen(path, "r");
    char buf[1 << 16];
    uint64_t n = 0;
    size_t got;
    while (f && (got = fread(buf, 1, sizeof buf, f)) > 0)
        for (const char *p = buf; (p = memchr(p, '\n', (size_t)(buf + got - p))); p++) n++;
    if (f) fclose(f);
    return n;
}

/* top's last "process" row: records_total and lost_bytes_total. */
static bool top_totals(const char *path, result *res) {
    FILE *f = fopen(path, "r");
    char line[4096];
    bool got = false;
    while (f && fgets(line, sizeof line, f)) {
        const char *a = strstr(line, "\"records_total\":"),
                   *b = strstr(line, "\"lost_bytes_total\":");
        if (!strstr(line, "\"process\"") || !a || !b) continue;
        unsigned long long x, y;
        if (sscanf(a, "\"records_total\":%llu", &x) == 1 &&
            sscanf(b, "\"lost_bytes_total\":%llu", &y) == 1) {
            res->seen = x;
            res->lost_bytes = y;
            got = true;
        }
    }
    if (f) fclose(f);
    return got;
}

static int wait_pid(pid_t p, double *cpu_s) {
    int st;
    struct rusage ru;
    if (wait4(p, &st, 0, &ru) != p) return -1;
    *cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
             (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* One rate, one follower: run it, fill *res, *written, *ns, *frame. */
static bool run_one(int mode, double rate, result *res, uint64_t *written, uint64_t *ns,
                    uint64_t *filler) {
    memset(res, 0, sizeof *res);
    writer w;
    if (!writer_start(&w, rate)) return false;
    char out[600], errf[600], iters[32];
    snprintf(out, sizeof out, "%s/follow.out", g_work);
    snprintf(errf, sizeof errf, "%s/follow.err", g_work);
    snprintf(iters, sizeof iters, "%d", g_ms / 100 + 12); /* the run, then 1.2 s to drain */
    char *watch_args[] = {"backbeat", "watch", "--when", "bench::follow::Tick val > 1000000",
                          "-o",       g_work,  w.path,   NULL};
    char *top_args[] = {"backbeat", "top",          "--format", "jsonl", "--interval",
                        "100",      "--iterations", iters,      w.path,  NULL};
    char *tail_args[] = {"backbeat", "tail", "--follow", "--format", "jsonl", w.path, NULL};
    char *const *args[MODES] = {NULL, NULL, watch_args, top_args, tail_args};
    int pfd[2] = {-1, -1}, rfd[2] = {-1, -1};
    pid_t f;
    if (mode == API || mode == APIDUMP) {
        if (pipe(pfd) || pipe(rfd)) return false;
        fflush(NULL);
        if ((f = fork()) == 0) api_main(w.path, mode == API, rfd[1], pfd[1]);
        close(pfd[1]);
        close(rfd[1]);
        char c;
        if (read(rfd[0], &c, 1) != 1) res->failed = true;
        close(rfd[0]);
    } else {
        f = spawn_cli(args[mode], out, errf);
        nap_ms(300); /* the follower opens the file and reads its heads */
    }
    if (write(w.go, "g", 1) != 1) res->failed = true;
    bool ok = writer_finish(&w, written, ns);
    *filler = filler_of(w.path, *written);
    if (mode == WATCH) {
        nap_ms(500);
        kill(f, SIGINT);
    }
    int st = wait_pid(f, &res->cpu_s);
    if (mode == API || mode == APIDUMP) {
        uint64_t msg[2];
        res->have_seen = read(pfd[0], msg, sizeof msg) == (ssize_t)sizeof msg;
        res->seen = msg[0];
        res->lost_bytes = msg[1];
        close(pfd[0]);
    } else if (mode == TOP) {
        res->have_seen = top_totals(out, res);
    } else {
        res->lost_bytes = lost_in(errf);
        res->have_seen = mode == TAIL;
        if (mode == TAIL) res->seen = lines_in(out);
    }
    res->failed |= st != 0 || !ok;
    unlink(out);
    unlink(errf);
    unlink(w.path);
    return true;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: follow_rate BACKBEAT_CLI [MS] [DIR] [RATE_M...]\n");
        return 2;
    }
    g_cli = argv[1];
    if (argc > 2) g_ms = atoi(argv[2]);
    if (g_ms < 200) g_ms = 200;
    g_dir = argc > 3 ? argv[3] : "/dev/shm";
    double rates[16] = {3, 6, 12, 20};
    int nrates = 4;
    if (argc > 4) {
        nrates = 0;
        for (int i = 4; i < argc && nrates < 16; i++) rates[nrates++] = atof(argv[i]);
    }
    snprintf(g_work, sizeof g_work, "%s/bb_follow_XXXXXX", g_dir);
    if (!mkdtemp(g_work)) {
        fprintf(stderr, "follow_rate: cannot create a directory in %s: %s\n", g_dir,
                strerror(errno));
        return 1;
    }
    const char *only = getenv("BB_FOLLOW_ONLY"); /* one follower: api, apidump, watch, top, tail */
    double load[3] = {0, 0, 0};
    getloadavg(load, 3);
    printf("== follow: one writer thread (CPU 1, paced, %d ms, 2 shards x 16 MiB ring file in %s) "
           "followed from CPU 0; load average %.2f %.2f %.2f\n",
           g_ms, g_dir, load[0], load[1], load[2]);
    printf("   %-7s %8s %8s %11s %11s %11s %6s %6s %8s %7s %8s\n", "who", "offered", "written",
           "records", "seen", "lost rec", "exact", "seen %", "seen M/s", "cpu s", "cpu ns/r");
    for (int r = 0; r < nrates; r++) {
        for (int m = 0; m < MODES; m++) {
            if (only && strcmp(only, mode_name[m])) continue;
            result res;
            uint64_t written = 0, ns = 1, filler = 0;
            if (!run_one(m, rates[r] * 1e6, &res, &written, &ns, &filler)) {
                printf("   %-7s %6.0f M  could not run\n", mode_name[m], rates[r]);
                continue;
            }
            uint64_t lost = res.lost_bytes / FRAME;
            /* exact: seen + lost == written, but for the filler bytes in the lost ranges (a
             * frame's worth of them reads as one more record lost) */
            int64_t diff = (int64_t)(res.seen + lost) - (int64_t)written;
            bool exact = res.have_seen && diff >= 0 && (uint64_t)diff * FRAME <= filler;
            char seen[32] = "n/a", exact_s[24] = "n/a", pct[16] = "n/a", mps[16] = "n/a",
                 nsr[16] = "n/a";
            if (!res.have_seen && m == WATCH &&
                written >= lost) { /* watch counts nothing: derived */
                uint64_t d = written - lost;
                snprintf(seen, sizeof seen, "~%llu", (unsigned long long)d);
                snprintf(pct, sizeof pct, "~%.1f", 100.0 * (double)d / (double)written);
                if (d) snprintf(nsr, sizeof nsr, "~%.0f", res.cpu_s * 1e9 / (double)d);
            }
            if (res.have_seen) {
                snprintf(seen, sizeof seen, "%llu", (unsigned long long)res.seen);
                snprintf(exact_s, sizeof exact_s, "%s%+d", exact ? "" : "NO", (int)diff);
                snprintf(pct, sizeof pct, "%.1f",
                         written ? 100.0 * (double)res.seen / (double)written : 0);
                snprintf(mps, sizeof mps, "%.2f", (double)res.seen * 1e3 / (double)ns);
                if (res.seen) snprintf(nsr, sizeof nsr, "%.1f", res.cpu_s * 1e9 / (double)res.seen);
            }
            printf("   %-7s %6.0f M %6.2f M %11llu %11s %11llu %8s %6s %8s %7.2f %8s%s\n",
                   mode_name[m], rates[r], (double)written * 1e3 / (double)ns,
                   (unsigned long long)written, seen, (unsigned long long)lost, exact_s, pct, mps,
                   res.cpu_s, nsr, res.failed ? "  (failed)" : "");
            fflush(stdout);
        }
    }
    rmdir(g_work);
    return 0;
}
