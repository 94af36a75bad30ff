/* tail_test.c — `backbeat tail` against real processes (issue 22), each scenario bounded:
 *   follow  8 writer threads record self-checking per-thread counters (ring_child "paced")
 *           while `tail --follow --format jsonl` runs; a plugin registers a new event halfway;
 *           the process exits normally. Every printed record is checked against its writer
 *           (check value, no duplicate), the new event is printed, every thread's last record
 *           is printed (drained), tail exits 0 by itself, and the records not printed are
 *           covered by the bytes reported lost (none lost: none missing). Prints the follow
 *           latency (median, p99: print time minus record timestamp).
 *   flood   the same with writers as fast as they go on small rings (ring_child "heavy"):
 *           losses reported, and still no foreign or duplicate record; SIGINT ends tail, exit 0.
 *   dead    a SIGKILLed process's file: tail prints its records and exits 0, with and without
 *           --follow.
 *   truncated  (issue 43.1) two writers in one directory followed with `tail --follow --scan`
 *           and watched with `top --scan`; one ring file is truncated to 8 KiB under them: the
 *           readers name that file ("truncated under the reader"), go on with the other one
 *           (its records keep coming) and exit 1 (not 135, SIGBUS). The truncated file's
 *           writer dies of SIGBUS (docs/RING_FILE.md "A truncated ring file").
 *   rewritten  (issue 43.6) the same two writers; one file's metadata log overwritten under
 *           them: both files' records keep coming, tail and top exit 0 (what was taken from
 *           the log was copied when taken, never decoded from the file again).
 *   headjump  (issue 43.8) one file's heads jumped forward by 2^62, the other's set back to 0
 *           under the same two readers: named as such, never counted as bytes lost; exit 0.
 *   rate    (a figure, not in ctest: scripts/bench.sh section `live`) the record rate a
 *           `tail --follow --format jsonl` keeps up with: 2 paced writer threads on 1 MiB rings
 *           at rising rates, 2 s each; per rate the records written, printed and the bytes
 *           reported lost (tail's output counted as it comes, by lines).
 * Usage: tail_test SCENARIO (77 where ring files cannot be made). */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../capture/ring/ring_check.h"
#include "../capture/ring/ring_proc.h"
#include "../support/check.h"
#include "format/ring_file.h"

#define THREADS 8
#define FRAME 42 /* ring_test::Rec: 24 field bytes + 18 */

static char g_dir[64], g_err[128];

typedef struct tally {
    uint8_t *seen[THREADS]; /* bitmap of seqs printed */
    uint64_t max[THREADS], first[THREADS];
    bool any[THREADS];
    size_t lines, bad, dup, late;
    double *lat;
    size_t nlat, cap;
} tally;

static double now_real(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t field(const char *line, const char *key) {
    const char *p = strstr(line, key);
    if (!p) return UINT64_MAX;
    p += strlen(key);
    if (*p == '"') p++;
    return strtoull(p, NULL, 10);
}

static void take_line(tally *t, const char *line) {
    t->lines++;
    if (strstr(line, "\"event\":\"ring_plugin::Late\"")) {
        t->late++;
        return;
    }
    uint64_t th = field(line, "\"thread\":"), seq = field(line, "\"seq\":");
    uint64_t check = field(line, "\"check\":"), ts = field(line, "\"ts_nanos\":");
    if (th >= THREADS || seq >= (UINT64_C(1) << 27) || check != ring_check(th, seq)) {
        t->bad++;
        return;
    }
    if (t->nlat == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 4096;
        t->lat = realloc(t->lat, t->cap * sizeof *t->lat);
    }
    t->lat[t->nlat++] = now_real() - (double)ts;
    if (!t->seen[th]) t->seen[th] = calloc(1, 1u << 24); /* 2^27 bits */
    if (t->seen[th][seq >> 3] & (1u << (seq & 7))) t->dup++;
    t->seen[th][seq >> 3] |= (uint8_t)(1u << (seq & 7));
    if (!t->any[th] || seq < t->first[th]) t->first[th] = seq;
    if (!t->any[th] || seq > t->max[th]) t->max[th] = seq;
    t->any[th] = true;
}

/* Start `backbeat tail ARGS`; its stdout on *out, stderr into g_err. */
static pid_t start_tail(char *const *args, FILE **out) {
    int p[2];
    if (pipe(p) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        int e = open(g_err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(p[1], 1);
        dup2(e, 2);
        close(p[0]);
        alarm(90);
        execv(BB_CLI, args);
        _exit(127);
    }
    close(p[1]);
    *out = fdopen(p[0], "r");
    return pid;
}

static void read_all(FILE *f, tally *t) {
    char line[4096];
    while (fgets(line, sizeof line, f)) take_line(t, line);
    fclose(f);
}

static int wait_exit(pid_t pid) {
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Bytes reported lost, and the reports. */
static uint64_t losses(size_t *reports) {
    FILE *f = fopen(g_err, "r");
    char line[1024];
    uint64_t lost = 0;
    *reports = 0;
    while (f && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, " lost ");
        if (p) {
            lost += strtoull(p + 6, NULL, 10);
            (*reports)++;
        }
    }
    if (f) fclose(f);
    return lost;
}

/* The records between each thread's first printed one and `last[t]` that were not printed. */
static uint64_t missing(const tally *t, const uint64_t *last) {
    uint64_t n = 0;
    for (int th = 0; th < THREADS; th++)
        for (uint64_t s = t->first[th]; t->any[th] && s <= last[th]; s++)
            n += !(t->seen[th][s >> 3] & (1u << (s & 7)));
    return n;
}

/* Show what tail said (on a failure). */
static void show_err(void) {
    FILE *f = fopen(g_err, "r");
    char line[1024];
    for (int n = 0; f && n < 20 && fgets(line, sizeof line, f); n++)
        fprintf(stderr, "tail: %s", line);
    if (f) fclose(f);
}

/* The first lines of a reader's stderr file, after a failed check. */
static void show_file(const char *who, const char *path) {
    FILE *f = fopen(path, "r");
    char line[1024];
    for (int n = 0; f && n < 20 && fgets(line, sizeof line, f); n++)
        fprintf(stderr, "%s: %s", who, line);
    if (f) fclose(f);
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void tally_free(tally *t) {
    for (int i = 0; i < THREADS; i++) free(t->seen[i]);
    free(t->lat);
}

static bool spawn(ring_child *c, char **args, const char *bytes, char *ring, size_t cap) {
    char env_dir[128], env_bytes[64];
    snprintf(env_dir, sizeof env_dir, "BACKBEAT_RING_DIR=%s", g_dir);
    snprintf(env_bytes, sizeof env_bytes, "BACKBEAT_BYTES=%s", bytes);
    char *env[] = {env_dir, env_bytes, "BACKBEAT_ENABLE=1", "BACKBEAT_SHARDS=2", NULL};
    if (!ring_spawn(c, BB_RING_CHILD, args, env, NULL)) return false;
    for (int k = 0; k < 500; k++) { /* the file appears at the recorder's creation */
        if (ring_find(g_dir, ring, cap) == 1) return true;
        nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
    return false;
}

static void follow(void) {
    ring_child c;
    char ring[512];
    char *args[] = {"paced", "8", "5", "1500", BB_RING_PLUGIN, NULL};
    if (!spawn(&c, args, "1M", ring, sizeof ring)) {
        CHECK(0, "spawn");
        return;
    }
    FILE *out;
    char *targs[] = {"backbeat", "tail", "--follow", "--format", "jsonl", ring, NULL};
    pid_t tail = start_tail(targs, &out);
    tally t;
    memset(&t, 0, sizeof t);
    read_all(out, &t);
    int st = wait_exit(tail);
    uint64_t last[THREADS] = {0}, msg[2];
    while (ring_report(&c, msg))
        if (msg[0] < THREADS && msg[1]) last[msg[0]] = msg[1] - 1;
    CHECK(ring_wait(&c) == 0, "the writer did not exit normally");
    size_t reports;
    uint64_t lost = losses(&reports), miss = missing(&t, last);
    CHECK(st == 0, "tail exited %d", st);
    if (st) show_err();
    CHECK(t.bad == 0 && t.dup == 0, "%zu foreign or torn, %zu duplicate records", t.bad, t.dup);
    CHECK(t.late > 0, "the event registered mid-run was not printed");
    for (int th = 0; th < THREADS; th++)
        CHECK(t.any[th] && t.max[th] == last[th], "thread %d: last printed %llu, wrote %llu", th,
              (unsigned long long)t.max[th], (unsigned long long)last[th]);
    CHECK(miss * FRAME <= lost + FRAME * reports, "%llu records missing, %llu bytes reported lost",
          (unsigned long long)miss, (unsigned long long)lost);
    qsort(t.lat, t.nlat, sizeof *t.lat, cmp_d);
    if (t.nlat)
        printf("follow: %zu lines, %llu lost bytes (%zu reports), %llu missing; latency median "
               "%.1f ms, p99 %.1f ms\n",
               t.lines, (unsigned long long)lost, reports, (unsigned long long)miss,
               t.lat[t.nlat / 2] / 1e6, t.lat[t.nlat * 99 / 100] / 1e6);
    tally_free(&t);
}

static void flood(void) {
    ring_child c;
    char ring[512];
    char *args[] = {"heavy", "8", "nopin", NULL};
    if (!spawn(&c, args, "64k", ring, sizeof ring)) {
        CHECK(0, "spawn");
        return;
    }
    FILE *out;
    char *targs[] = {"backbeat", "tail", "-f", "--format", "jsonl", ring, NULL};
    pid_t tail = start_tail(targs, &out);
    tally t;
    memset(&t, 0, sizeof t);
    /* SIGINT only once tail prints (its handler is installed by then, even when a sanitized
     * build starts slowly beside 8 flooding writers), then a while of flooding. */
    char first[4096];
    if (fgets(first, sizeof first, out)) take_line(&t, first);
    nanosleep(&(struct timespec){1, 0}, NULL);
    kill(tail, SIGINT);
    read_all(out, &t);
    int rc = wait_exit(tail);
    CHECK(rc == 0, "tail did not exit 0 on SIGINT (%d)", rc);
    if (rc != 0) show_err();
    size_t reports;
    uint64_t lost = losses(&reports);
    CHECK(t.bad == 0 && t.dup == 0, "%zu foreign or torn, %zu duplicate records", t.bad, t.dup);
    CHECK(t.lines > 0, "nothing printed");
    printf("flood: %zu lines, %llu bytes lost in %zu reports\n", t.lines, (unsigned long long)lost,
           reports);
    ring_kill(&c);
    unlink(ring);
    tally_free(&t);
}

static void dead(void) {
    ring_child c;
    char ring[512];
    char *args[] = {"heavy", "2", "nopin", NULL};
    if (!spawn(&c, args, "64k", ring, sizeof ring)) {
        CHECK(0, "spawn");
        return;
    }
    uint64_t msg[2];
    for (int k = 0; k < 8 && ring_report(&c, msg); k++) {}
    ring_kill(&c);
    for (int f = 0; f < 2; f++) {
        FILE *out;
        char *targs[] = {"backbeat", "tail", f ? "--follow" : "--format=jsonl", ring, NULL};
        pid_t tail = start_tail(targs, &out);
        tally t;
        memset(&t, 0, sizeof t);
        read_all(out, &t);
        CHECK(wait_exit(tail) == 0, "tail %s of a dead process's file failed", targs[2]);
        CHECK(t.lines > 1000 && t.bad == 0 && t.dup == 0, "%s: %zu lines, %zu bad, %zu dup",
              targs[2], t.lines, t.bad, t.dup);
        tally_free(&t);
    }
    unlink(ring);
}

/* The ring file of dir other than `not` (into out[cap]); false if none. */
static bool other_ring(const char * not, char *out, size_t cap) {
    DIR *d = opendir(g_dir);
    struct dirent *e;
    bool found = false;
    while (d && !found && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 5, ".ring")) continue;
        snprintf(out, cap, "%s/%s", g_dir, e->d_name);
        found = strcmp(out, not ) != 0;
    }
    if (d) closedir(d);
    return found;
}

static bool err_says(const char *what) {
    char text[8192] = "";
    FILE *f = fopen(g_err, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = 0;
    if (f) fclose(f);
    return strstr(text, what) != NULL;
}

/* Two paced writers (one thread, 1 record per ms, 6 s) in g_dir; their ring files. */
static bool two_writers(ring_child c[2], char a[512], char b[512]) {
    char *args[] = {"paced", "1", "1", "6000", NULL};
    if (!spawn(&c[0], args, "64k", a, 512)) return false;
    char env_dir[128];
    snprintf(env_dir, sizeof env_dir, "BACKBEAT_RING_DIR=%s", g_dir);
    char *env[] = {env_dir, "BACKBEAT_BYTES=64k", "BACKBEAT_ENABLE=1", "BACKBEAT_SHARDS=2", NULL};
    if (!ring_spawn(&c[1], BB_RING_CHILD, args, env, NULL)) return false;
    for (int k = 0; k < 500; k++) {
        if (other_ring(a, b, 512)) return true;
        nanosleep(&(struct timespec){0, 2000000}, NULL);
    }
    return false;
}

/* Take tail's lines for `secs` seconds (it prints 1 record per ms per live writer). */
static void read_for(FILE *f, tally *t, double secs) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    char line[4096];
    do {
        if (!fgets(line, sizeof line, f)) return;
        take_line(t, line);
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < secs);
}

/* `backbeat top` in the background: stdout to out, stderr to err. */
static pid_t start_top(char *const *args, const char *out, const char *err) {
    pid_t pid = fork();
    if (pid == 0) {
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(o, 1);
        dup2(e, 2);
        alarm(90);
        execv(BB_CLI, args);
        _exit(127);
    }
    return pid;
}

/* Whether the file holds `what` anywhere (the whole file is read: top's output of 15 intervals
 * runs past any fixed buffer). */
static bool file_says(const char *path, const char *what) {
    FILE *f = fopen(path, "r");
    if (!f) return false;
    size_t cap = 1 << 16, n = 0;
    char *text = malloc(cap);
    while (text) {
        n += fread(text + n, 1, cap - n - 1, f);
        if (n < cap - 1) break;
        char *grown = realloc(text, cap *= 2);
        if (!grown) free(text);
        text = grown;
    }
    fclose(f);
    if (!text) return false;
    text[n] = 0;
    bool found = strstr(text, what) != NULL;
    free(text);
    return found;
}

static void truncated(void) {
    ring_child c[2];
    char a[512], b[512], topout[128], toperr[128];
    if (!two_writers(c, a, b)) {
        CHECK(0, "spawn");
        return;
    }
    snprintf(topout, sizeof topout, "%s/top.out", g_dir);
    snprintf(toperr, sizeof toperr, "%s/top.err", g_dir);
    char *top[] = {"backbeat",     "top", "--scan",   g_dir,   "--interval", "100",
                   "--iterations", "15",  "--format", "jsonl", NULL};
    pid_t tp = start_top(top, topout, toperr);
    FILE *out;
    char *targs[] = {"backbeat", "tail", "--follow", "--format", "jsonl", "--scan", g_dir, NULL};
    pid_t tail = start_tail(targs, &out);
    tally t;
    memset(&t, 0, sizeof t);
    read_for(out, &t, 0.4); /* top and tail have read both files (the pipe kept drained) */
    CHECK(truncate(b, 8192) == 0, "truncate %s: %s", b, strerror(errno));
    read_for(out, &t, 0.3);
    size_t before = t.lines; /* the other writer's records still come */
    read_for(out, &t, 0.5);
    kill(tail, SIGINT);
    read_all(out, &t);
    int st = wait_exit(tail), ts = wait_exit(tp);
    CHECK(st == 1, "tail --follow --scan exited %d (expected 1: a file failed)", st);
    CHECK(t.lines >= before + 100, "the other file's watch ended (%zu lines after the truncation)",
          t.lines - before);
    CHECK(err_says("truncated under the reader") && err_says(b), "tail did not name the file");
    if (st != 1) show_err();
    CHECK(ts == 1, "top --scan exited %d (expected 1: a file failed)", ts);
    bool named = file_says(toperr, "truncated under the reader") && file_says(toperr, b);
    CHECK(named, "top did not name the file");
    if (!named || ts != 1) show_file("top", toperr);
    CHECK(file_says(topout, "{\"iteration\":15,"), "top did not go on to its last iteration");
    printf("truncated: tail exit %d, %zu lines (%zu after the truncation), top exit %d\n", st,
           t.lines, t.lines - before, ts);
    unlink(topout);
    unlink(toperr);
    for (int i = 0; i < 2; i++) ring_kill(&c[i]);
    unlink(a);
    unlink(b);
    tally_free(&t);
}

/* Take tail's lines for `secs` seconds; the number of them that name `inst` (16 hex). */
static size_t read_inst(FILE *f, tally *t, double secs, const char *inst) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    char line[4096], want[64];
    snprintf(want, sizeof want, "\"instance_id\":\"%s\"", inst);
    size_t n = 0;
    do {
        if (!fgets(line, sizeof line, f)) break;
        take_line(t, line);
        n += strstr(line, want) != NULL;
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9 < secs);
    return n;
}

/* The metadata log of ring file `path` (its region per the header) overwritten with 0xA5. */
static bool rewrite_log(const char *path) {
    int fd = open(path, O_RDWR);
    uint64_t meta = 0, len = 0;
    bool ok = fd >= 0 && pread(fd, &meta, 8, BB_RH_META_OFF) == 8 &&
              pread(fd, &len, 8, BB_RH_META_LEN) == 8 && len > 0 && len < (1u << 26);
    uint8_t *junk = ok ? malloc((size_t)len) : NULL;
    if (junk) memset(junk, 0xA5, (size_t)len);
    ok = junk && pwrite(fd, junk, (size_t)len, (off_t)meta) == (ssize_t)len;
    free(junk);
    if (fd >= 0) close(fd);
    return ok;
}

/* (issue 43.6) The metadata log of one of two followed ring files rewritten under tail
 * --follow --scan and top --scan: what they took from it was copied when taken, so both files'
 * records keep coming and both exit 0 (was exit 1, "section 0 (schema) truncated": the
 * schemas were encoded again from the shared mapping). */
static void rewritten(void) {
    ring_child c[2];
    char a[512], b[512], topout[128], toperr[128];
    if (!two_writers(c, a, b)) {
        CHECK(0, "spawn");
        return;
    }
    const char *base = strrchr(b, '/') ? strrchr(b, '/') + 1 : b, *dot = strrchr(base, '.');
    char inst[17] = "";
    if (dot && dot - base > 16) memcpy(inst, dot - 16, 16);
    snprintf(topout, sizeof topout, "%s/top.out", g_dir);
    snprintf(toperr, sizeof toperr, "%s/top.err", g_dir);
    char *top[] = {"backbeat",     "top", "--scan",   g_dir,   "--interval", "100",
                   "--iterations", "15",  "--format", "jsonl", NULL};
    pid_t tp = start_top(top, topout, toperr);
    FILE *out;
    char *targs[] = {"backbeat", "tail", "--follow", "--format", "jsonl", "--scan", g_dir, NULL};
    pid_t tail = start_tail(targs, &out);
    tally t;
    memset(&t, 0, sizeof t);
    size_t early = read_inst(out, &t, 0.4, inst);
    /* a slow build (TSan) may not have printed that file yet: wait for it, 10 s at most */
    for (int k = 0; early == 0 && k < 40; k++) early += read_inst(out, &t, 0.25, inst);
    CHECK(rewrite_log(b), "rewrite the log of %s: %s", b, strerror(errno));
    read_inst(out, &t, 0.2, inst);
    size_t after = read_inst(out, &t, 0.5, inst); /* the rewritten file's records still come */
    kill(tail, SIGINT);
    read_all(out, &t);
    int st = wait_exit(tail), ts = wait_exit(tp);
    CHECK(early > 0, "no record of %s before the rewrite", inst);
    CHECK(after >= 100, "the rewritten file's watch ended (%zu of its lines after)", after);
    CHECK(st == 0, "tail --follow --scan exited %d (expected 0)", st);
    CHECK(t.bad == 0, "%zu lines that are not their writer's records", t.bad);
    if (st != 0) show_err();
    CHECK(ts == 0, "top --scan exited %d (expected 0)", ts);
    CHECK(file_says(topout, "{\"iteration\":15,"), "top did not go on to its last iteration");
    if (ts != 0) CHECK(!file_says(toperr, "backbeat"), "top said something");
    printf("rewritten: tail exit %d, %zu lines, %zu of the rewritten file after the rewrite; top "
           "exit %d\n",
           st, t.lines, after, ts);
    unlink(topout);
    unlink(toperr);
    for (int i = 0; i < 2; i++) ring_kill(&c[i]);
    unlink(a);
    unlink(b);
    tally_free(&t);
}

/* Ring `shard`'s head in ring file `path` set to f(head) (the writer's cursor, shared). */
static bool poke_head(const char *path, uint32_t shard, bool jump) {
    int fd = open(path, O_RDWR);
    uint64_t cursors = 0, head = 0;
    off_t at = 0;
    bool ok = fd >= 0 && pread(fd, &cursors, 8, BB_RH_CURSORS_OFF) == 8;
    at = (off_t)(cursors + (uint64_t)shard * BB_RING_CURSOR_STRIDE + BB_RC_HEAD);
    ok = ok && pread(fd, &head, 8, at) == 8;
    head = jump ? head + ((uint64_t)1 << 62) : 0;
    ok = ok && pwrite(fd, &head, 8, at) == 8;
    if (fd >= 0) close(fd);
    return ok;
}

/* (issue 43.8) A head that jumps forward by 2^62 (file b) or back to 0 (file a) under tail
 * --follow --scan and top --scan: named as such ("head jumped", "head went back"), never
 * reported or summed as bytes lost (was "lost 9223372036846261188 bytes"); both exit 0. */
static void headjump(void) {
    ring_child c[2];
    char a[512], b[512], topout[128], toperr[128];
    if (!two_writers(c, a, b)) {
        CHECK(0, "spawn");
        return;
    }
    snprintf(topout, sizeof topout, "%s/top.out", g_dir);
    snprintf(toperr, sizeof toperr, "%s/top.err", g_dir);
    char *top[] = {"backbeat",     "top", "--scan",   g_dir,   "--interval", "100",
                   "--iterations", "12",  "--format", "jsonl", NULL};
    pid_t tp = start_top(top, topout, toperr);
    FILE *out;
    char *targs[] = {"backbeat", "tail", "--follow", "--format", "jsonl", "--scan", g_dir, NULL};
    pid_t tail = start_tail(targs, &out);
    tally t;
    memset(&t, 0, sizeof t);
    read_for(out, &t, 0.4);
    bool poked = true;
    for (uint32_t i = 0; i < 2; i++) poked &= poke_head(b, i, true) && poke_head(a, i, false);
    CHECK(poked, "poke the heads: %s", strerror(errno));
    read_for(out, &t, 0.8);
    kill(tail, SIGINT);
    read_all(out, &t);
    int st = wait_exit(tail), ts = wait_exit(tp);
    CHECK(st == 0, "tail exited %d (expected 0)", st);
    CHECK(err_says("head jumped from") && err_says(b), "tail did not name the jump");
    CHECK(err_says("head went back from") && err_says(a), "tail did not name the step back");
    CHECK(!err_says(" lost 46") && !err_says(" lost 92") && !err_says(" lost 18"),
          "tail reported the jump as bytes lost");
    if (st != 0 || !err_says("head jumped")) show_err();
    CHECK(ts == 0, "top exited %d (expected 0)", ts);
    CHECK(file_says(toperr, "head jumped from") && file_says(toperr, "head went back from"),
          "top did not name the jump and the step back");
    bool summed = false; /* no writer laps top here: every total stays 0 */
    for (char d = '1'; d <= '9'; d++) {
        char what[32];
        snprintf(what, sizeof what, "\"lost_bytes_total\":%c", d);
        summed |= file_says(topout, what);
    }
    CHECK(!summed, "top counted the jump as bytes lost");
    printf("headjump: tail exit %d, %zu lines; top exit %d\n", st, t.lines, ts);
    unlink(topout);
    unlink(toperr);
    for (int i = 0; i < 2; i++) ring_kill(&c[i]);
    unlink(a);
    unlink(b);
    tally_free(&t);
}

/* Lines on `f` (a cheap count: the reader of tail's output must not be what falls behind). */
static uint64_t count_lines(FILE *f) {
    char buf[1 << 16];
    uint64_t n = 0;
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        for (const char *p = buf; (p = memchr(p, '\n', (size_t)(buf + got - p))); p++) n++;
    fclose(f);
    return n;
}

/* One paced run at `per_ms` records per millisecond per thread, followed by tail. */
static bool rate_once(int per_ms, int ms) {
    ring_child c;
    char ring[512], r[16], d[16];
    snprintf(r, sizeof r, "%d", per_ms);
    snprintf(d, sizeof d, "%d", ms);
    char *args[] = {"paced", "2", r, d, NULL};
    if (!spawn(&c, args, "1M", ring, sizeof ring)) return false;
    FILE *out;
    char *targs[] = {"backbeat", "tail", "--follow", "--format", "jsonl", ring, NULL};
    pid_t tail = start_tail(targs, &out);
    uint64_t lines = count_lines(out), msg[2], written = 0;
    int st = wait_exit(tail);
    while (ring_report(&c, msg)) written += msg[1];
    ring_wait(&c);
    size_t reports;
    uint64_t lost = losses(&reports);
    printf("  %6d/ms/thread  %10.0f records/s written  %9llu written  %9llu printed  %9llu bytes "
           "lost (%zu reports, ~%llu records)%s\n",
           per_ms, (double)written * 1000.0 / ms, (unsigned long long)written,
           (unsigned long long)lines, (unsigned long long)lost, reports,
           (unsigned long long)(lost / FRAME), st ? "  tail failed" : "");
    return st == 0;
}

static void rate(void) {
    static const int steps[] = {50, 100, 200, 300, 400, 600, 800, 1600, 3200};
    printf("rate: tail --follow --format jsonl of 2 paced writer threads (ring_child paced: R "
           "records, then a 1 ms sleep), 1 MiB rings x 2 shards, 2 s per rate; records not\n"
           "      printed beyond those reported lost were overwritten before tail's first read "
           "(it starts at the oldest record held)\n");
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
        CHECK(rate_once(steps[i], 2000), "rate %d", steps[i]);
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    snprintf(g_dir, sizeof g_dir, "/tmp/bb_tail_XXXXXX");
    if (!mkdtemp(g_dir)) return 77;
    snprintf(g_err, sizeof g_err, "%s/tail.err", g_dir);
    ring_child_stderr = "/dev/null";
    if (!strcmp(argv[1], "follow")) follow();
    else if (!strcmp(argv[1], "flood")) flood();
    else if (!strcmp(argv[1], "dead")) dead();
    else if (!strcmp(argv[1], "truncated")) truncated();
    else if (!strcmp(argv[1], "rewritten")) rewritten();
    else if (!strcmp(argv[1], "headjump")) headjump();
    else if (!strcmp(argv[1], "rate")) rate();
    else return 2;
    unlink(g_err);
    rmdir(g_dir);
    return failures ? 1 : 0;
}
