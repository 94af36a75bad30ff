/* e2e_test.c — end-to-end tests of the global recorder with real child processes.
 *
 * Runs child.c (path in BB_CHILD) in a fresh directory with BACKBEAT_* variables, then checks
 * what it left behind with the library's reader and, for the signal-triggered dump, with the
 * CLI (`backbeat convert`, path in BB_CLI). argv[1] names the scenario (one ctest each). No
 * timing assertion: every wait is a generous poll on a condition.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include <backbeat/reader.h>

#include "global/global_internal.h"
#include "gtest_util.h"
#include "json.h"

#ifndef BB_CHILD
#error "BB_CHILD must name the child program"
#endif

typedef struct child {
    pid_t pid;
    int in, out, err; /* our ends: child's stdin (write), stdout and stderr (read) */
} child;

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* Start BB_CHILD with args and extra "K=V" variables (NULL-terminated lists). Every BACKBEAT_
 * variable of our own environment is removed first. */
static child spawn(const char *const *args, const char *const *env) {
    int pin[2], pout[2], perr[2];
    if (pipe(pin) || pipe(pout) || pipe(perr)) {
        perror("pipe");
        exit(2);
    }
    child c = {.pid = fork()};
    if (c.pid < 0) {
        perror("fork");
        exit(2);
    }
    if (c.pid == 0) {
        dup2(pin[0], 0);
        dup2(pout[1], 1);
        dup2(perr[1], 2);
        for (int fd = 3; fd < 64; fd++) close(fd);
        struct rlimit nocore = {0, 0};
        setrlimit(RLIMIT_CORE, &nocore);
        extern char **environ;
        for (char **e = environ; *e;) {
            if (!strncmp(*e, "BACKBEAT_", 9) && strncmp(*e, "BACKBEAT_COMPAT_DIR=", 20)) {
                char name[128];
                size_t n = strcspn(*e, "=");
                snprintf(name, sizeof name, "%.*s", (int)n, *e);
                unsetenv(name);
            } else {
                e++;
            }
        }
        /* sanitizers must let our crash handlers run (and not count the recorder as a leak) */
        setenv("ASAN_OPTIONS",
               "handle_segv=0:handle_abort=0:handle_sigbus=0:handle_sigill=0:handle_sigfpe=0:"
               "allow_user_segv_handler=1",
               1);
        setenv("UBSAN_OPTIONS", "handle_segv=0:handle_abort=0:handle_sigbus=0:handle_sigfpe=0", 1);
        setenv("TSAN_OPTIONS",
               "handle_segv=0:handle_abort=0:handle_sigbus=0:handle_sigill=0:handle_sigfpe=0:"
               "die_after_fork=0",
               1);
        for (; env && *env; env++) putenv((char *)*env);
        const char *argv[16] = {BB_CHILD};
        int n = 1;
        for (; args && *args && n < 15; args++) argv[n++] = *args;
        argv[n] = NULL;
        execv(BB_CHILD, (char **)argv);
        _exit(127);
    }
    close(pin[0]);
    close(pout[1]);
    close(perr[1]);
    c.in = pin[1];
    c.out = pout[0];
    c.err = perr[0];
    return c;
}

/* Read fd until EOF into a malloc'ed string. */
static char *slurp(int fd) {
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    for (;;) {
        if (len + 1024 > cap) s = realloc(s, cap *= 2);
        ssize_t n = read(fd, s + len, cap - len - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        len += (size_t)n;
    }
    s[len] = '\0';
    close(fd);
    return s;
}

/* Read one line from the child's stdout (waits up to 30 s). */
static bool read_line(child *c, char *buf, size_t cap) {
    size_t len = 0;
    while (len + 1 < cap) {
        struct pollfd p = {.fd = c->out, .events = POLLIN};
        if (poll(&p, 1, 30000) <= 0) break;
        ssize_t n = read(c->out, buf + len, 1);
        if (n <= 0) break;
        if (buf[len] == '\n') {
            buf[len] = '\0';
            return true;
        }
        len++;
    }
    buf[len] = '\0';
    return false;
}

/* Close stdin, collect stdout/stderr, wait. Returns the wait status. */
static int finish(child *c, char **out, char **err) {
    close(c->in);
    char *o = slurp(c->out), *e = slurp(c->err);
    int status = 0;
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR) {}
    if (out) *out = o;
    else free(o);
    if (err) *err = e;
    else free(e);
    return status;
}

static int count_lines_with(const char *text, const char *needle) {
    int n = 0;
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        char line[2048];
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        if (strstr(line, needle)) n++;
        p += len + (eol ? 1 : 0);
    }
    return n;
}

/* Dumps named prefix*.bb in dir, waiting up to 30 s for at least `want`. */
static int wait_dumps(const char *dir, const char *prefix, int want) {
    int n = 0;
    for (int i = 0; i < 3000 && (n = gt_list(dir, prefix, ".bb", NULL, 0)) < want; i++)
        sleep_ms(10);
    return n;
}

/* What a dump holds of the test's ticks. */
typedef struct ticks {
    int instances;
    uint64_t instance_id;
    uint64_t count[3]; /* per phase */
    uint64_t max_seq;
    bool any;
    bool pid_ok; /* every tick carries `pid`, and so does the dump's Process section */
    uint64_t pid;
    size_t shards;
    uint64_t capacity; /* of the first shard */
    char host[256];
} ticks;

typedef struct walk_ctx {
    ticks *t;
    const bb_rinstance *inst;
} walk_ctx;

static int field_index(const bb_rschema *s, const char *name) {
    for (size_t i = 0; i < s->field_count; i++)
        if (s->fields[i].name.len == strlen(name) &&
            !memcmp(s->fields[i].name.ptr, name, s->fields[i].name.len))
            return (int)i;
    return -1;
}

static int on_record(const bb_record *r, void *vctx) {
    walk_ctx *w = vctx;
    const bb_rschema *s = r->schema;
    if (s->name.len != 12 || memcmp(s->name.ptr, "bbtest::Tick", 12) != 0) return 0;
    int fs = field_index(s, "seq"), fp = field_index(s, "pid"), fph = field_index(s, "phase");
    if (fs < 0 || fp < 0 || fph < 0) return 0;
    uint64_t seq = bb_decode_field(s, (size_t)fs, r->fields, w->inst).u;
    uint64_t pid = bb_decode_field(s, (size_t)fp, r->fields, w->inst).u;
    uint64_t phase = bb_decode_field(s, (size_t)fph, r->fields, w->inst).u;
    if (phase < 3) w->t->count[phase]++;
    if (!w->t->any || seq > w->t->max_seq) w->t->max_seq = seq;
    if (w->t->pid && pid != w->t->pid) w->t->pid_ok = false;
    w->t->any = true;
    return 0;
}

/* Open and walk a dump; `pid` (0 = any) is the pid every tick must carry. */
static bool read_ticks(const char *path, uint64_t pid, ticks *t) {
    memset(t, 0, sizeof *t);
    t->pid = pid;
    t->pid_ok = true;
    bb_dump *d;
    bb_error err;
    if (bb_dump_open(path, &d, &err) != BB_OK) {
        fprintf(stderr, "cannot read %s: %s\n", path, err.message);
        return false;
    }
    t->instances = (int)bb_dump_instance_count(d);
    for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
        const bb_rinstance *inst = bb_dump_instance(d, i);
        t->instance_id = inst->instance_id;
        t->shards = inst->shard_count;
        t->capacity = inst->shard_count ? inst->shards[0].capacity : 0;
        snprintf(t->host, sizeof t->host, "%.*s", (int)inst->host.len, inst->host.ptr);
        /* the dump names the process that wrote it (its Process section, issue 38) */
        if (pid && (!inst->has_process || inst->pid != pid)) t->pid_ok = false;
        walk_ctx w = {t, inst};
        for (size_t s = 0; s < inst->shard_count; s++)
            bb_shard_walk(d, &inst->shards[s], on_record, &w, NULL);
    }
    bb_dump_close(d);
    return true;
}

static char g_dir[1024];

static void path_in(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", g_dir, name);
}

static char *env_kv(const char *k, const char *v) {
    char *s = malloc(strlen(k) + strlen(v) + 2);
    sprintf(s, "%s=%s", k, v);
    return s;
}

static char *g_path_env; /* BACKBEAT_PATH=<dir>/<stem>.bb */

static void set_path(const char *stem) {
    char p[2048];
    snprintf(p, sizeof p, "%s/%s.bb", g_dir, stem);
    g_path_env = env_kv("BACKBEAT_PATH", p);
}

/* Only dump from the file list: the single one whose name starts with prefix. */
static bool only_dump(const char *prefix, char *out, size_t cap) {
    char *names[4];
    int n = gt_list(g_dir, prefix, ".bb", names, 4);
    if (n != 1) {
        fprintf(stderr, "expected one %s*.bb in %s, found %d\n", prefix, g_dir, n);
        gt_free_names(names, n < 4 ? n : 4);
        return false;
    }
    snprintf(out, cap, "%s/%s", g_dir, names[0]);
    gt_free_names(names, 1);
    return true;
}

/* ---- scenarios ----------------------------------------------------------------------- */

/* A program traced only through the environment; kill -USR1 gives a dump the CLI converts;
 * exit gives another. */
static void sc_traced(void) {
    set_path("t");
    const char *env[] = {"BACKBEAT_ENABLE=1",
                         "BACKBEAT_SIGNAL=usr1",
                         "BACKBEAT_DUMP_ON_EXIT=1",
                         "BACKBEAT_SHARDS=2",
                         "BACKBEAT_BYTES=64k",
                         "BACKBEAT_HOST=e2e-host",
                         g_path_env,
                         NULL};
    const char *args[] = {"traced", NULL};
    child c = spawn(args, env);
    char line[256];
    CHECK(read_line(&c, line, sizeof line) && !strcmp(line, "ready"));
    CHECK(kill(c.pid, SIGUSR1) == 0);
    CHECK(wait_dumps(g_dir, "t.", 1) == 1);
    char dump[2048];
    if (only_dump("t.", dump, sizeof dump)) {
        ticks t;
        CHECK(read_ticks(dump, (uint64_t)c.pid, &t));
        CHECK(t.instances == 1);
        CHECK(t.count[0] == 100 && t.max_seq == 99 && t.pid_ok);
        CHECK(t.shards == 2 && t.capacity == 65536);
        CHECK(!strcmp(t.host, "e2e-host"));
        /* the CLI converts it (when this build has one) */
        char out[2048], cmd[8192];
        if (!BB_CLI[0]) {
            fprintf(stderr, "no backbeat CLI in this build: dump checked with the reader only\n");
            goto no_cli;
        }
        path_in(out, sizeof out, "t.json");
        snprintf(cmd, sizeof cmd, "'%s' convert '%s' -o '%s'", BB_CLI, dump, out);
        int rc = system(cmd);
        CHECK(rc == 0);
        char perr[256];
        json_value *j = json_parse_file(out, perr, sizeof perr);
        CHECK(j != NULL);
        if (j) {
            const json_value *evs = json_get(j, "traceEvents");
            if (!evs) evs = j;
            size_t ticks_seen = 0;
            uint64_t seq_sum = 0;
            for (size_t i = 0; i < json_len(evs); i++) {
                const json_value *ev = json_at(evs, i);
                const json_value *name = json_get(ev, "name");
                const char *s = name ? json_str(name) : NULL;
                if (!s || strcmp(s, "bbtest::Tick") != 0) continue;
                ticks_seen++;
                uint64_t seq = 0;
                CHECK(json_u64(json_get(json_get(ev, "args"), "seq"), &seq));
                seq_sum += seq;
            }
            CHECK(ticks_seen == 100);
            CHECK(seq_sum == 99 * 100 / 2); /* seq 0..99, each once */
            json_free(j);
        }
    }
no_cli:;
    char *err;
    int status = finish(&c, NULL, &err);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(count_lines_with(err, "backbeat[") == 0);
    if (*err) fprintf(stderr, "child stderr:\n%s", err);
    free(err);
    CHECK(gt_list(g_dir, "t.", ".bb", NULL, 0) == 2); /* the USR1 dump and the exit dump */
    CHECK(gt_list(g_dir, "", "tmp", NULL, 0) == 0);
}

/* A crash leaves a readable dump with the last events and the process dies by its signal. */
static void sc_crash(const char *mode, int sig) {
    set_path("c");
    const char *env[] = {"BACKBEAT_ENABLE=1", "BACKBEAT_DUMP_ON_CRASH=1",
                         "BACKBEAT_SHARDS=2", "BACKBEAT_BYTES=64k",
                         g_path_env,          NULL};
    const char *args[] = {mode, NULL};
    child c = spawn(args, env);
    char *err;
    int status = finish(&c, NULL, &err);
    CHECK(WIFSIGNALED(status));
    if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == sig);
    else fprintf(stderr, "%s: exited with status %d\n", mode, WEXITSTATUS(status));
    CHECK(count_lines_with(err, "crash dump written to") == 1);
    if (!strcmp(mode, "chain")) {
        const char *b = strstr(err, "handler B ran"), *a = strstr(err, "handler A ran");
        CHECK(b != NULL && a != NULL);
        CHECK(!b || !a || b < a); /* B (installed after ours) first, A (before ours) last */
    }
    char dump[2048];
    if (only_dump("c.", dump, sizeof dump)) {
        ticks t;
        CHECK(read_ticks(dump, (uint64_t)c.pid, &t));
        CHECK(t.count[0] == 100 && t.max_seq == 99 && t.pid_ok);
    } else {
        fprintf(stderr, "child stderr:\n%s", err);
    }
    free(err);
    CHECK(gt_list(g_dir, "", "tmp", NULL, 0) == 0);
}

/* Thousands of triggers write at most one dump per throttle window. */
static void sc_storm(void) {
    set_path("s");
    const char *env[] = {"BACKBEAT_ENABLE=1", "BACKBEAT_THROTTLE_MS=600000",
                         "BACKBEAT_SHARDS=1", "BACKBEAT_BYTES=64k",
                         g_path_env,          NULL};
    const char *args[] = {"storm", "5000", NULL};
    uint64_t t0 = bb__g_monotonic_ns();
    child c = spawn(args, env);
    char line[256];
    CHECK(read_line(&c, line, sizeof line) && !strcmp(line, "ready"));
    CHECK(wait_dumps(g_dir, "s.", 1) >= 1);
    sleep_ms(300); /* room for a wrong implementation to write more */
    int status = finish(&c, NULL, NULL);
    uint64_t elapsed_ms = (bb__g_monotonic_ns() - t0) / 1000000ull;
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    int n = gt_list(g_dir, "s.", ".bb", NULL, 0);
    CHECK(n >= 1 && (uint64_t)n <= 1 + elapsed_ms / 600000);
}

/* BACKBEAT_SIGNAL over a handler the program installed first: both the dump and the program's
 * handler happen. */
static void sc_sigchain(void) {
    set_path("u");
    const char *env[] = {"BACKBEAT_ENABLE=1", "BACKBEAT_SIGNAL=SIGUSR1",
                         "BACKBEAT_SHARDS=1", "BACKBEAT_BYTES=64k",
                         g_path_env,          NULL};
    const char *args[] = {"sigchain", NULL};
    child c = spawn(args, env);
    char line[256];
    CHECK(read_line(&c, line, sizeof line) && !strcmp(line, "ready"));
    CHECK(kill(c.pid, SIGUSR1) == 0);
    CHECK(wait_dumps(g_dir, "u.", 1) == 1);
    char *err;
    int status = finish(&c, NULL, &err);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(count_lines_with(err, "user handler ran") == 1);
    free(err);
    CHECK(gt_list(g_dir, "u.", ".bb", NULL, 0) == 1);
}

/* A crash before any backbeat call (here first thing in main; the same holds in a constructor
 * of the program) still writes a crash dump, BACKBEAT_DUMP_ON_CRASH having armed the handler
 * when the library loaded: the process's instance and metadata, the registered schemas, empty
 * rings of the configured size. */
static void sc_early(void) {
    set_path("e");
    const char *env[] = {"BACKBEAT_DUMP_ON_CRASH=1", "BACKBEAT_SHARDS=2", "BACKBEAT_BYTES=64k",
                         "BACKBEAT_HOST=early-host", g_path_env,          NULL};
    const char *args[] = {"early", NULL};
    child c = spawn(args, env);
    char *err;
    int status = finish(&c, NULL, &err);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
    CHECK(count_lines_with(err, "crash dump written to") == 1);
    char dump[2048];
    if (!only_dump("e.", dump, sizeof dump)) {
        fprintf(stderr, "child stderr:\n%s", err);
        free(err);
        return;
    }
    free(err);
    ticks t;
    CHECK(read_ticks(dump, (uint64_t)c.pid, &t));
    CHECK(t.instances == 1 && !t.any);
    CHECK(t.shards == 2 && t.capacity == 65536 && !strcmp(t.host, "early-host"));
    bb_dump *d;
    bb_error e;
    bool tick_schema = false;
    if (bb_dump_open(dump, &d, &e) == BB_OK) {
        for (size_t i = 0; i < bb_dump_schema_count(d); i++) {
            const bb_rschema *sc = bb_dump_schema(d, i);
            if (sc->name.len == 12 && !memcmp(sc->name.ptr, "bbtest::Tick", 12)) tick_schema = true;
        }
        bb_dump_close(d);
    }
    CHECK(tick_schema);
}

/* One `tasks` child: its four thread counts (-1 when a line is missing), and whether the
 * trigger it sent before enabling capture was written before (`early`) / after enabling. */
typedef struct tasks_run {
    int start, recorded, triggered, enabled;
    int dumps_before_enable, dumps_after;
} tasks_run;

static int tasks_line(child *c, const char *word) {
    char line[256];
    int n = -1;
    if (!read_line(c, line, sizeof line) || strncmp(line, word, strlen(word)) != 0) {
        fprintf(stderr, "tasks: expected \"%s N\", got \"%s\"\n", word, line);
        return -1;
    }
    sscanf(line + strlen(word), "%d", &n);
    return n;
}

static tasks_run run_tasks(const char *stem, const char *var) {
    set_path(stem);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s.", stem);
    const char *env[] = {"BACKBEAT_SHARDS=1", "BACKBEAT_BYTES=64k", g_path_env, var, NULL};
    const char *args[] = {"tasks", NULL};
    child c = spawn(args, env);
    tasks_run r;
    r.start = tasks_line(&c, "start");
    r.recorded = tasks_line(&c, "recorded");
    r.triggered = tasks_line(&c, "triggered");
    sleep_ms(50); /* room for a wrongly running dumper thread to finish the dump */
    r.dumps_before_enable = gt_list(g_dir, prefix, ".bb", NULL, 0);
    CHECK(write(c.in, "\n", 1) == 1);
    r.enabled = tasks_line(&c, "enabled");
    r.dumps_after = wait_dumps(g_dir, prefix, 1);
    int status = finish(&c, NULL, NULL);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(g_path_env);
    g_path_env = NULL;
    fprintf(stderr,
            "%-28s threads: start %d, recorded %d, triggered %d, enabled %d; dumps %d "
            "before enabling, %d after\n",
            var ? var : "(no BACKBEAT_ variable)", r.start, r.recorded, r.triggered, r.enabled,
            r.dumps_before_enable, r.dumps_after);
    return r;
}

/* No dumper thread while nothing is enabled (counted in /proc/self/task): none with no
 * variable or with crash dumps only, even after records and a trigger (which waits, unwritten,
 * for bb_global_enable to start the thread); one from load with capture on or a dump signal. */
static void sc_threads(void) {
    tasks_run off = run_tasks("n", NULL);
    tasks_run crash = run_tasks("c", "BACKBEAT_DUMP_ON_CRASH=1");
    tasks_run on = run_tasks("o", "BACKBEAT_ENABLE=1");
    tasks_run sig = run_tasks("s", "BACKBEAT_SIGNAL=usr1");
    /* Counts are compared, not fixed: a sanitizer runtime may add its own thread when the
     * first one is created (TSan does). "No thread" is: the count never moved. */
    int base = off.start;
    CHECK(base >= 1);
    CHECK(off.recorded == base && off.triggered == base && off.enabled > base);
    CHECK(off.dumps_before_enable == 0 && off.dumps_after == 1);
    CHECK(crash.start == base && crash.recorded == base && crash.triggered == base);
    CHECK(crash.enabled > base);
    CHECK(crash.dumps_before_enable == 0 && crash.dumps_after == 1);
    CHECK(on.start > base && on.recorded == on.start && on.enabled == on.start);
    CHECK(on.dumps_before_enable == 1);
    CHECK(sig.start > base && sig.recorded == sig.start && sig.enabled == sig.start);
    CHECK(sig.dumps_before_enable == 1);
}

/* A trigger right before exit still dumps (once), even if the dumper thread had no time. */
static void sc_trigexit(void) {
    set_path("x");
    const char *env[] = {"BACKBEAT_ENABLE=1", "BACKBEAT_SHARDS=1", "BACKBEAT_BYTES=64k", g_path_env,
                         NULL};
    const char *args[] = {"trigexit", NULL};
    child c = spawn(args, env);
    int status = finish(&c, NULL, NULL);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char dump[2048];
    if (only_dump("x.", dump, sizeof dump)) {
        ticks t;
        CHECK(read_ticks(dump, (uint64_t)c.pid, &t));
        CHECK(t.count[0] == 100);
    }
}

/* Limits: keep-oldest keeps the first N (refusing the rest, one warning); keep-newest the last. */
static void sc_limit(const char *policy) {
    set_path("l");
    char *pol = env_kv("BACKBEAT_LIMIT_POLICY", policy);
    const char *env[] = {"BACKBEAT_ENABLE=1",
                         "BACKBEAT_MAX_DUMPS=3",
                         "BACKBEAT_THROTTLE_MS=0",
                         "BACKBEAT_SHARDS=1",
                         "BACKBEAT_BYTES=4096",
                         pol,
                         g_path_env,
                         NULL};
    const char *args[] = {"dumps", "6", NULL};
    child c = spawn(args, env);
    char *out, *err;
    int status = finish(&c, &out, &err);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char names[6][2048];
    int ndump = 0, nref = 0;
    for (char *p = out; *p;) {
        char *eol = strchr(p, '\n');
        if (eol) *eol = '\0';
        if (!strncmp(p, "dump ", 5) && ndump < 6) snprintf(names[ndump++], 2048, "%s", p + 5);
        if (!strncmp(p, "refused ", 8)) nref++;
        p = eol ? eol + 1 : p + strlen(p);
    }
    CHECK(gt_list(g_dir, "l.", ".bb", NULL, 0) == 3);
    if (!strcmp(policy, "keep-oldest")) {
        CHECK(ndump == 3 && nref == 3);
        for (int i = 0; i < ndump; i++) CHECK(access(names[i], F_OK) == 0);
        CHECK(count_lines_with(err, "backbeat[") == 1);
        CHECK(count_lines_with(err, "keep-oldest") == 1);
    } else {
        CHECK(ndump == 6 && nref == 0);
        for (int i = 0; i < ndump; i++) CHECK((access(names[i], F_OK) == 0) == (i >= 3));
        CHECK(count_lines_with(err, "backbeat[") == 0);
    }
    free(out);
    free(err);
    free(pol);
}

/* An unwritable BACKBEAT_PATH: one warning, normal exit. */
static void sc_unwritable(void) {
    const char *env[] = {"BACKBEAT_ENABLE=1",
                         "BACKBEAT_DUMP_ON_EXIT=1",
                         "BACKBEAT_THROTTLE_MS=0",
                         "BACKBEAT_SHARDS=1",
                         "BACKBEAT_BYTES=4096",
                         "BACKBEAT_PATH=/nonexistent-backbeat-dir/sub/x.bb",
                         NULL};
    const char *args[] = {"dumps", "3", NULL};
    child c = spawn(args, env);
    char *out, *err;
    int status = finish(&c, &out, &err);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(count_lines_with(out, "refused") == 3);
    CHECK(count_lines_with(err, "backbeat[") == 1);
    CHECK(count_lines_with(err, "/nonexistent-backbeat-dir/sub/") == 1);
    if (count_lines_with(err, "backbeat[") != 1) fprintf(stderr, "child stderr:\n%s", err);
    free(out);
    free(err);
}

/* A file-size limit (RLIMIT_FSIZE): bb_global_dump fails with EFBIG instead of the process
 * dying of SIGXFSZ, a dump to /dev/full fails with ENOSPC, one warning, no temporary file left;
 * recording goes on (a dump once the limit is lifted holds the ticks recorded after the
 * failure) and the program exits 0 through its (failing) exit dump. */
static void sc_fsize(void) {
    set_path("f");
    const char *env[] = {"BACKBEAT_ENABLE=1",
                         "BACKBEAT_DUMP_ON_EXIT=1",
                         "BACKBEAT_THROTTLE_MS=0",
                         "BACKBEAT_SHARDS=2",
                         "BACKBEAT_BYTES=256k",
                         g_path_env,
                         NULL};
    const char *args[] = {"fsize", NULL};
    child c = spawn(args, env);
    char *out, *err;
    int status = finish(&c, &out, &err);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!WIFEXITED(status)) fprintf(stderr, "child killed by signal %d\n", WTERMSIG(status));
    CHECK(count_lines_with(out, "refused") == 1);
    CHECK(count_lines_with(out, "EFBIG") == 1);
    CHECK(count_lines_with(out, "devfull") == 1 && count_lines_with(out, "ENOSPC") == 1);
    CHECK(count_lines_with(err, "backbeat[") == 1);
    CHECK(count_lines_with(err, "EFBIG") == 1);
    CHECK(gt_list(g_dir, "", ".tmp", NULL, 0) == 0);
    char path[2048];
    ticks t;
    CHECK(only_dump("f", path, sizeof path) && read_ticks(path, 0, &t) && t.count[0] > 0 &&
          t.count[1] == 100);
    if (gt_failures) fprintf(stderr, "child stdout:\n%s\nchild stderr:\n%s", out, err);
    free(out);
    free(err);
}

/* An invalid variable: one warning naming it, the value, and what is used; the program works. */
static void sc_badenv(void) {
    set_path("b");
    const char *env[] = {"BACKBEAT_ENABLE=1",  "BACKBEAT_SHARDS=lots",
                         "BACKBEAT_BYTES=12Q", "BACKBEAT_THROTTLE_MS=0",
                         g_path_env,           NULL};
    const char *args[] = {"dumps", "1", NULL};
    child c = spawn(args, env);
    char *err;
    int status = finish(&c, NULL, &err);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(count_lines_with(err, "backbeat[") == 2);
    CHECK(count_lines_with(err, "BACKBEAT_SHARDS=\"lots\"") == 1);
    CHECK(count_lines_with(err, "BACKBEAT_BYTES=\"12Q\"") == 1);
    CHECK(count_lines_with(err, "using 16M") == 1);
    free(err);
    char dump[2048];
    if (only_dump("b.", dump, sizeof dump)) {
        ticks t;
        CHECK(read_ticks(dump, (uint64_t)c.pid, &t));
        CHECK(t.count[0] == 100);
    }
}

/* Names: <stem>.<pid>.<YYYYMMDDThhmmssmmmZ>[-N].<ext>, stamps within the run, all distinct, a
 * repeated stamp carries a growing -N suffix. */
static void sc_naming(void) {
    set_path("n");
    const char *env[] = {"BACKBEAT_ENABLE=1",
                         "BACKBEAT_MAX_DUMPS=0",
                         "BACKBEAT_THROTTLE_MS=0",
                         "BACKBEAT_SHARDS=1",
                         "BACKBEAT_BYTES=4096",
                         g_path_env,
                         NULL};
    const char *args[] = {"dumps", "40", NULL};
    char lo[20], hi[20];
    bb__g_format_utc_ms(bb__g_realtime_ns(), lo);
    child c = spawn(args, env);
    char *out;
    int status = finish(&c, &out, NULL);
    bb__g_format_utc_ms(bb__g_realtime_ns() + 1000000, hi);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char prefix[1100];
    snprintf(prefix, sizeof prefix, "dump %s/n.%ld.", g_dir, (long)c.pid); /* the pid kept */
    size_t pl = strlen(prefix);
    int n = 0;
    char prev_stamp[20] = "";
    unsigned prev_seq = 0;
    for (char *p = out; *p;) {
        char *eol = strchr(p, '\n');
        if (eol) *eol = '\0';
        CHECK(!strncmp(p, prefix, pl));
        const char *s = p + pl;
        char stamp[20];
        snprintf(stamp, sizeof stamp, "%.19s", s);
        bool shape = strlen(s) >= 22 && s[8] == 'T' && s[18] == 'Z';
        for (int i = 0; i < 18 && shape; i++)
            if (i != 8 && (s[i] < '0' || s[i] > '9')) shape = false;
        CHECK(shape);
        CHECK(strcmp(stamp, lo) >= 0 && strcmp(stamp, hi) <= 0);
        unsigned seq = 0;
        const char *rest = s + 19;
        if (*rest == '-') seq = (unsigned)strtoul(rest + 1, (char **)&rest, 10);
        CHECK(!strcmp(rest, ".bb"));
        if (!strcmp(stamp, prev_stamp)) CHECK(seq == prev_seq + 1);
        else CHECK(seq == 0 && strcmp(stamp, prev_stamp) > 0);
        snprintf(prev_stamp, sizeof prev_stamp, "%s", stamp);
        prev_seq = seq;
        n++;
        p = eol ? eol + 1 : p + strlen(p);
    }
    CHECK(n == 40);
    CHECK(gt_list(g_dir, "n.", ".bb", NULL, 0) == 40);
    free(out);
}

/* fork(): the child gets its own recorder (new instance id, only its own events, its own
 * dumps); the parent goes on; nobody hangs. */
static void sc_fork(void) {
    /* default path (TMPDIR): each process names its dumps after its own pid */
    char *tmpdir = env_kv("TMPDIR", g_dir);
    const char *env[] = {"BACKBEAT_THROTTLE_MS=0",
                         "BACKBEAT_SHARDS=2",
                         "BACKBEAT_BYTES=64k",
                         "BACKBEAT_DUMP_ON_EXIT=0",
                         tmpdir,
                         NULL};
    const char *args[] = {"fork", NULL};
    child c = spawn(args, env);
    char *out;
    int status = finish(&c, &out, NULL);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    unsigned long long pinst = 0, cinst = 0;
    char pname[2048] = "", cname[2048] = "";
    for (char *p = out; *p;) {
        char *eol = strchr(p, '\n');
        if (eol) *eol = '\0';
        if (!strncmp(p, "parent ", 7)) sscanf(p + 7, "%llu %2047s", &pinst, pname);
        if (!strncmp(p, "child ", 6)) sscanf(p + 6, "%llu %2047s", &cinst, cname);
        p = eol ? eol + 1 : p + strlen(p);
    }
    CHECK(pinst && cinst && pinst != cinst);
    char want[1200];
    snprintf(want, sizeof want, "%s/backbeat.%d.", g_dir, (int)c.pid);
    CHECK(!strncmp(pname, want, strlen(want)));
    snprintf(want, sizeof want, "%s/backbeat.", g_dir);
    CHECK(!strncmp(cname, want, strlen(want)));
    long cpid = strtol(cname + strlen(want), NULL, 10);
    CHECK(cpid > 0 && cpid != (long)c.pid); /* the fork child's own pid */
    free(tmpdir);
    ticks t;
    if (*cname && read_ticks(cname, 0, &t)) {
        CHECK(t.instances == 1 && t.instance_id == cinst);
        CHECK(t.count[0] == 0 && t.count[1] == 50 && t.count[2] == 0);
    } else {
        CHECK(!"child dump");
    }
    if (*pname && read_ticks(pname, 0, &t)) {
        CHECK(t.instances == 1 && t.instance_id == pinst);
        CHECK(t.count[0] == 50 && t.count[1] == 0 && t.count[2] == 50);
    } else {
        CHECK(!"parent dump");
    }
    free(out);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s SCENARIO\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    gt_tmpdir(g_dir, sizeof g_dir, argv[1]);
    const char *s = argv[1];
    if (!strcmp(s, "traced")) sc_traced();
    else if (!strcmp(s, "segv")) sc_crash("segv", SIGSEGV);
    else if (!strcmp(s, "abort")) sc_crash("abort", SIGABRT);
    else if (!strcmp(s, "overflow")) sc_crash("overflow", SIGSEGV);
    else if (!strcmp(s, "chain")) sc_crash("chain", SIGSEGV);
    else if (!strcmp(s, "fpe")) sc_crash("fpe", SIGFPE);
    else if (!strcmp(s, "ill")) sc_crash("ill", SIGILL);
    else if (!strcmp(s, "bus")) sc_crash("bus", SIGBUS);
    else if (!strcmp(s, "thread")) sc_crash("thread", SIGSEGV);
    else if (!strcmp(s, "toverflow")) sc_crash("toverflow", SIGSEGV);
    else if (!strcmp(s, "early")) sc_early();
    else if (!strcmp(s, "threads")) sc_threads();
    else if (!strcmp(s, "storm")) sc_storm();
    else if (!strcmp(s, "trigexit")) sc_trigexit();
    else if (!strcmp(s, "sigchain")) sc_sigchain();
    else if (!strcmp(s, "keep-oldest") || !strcmp(s, "keep-newest")) sc_limit(s);
    else if (!strcmp(s, "unwritable")) sc_unwritable();
    else if (!strcmp(s, "badenv")) sc_badenv();
    else if (!strcmp(s, "fsize")) sc_fsize();
    else if (!strcmp(s, "naming")) sc_naming();
    else if (!strcmp(s, "fork")) sc_fork();
    else {
        fprintf(stderr, "unknown scenario %s\n", s);
        return 2;
    }
    if (gt_failures) fprintf(stderr, "files left in %s for inspection\n", g_dir);
    else gt_rmdir(g_dir);
    return gt_done();
}
