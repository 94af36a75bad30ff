/* top_test.c — `backbeat top` against real processes (issue 22), each scenario bounded:
 *   rates  a process (2 threads, ring file in a --scan directory that also holds a FIFO and a
 *          garbage file named like ring files) waits until `top --iterations 3 --interval 500
 *          --format jsonl --shards` has printed its first interval, then writes exactly NA
 *          records of event A from one thread and NB of event B from another and goes quiet; a
 *          second process appears meanwhile and writes NC. Checked: the counts per event and
 *          per process are exact (none in interval 1, all by the end), shard rows add up to the
 *          process row, records_per_sec is records / elapsed, nothing lost, both bad entries
 *          named as skipped, exit 1 after 3 intervals (files were skipped, issue 43).
 *   dead   a SIGKILLed process's file: state "gone", no record counted, exit 0 (jsonl and text:
 *          the text has no ANSI escape when stdout is not a terminal).
 *   args   usage errors exit 2 naming the problem; a missing file or a FIFO exits 1 at once.
 *   signal top without --iterations ends with exit 0 on SIGINT and on SIGTERM.
 * Usage: top_test SCENARIO (77 where ring files cannot be made). */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backbeat/backbeat.h"
#include "../support/check.h"

BB_EVENT(ev_a, "top_test", "A", "event A", BB_FIELD(uint64_t, seq, "its number"));
BB_EVENT(ev_b, "top_test", "B", "event B", BB_FIELD(uint64_t, seq, "its number"));

#define NA 3000
#define NB 1700
#define NC 900

static char g_dir[64], g_err[128];

/* ---- the writing process ------------------------------------------------------------------ */

typedef struct job {
    bb_recorder *rec;
    int which, count;
} job;

static void *writer(void *arg) {
    job *j = arg;
    for (int i = 0; i < j->count; i++) {
        if (j->which == 0) BB_RECORD(j->rec, ev_a, .seq = (uint64_t)i);
        else BB_RECORD(j->rec, ev_b, .seq = (uint64_t)i);
    }
    return NULL;
}

/* Fork a process that creates a ring file in g_dir, says so on its pipe, waits for a byte on
 * `go` (when >= 0), writes na records of A and nb of B from two threads, says so, and waits to
 * be killed. */
static pid_t spawn_writer(int go, int na, int nb, int *report) {
    int p[2];
    if (pipe(p) != 0) return -1;
    pid_t pid = fork();
    if (pid != 0) {
        close(p[1]);
        *report = p[0];
        return pid;
    }
    close(p[0]);
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 2;
    o.bytes_per_shard = 1 << 20;
    bb_recorder *rec = NULL;
    bb_error err;
    if (bb_recorder_create_ring(&o, g_dir, false, &rec, &err) != BB_OK) _exit(77);
    bb_recorder_enable(rec, true);
    char c = 'r';
    if (write(p[1], &c, 1) != 1) _exit(9);
    if (go >= 0 && read(go, &c, 1) != 1) _exit(9);
    job j[2] = {{rec, 0, na}, {rec, 1, nb}};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) pthread_create(&th[i], NULL, writer, &j[i]);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    c = 'd';
    if (write(p[1], &c, 1) != 1) _exit(9);
    for (;;) pause();
}

static bool wait_byte(int fd) {
    char c;
    return read(fd, &c, 1) == 1;
}

static void kill_wait(pid_t pid) {
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* ---- running top ---------------------------------------------------------------------------- */

/* Start the CLI with args (NULL-terminated after "top"), stdout into a pipe, stderr into
 * g_err. */
static pid_t spawn_top(char *const *args, FILE **out) {
    int p[2];
    if (pipe(p) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], 1);
        int e = open(g_err, O_WRONLY | O_CREAT | O_APPEND, 0600);
        dup2(e, 2);
        close(p[0]);
        char *argv[32] = {"backbeat", "top"};
        for (int i = 0; args[i] && i < 29; i++) argv[i + 2] = args[i];
        execv(BB_CLI, argv);
        _exit(127);
    }
    close(p[1]);
    *out = fdopen(p[0], "r");
    return pid;
}

static int finish(pid_t pid) {
    int st;
    if (waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Run top to the end; its whole stdout in *text (malloc'd), its exit status returned. */
static int run_top(char *const *args, char **text) {
    FILE *f = NULL;
    pid_t pid = spawn_top(args, &f);
    size_t cap = 1 << 16, len = 0;
    *text = calloc(cap, 1);
    for (size_t n; f && (n = fread(*text + len, 1, cap - 1 - len, f)) > 0;) len += n;
    if (f) fclose(f);
    return finish(pid);
}

static uint64_t num(const char *line, const char *key) {
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = strstr(line, k);
    if (!p) return UINT64_MAX;
    p += strlen(k);
    if (*p == '"') p++;
    return strtoull(p, NULL, 10);
}

static double real(const char *line, const char *key) {
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = strstr(line, k);
    return p ? strtod(p + strlen(k), NULL) : -1.0;
}

static bool file_has(const char *path, const char *what) {
    char buf[8192] = "";
    FILE *f = fopen(path, "r");
    if (!f) return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return strstr(buf, what) != NULL;
}

/* ---- scenarios ------------------------------------------------------------------------------ */

typedef struct tally {
    pid_t a, c;
    uint64_t ev_a, ev_b, ev_c, proc_a, proc_c, first, lost, rows, iters;
    uint64_t shard_sum[4], proc_it[4];
    unsigned bad_rate;
} tally;

static void take(tally *t, const char *line) {
    uint64_t pid = num(line, "pid"), it = num(line, "iteration"), n = num(line, "records");
    uint64_t el = num(line, "elapsed_nanos");
    double rate = real(line, "records_per_sec"), want = el ? (double)n * 1e9 / (double)el : 0;
    t->rows++;
    if (it > t->iters) t->iters = it;
    if (rate < want * 0.999 - 0.1 || rate > want * 1.001 + 0.1) t->bad_rate++;
    bool ev = strstr(line, "\"row\":\"event\"") != NULL, is_a = strstr(line, "\"top_test::A\"");
    if (pid == (uint64_t)t->a && ev) {
        if (it == 1) t->first += n;
        *(is_a ? &t->ev_a : &t->ev_b) += n;
    } else if (pid == (uint64_t)t->c && ev && is_a) {
        t->ev_c += n;
    } else if (strstr(line, "\"row\":\"process\"")) {
        *(pid == (uint64_t)t->a ? &t->proc_a : &t->proc_c) += n;
        if (pid == (uint64_t)t->a && it < 4) t->proc_it[it] += n;
        t->lost += num(line, "lost_bytes");
    } else if (strstr(line, "\"row\":\"shard\"") && pid == (uint64_t)t->a && it < 4) {
        t->shard_sum[it] += n;
    }
}

static int rates(void) {
    char junk[128], fifo[128];
    snprintf(fifo, sizeof fifo, "%s/backbeat.1.fifo.ring", g_dir);
    snprintf(junk, sizeof junk, "%s/backbeat.2.junk.ring", g_dir);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo: %s", strerror(errno));
    FILE *j = fopen(junk, "w");
    if (j) fputs("not a ring file at all, just words\n", j), fclose(j);
    int go[2], ra, rc;
    if (pipe(go) != 0) return 1;
    tally t = {0};
    t.a = spawn_writer(go[0], NA, NB, &ra);
    if (!wait_byte(ra)) return 77; /* no ring file here */
    char *args[] = {"--scan", g_dir,      "--iterations", "3",        "--interval",
                    "500",    "--format", "jsonl",        "--shards", NULL};
    FILE *out = NULL;
    pid_t top = spawn_top(args, &out);
    char line[4096];
    bool started = false;
    while (out && fgets(line, sizeof line, out)) {
        take(&t, line);
        if (started || num(line, "iteration") != 1) continue;
        started = true; /* top has been following since before this line: go */
        CHECK(write(go[1], "g", 1) == 1, "go");
        CHECK(wait_byte(ra), "writer A did not finish");
        t.c = spawn_writer(-1, NC, 0, &rc);
        CHECK(wait_byte(rc) && wait_byte(rc), "writer C did not finish");
    }
    if (out) fclose(out);
    /* the FIFO and the junk file were named and skipped: exit 1 (issue 43) */
    CHECK(finish(top) == 1, "top did not exit 1 after 3 iterations (2 files skipped)");
    CHECK(started && t.iters == 3, "iterations printed: %llu", (unsigned long long)t.iters);
    CHECK(t.first == 0, "interval 1 counted %llu records written after it",
          (unsigned long long)t.first);
    CHECK(t.ev_a == NA && t.ev_b == NB, "events A %llu (want %d), B %llu (want %d)",
          (unsigned long long)t.ev_a, NA, (unsigned long long)t.ev_b, NB);
    CHECK(t.proc_a == NA + NB, "process A: %llu records", (unsigned long long)t.proc_a);
    CHECK(t.ev_c == NC && t.proc_c == NC, "process C (appeared later): %llu / %llu records",
          (unsigned long long)t.ev_c, (unsigned long long)t.proc_c);
    for (int i = 1; i <= 3; i++)
        CHECK(t.shard_sum[i] == t.proc_it[i], "iteration %d: shards %llu, process %llu", i,
              (unsigned long long)t.shard_sum[i], (unsigned long long)t.proc_it[i]);
    CHECK(t.bad_rate == 0, "%u rows whose records_per_sec is not records / elapsed", t.bad_rate);
    CHECK(t.lost == 0, "%llu bytes reported lost", (unsigned long long)t.lost);
    CHECK(file_has(g_err, "skipped: ") && file_has(g_err, "fifo.ring") &&
              file_has(g_err, "junk.ring"),
          "the FIFO and the garbage file are not named as skipped");
    printf("rates: %llu rows; A %llu/%d, B %llu/%d, C %llu/%d\n", (unsigned long long)t.rows,
           (unsigned long long)t.ev_a, NA, (unsigned long long)t.ev_b, NB,
           (unsigned long long)t.ev_c, NC);
    kill_wait(t.a);
    if (t.c > 0) kill_wait(t.c);
    unlink(fifo);
    unlink(junk);
    return 0;
}

static bool find_ring(char *out, size_t cap) {
    char cmd[160];
    snprintf(cmd, sizeof cmd, "ls %s/backbeat.*.ring 2>/dev/null", g_dir);
    FILE *p = popen(cmd, "r");
    bool ok = p && fgets(out, (int)cap, p);
    if (p) pclose(p);
    if (ok) out[strcspn(out, "\n")] = 0;
    return ok;
}

static int dead(void) {
    int r;
    pid_t pid = spawn_writer(-1, 10, 10, &r);
    if (!wait_byte(r)) return 77;
    CHECK(wait_byte(r), "the writer did not finish");
    kill_wait(pid);
    char path[256], *text = NULL;
    if (!find_ring(path, sizeof path)) return 1;
    char *a1[] = {"--once", "--interval", "100", "--format", "jsonl", path, NULL};
    CHECK(run_top(a1, &text) == 0, "jsonl: exit status");
    CHECK(strstr(text, "\"state\":\"gone\"") && num(text, "records") == 0 &&
              num(text, "pid") == (uint64_t)pid,
          "jsonl of a dead process: %s", text);
    free(text);
    char *a2[] = {"--once", "--interval", "100", path, NULL};
    CHECK(run_top(a2, &text) == 0, "text: exit status");
    CHECK(strstr(text, "RING FILE") && strstr(text, " gone ") && !strchr(text, '\033'),
          "text of a dead process: %s", text);
    free(text);
    unlink(path);
    return 0;
}

static void usage_case(char *const *args, int want, const char *msg) {
    char *text = NULL;
    unlink(g_err);
    int st = run_top(args, &text);
    CHECK(st == want && file_has(g_err, msg), "top %s ...: exit %d (want %d), stderr lacks '%s'",
          args[0] ? args[0] : "", st, want, msg);
    CHECK(text[0] == 0, "output on an error: %s", text);
    free(text);
}

static int args(void) {
    char fifo[128];
    snprintf(fifo, sizeof fifo, "%s/backbeat.3.fifo.ring", g_dir);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
    usage_case((char *[]){NULL}, 2, "no ring file given");
    usage_case((char *[]){"--interval", "0", "x", NULL}, 2, "--interval takes a number");
    usage_case((char *[]){"--interval", "abc", "x", NULL}, 2, "--interval takes a number");
    usage_case((char *[]){"--iterations", "0", "x", NULL}, 2, "--iterations takes a number");
    usage_case((char *[]){"--format", "xml", "x", NULL}, 2, "--format is text or jsonl");
    usage_case((char *[]){"--scan", g_dir, "x", NULL}, 2, "--scan takes only a directory");
    usage_case((char *[]){"--bogus", "x", NULL}, 2, "unknown option '--bogus'");
    usage_case((char *[]){"--interval", NULL}, 2, "needs a value");
    usage_case((char *[]){"--once", "/nonexistent/backbeat.1.x.ring", NULL}, 1, "nonexistent");
    usage_case((char *[]){"--once", fifo, NULL}, 1, "fifo.ring");
    usage_case((char *[]){"--once", "--scan", "/nonexistent-dir", NULL}, 1, "cannot list");
    unlink(fifo);
    return 0;
}

static int stop_on(int sig) {
    FILE *out = NULL;
    char *a[] = {"--scan", g_dir, "--interval", "100", NULL};
    pid_t top = spawn_top(a, &out);
    char line[4096];
    CHECK(out && fgets(line, sizeof line, out), "no first interval");
    kill(top, sig);
    while (out && fgets(line, sizeof line, out)) {}
    if (out) fclose(out);
    return finish(top);
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    snprintf(g_dir, sizeof g_dir, "/tmp/bb_top_test.XXXXXX");
    if (!mkdtemp(g_dir)) return 1;
    snprintf(g_err, sizeof g_err, "%s/top.err", g_dir);
    int st = 2;
    if (!strcmp(argv[1], "rates")) st = rates();
    else if (!strcmp(argv[1], "dead")) st = dead();
    else if (!strcmp(argv[1], "args")) st = args();
    else if (!strcmp(argv[1], "signal")) {
        CHECK(stop_on(SIGINT) == 0, "exit status after SIGINT");
        CHECK(stop_on(SIGTERM) == 0, "exit status after SIGTERM");
        st = 0;
    }
    unlink(g_err);
    rmdir(g_dir);
    if (st) return st;
    return failures ? 1 : 0;
}
