/* ring_e2e.c — end-to-end tests of file-backed rings with real child processes (ring_child.c):
 * SIGKILL during heavy multi-threaded recording, after a plugin registered events and interned
 * strings, during registry churn, after a live dump, at an OOM kill in a memory-limited cgroup,
 * and the file's lifecycle at a normal exit. Each recovers the ring file with `backbeat
 * recover` and checks every record against what the child reported through its pipe.
 * Usage: ring_e2e SCENARIO (heavy, shared, plugin, churn, live, crash, exit,
 * keep, fallback, fork, cli, oom). */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../support/check.h"
#include "backbeat/backbeat.h"
#include "backbeat/model.h"
#include "backbeat/reader.h"
#include "format/ring_file.h"
#include "ring_check.h"
#include "ring_proc.h"

#define MAX_THREADS 8
#define REC_SIZE 42 /* frame of ring_test::Rec: 24 field bytes + 18 */

typedef struct seqs {
    uint64_t *v;
    size_t n, cap;
} seqs;

/* What a walk of a recovered dump found. */
typedef struct found {
    seqs th[MAX_THREADS];
    size_t bad;              /* records whose bytes are not what was written */
    size_t plugin;           /* ring_plugin::Late records, all checked */
    size_t dyn;              /* ring_churn::Dyn<v> records whose v matches their name */
    uint64_t plugin_seen[4]; /* bitmap of n < 256 */
    const bb_rinstance *inst;
} found;

static char g_dir[256];

static void push(seqs *s, uint64_t v) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v) abort();
    }
    s->v[s->n++] = v;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool named(const bb_rschema *s, const char *name) {
    return s->name.len == strlen(name) && !memcmp(s->name.ptr, name, s->name.len);
}

/* A ring_plugin::Late record: its label must be the string "late-<n mod 4096>". */
static void check_plugin(found *f, const uint8_t *fields) {
    uint64_t n;
    uint32_t id;
    memcpy(&n, fields, 8);
    memcpy(&id, fields + 8, 4);
    char want[32];
    snprintf(want, sizeof want, "late-%llu", (unsigned long long)(n % 4096));
    bb_strview sv;
    if (!bb_rinstance_intern(f->inst, id, &sv) || sv.len != strlen(want) ||
        memcmp(sv.ptr, want, sv.len)) {
        f->bad++;
        return;
    }
    f->plugin++;
    if (n < 256) f->plugin_seen[n / 64] |= 1ull << (n % 64);
}

/* A ring_churn::Dyn<v> record: its field v must be the number in its schema's name. */
static void check_dyn(found *f, const bb_record *r) {
    uint64_t v;
    memcpy(&v, r->fields, 8);
    char want[48];
    snprintf(want, sizeof want, "ring_churn::Dyn%llu", (unsigned long long)v);
    if (named(r->schema, want)) f->dyn++;
    else f->bad++;
}

static int on_record(const bb_record *r, void *ctx) {
    found *f = ctx;
    if (r->schema->name.len > 15 && !memcmp(r->schema->name.ptr, "ring_churn::Dyn", 15)) {
        check_dyn(f, r);
        return 0;
    }
    if (named(r->schema, "ring_plugin::Late")) {
        check_plugin(f, r->fields);
        return 0;
    }
    if (!named(r->schema, "ring_test::Rec")) return 0;
    uint32_t t;
    uint64_t seq, check;
    memcpy(&t, r->fields, 4);
    memcpy(&seq, r->fields + 8, 8);
    memcpy(&check, r->fields + 16, 8);
    if (t >= MAX_THREADS || check != ring_check(t, seq)) f->bad++;
    else push(&f->th[t], seq);
    return 0;
}

/* Walk every shard; check that each kept (almost) all it held: the window minus at most
 * `slack` records (torn by writers in flight at the kill, and the one cut at the window's
 * low end). */
static void walk(const bb_dump *d, found *f, size_t slack) {
    for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
        f->inst = bb_dump_instance(d, i);
        for (size_t s = 0; s < f->inst->shard_count; s++) {
            const bb_rshard *sh = &f->inst->shards[s];
            bb_walk_stats st = {0, 0};
            bb_shard_walk(d, sh, on_record, f, &st);
            uint64_t window = sh->head < sh->capacity ? sh->head : sh->capacity;
            uint64_t want = window / REC_SIZE > slack ? window / REC_SIZE - slack : 0;
            CHECK(st.records >= want, "shard %u: %llu records of a %llu-byte window", sh->shard_id,
                  (unsigned long long)st.records, (unsigned long long)window);
        }
    }
}

static void found_free(found *f) {
    for (int t = 0; t < MAX_THREADS; t++) free(f->th[t].v);
}

/* Recover `ring` into `out` with the CLI and open it. */
static bb_dump *recover(const char *ring, const char *out) {
    char *args[] = {"recover", (char *)ring, "-o", (char *)out, NULL};
    int st = ring_cli(BB_CLI, args, NULL);
    CHECK(st == 0, "recover %s exited %d", ring, st);
    bb_dump *d = NULL;
    bb_error err;
    if (st == 0 && bb_dump_open(out, &d, &err) != BB_OK) {
        CHECK(0, "%s: %s", out, err.message);
        return NULL;
    }
    return d;
}

static bool make_dir(const char *base) {
    snprintf(g_dir, sizeof g_dir, "%s/bbring.XXXXXX", base);
    return mkdtemp(g_dir) != NULL;
}

static void remove_dir(void) {
    char cmd[300];
    if (getenv("BB_KEEP")) return; /* BB_KEEP=1: leave the files of the run for inspection */
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", g_dir);
}

/* ---- scenarios ------------------------------------------------------------------------- */

static char env_dir[300], env_shards[64];
static char *base_env(const char *shards) {
    snprintf(env_dir, sizeof env_dir, "BACKBEAT_RING_DIR=%s", g_dir);
    snprintf(env_shards, sizeof env_shards, "BACKBEAT_SHARDS=%s", shards);
    return env_dir;
}

/* The lapped-writer marks of the ring file's cursors (docs/RING_FILE.md): a recovery drops the
 * records below a mark inside the window, as a live dump would. Returns the shard count. */
/* A writer in flight at the kill whose reservation lies below its ring's window (lapped by the
 * others while descheduled) may have written its bytes late, one lap up: recovery cuts the
 * window below the end of those bytes (RING_FILE.md "Records in flight"). Raise marks[] to
 * that end, read from the file's announcement table. */
static void inflight_marks(FILE *f, const uint8_t *h, const uint64_t *heads, uint64_t *marks,
                           uint32_t n) {
    uint64_t off, cap;
    uint32_t count, tag_base;
    memcpy(&off, h + BB_RH_SLOTS_OFF, 8);
    memcpy(&cap, h + BB_RH_CAPACITY, 8);
    memcpy(&count, h + BB_RH_SLOT_COUNT, 4);
    memcpy(&tag_base, h + BB_RH_TAG_BASE, 4);
    for (uint32_t i = 0; i + 1 < count; i++) {
        uint64_t e[2];
        if (fseek(f, (long)(off + (uint64_t)i * BB_RING_SLOT_STRIDE), SEEK_SET) != 0 ||
            fread(e, 8, 2, f) != 2)
            return;
        uint32_t s = (uint32_t)e[0] - tag_base;
        uint64_t len = e[0] >> 32, pos = e[1];
        if (!e[0] || s >= n || pos == UINT64_MAX || pos + cap >= heads[s]) continue;
        uint64_t end = pos + (heads[s] - 1 - pos) / cap * cap + len;
        if (end > marks[s]) marks[s] = end;
    }
}

/* The mark below which recovery cuts each shard's window: a lapped writer's mark in its
 * cursor, or the late bytes of a writer in flight below the window. */
static uint32_t read_marks(const char *ring, uint64_t *marks, uint32_t max) {
    uint8_t h[BB_RING_HEADER_SIZE];
    uint64_t heads[MAX_THREADS] = {0};
    FILE *f = fopen(ring, "rb");
    uint32_t n = 0;
    uint64_t off;
    if (f && fread(h, 1, sizeof h, f) == sizeof h) {
        memcpy(&n, h + BB_RH_SHARDS, 4);
        memcpy(&off, h + BB_RH_CURSORS_OFF, 8);
        n = n < max ? n : max;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t c[2] = {0, 0};
            if (fseek(f, (long)(off + i * BB_RING_CURSOR_STRIDE), SEEK_SET) != 0 ||
                fread(c, 8, 2, f) != 2) {
                n = i;
            } else {
                heads[i] = c[0];
                marks[i] = c[1];
            }
        }
        inflight_marks(f, h, heads, marks, n);
    }
    if (f) fclose(f);
    return n;
}

/* Every shard kept the records of its window above any lapped-writer mark, but for `slack`
 * (torn by writers in flight at the kill, and the one cut at the window's low end); true when
 * some shard's window was cut by a mark. */
static bool check_windows(const bb_dump *d, const uint64_t *marks, uint32_t nmarks, size_t slack,
                          found *f) {
    bool cut = false;
    f->inst = bb_dump_instance(d, 0);
    for (size_t s = 0; f->inst && s < f->inst->shard_count && s < nmarks; s++) {
        const bb_rshard *sh = &f->inst->shards[s];
        bb_walk_stats st = {0, 0};
        bb_shard_walk(d, sh, on_record, f, &st);
        uint64_t low = sh->head > sh->capacity ? sh->head - sh->capacity : 0;
        if (marks[s] > low && marks[s] <= sh->head) {
            low = marks[s];
            cut = true;
        }
        uint64_t want = (sh->head - low) / REC_SIZE;
        want = want > slack ? want - slack : 0;
        CHECK(st.records >= want, "shard %u: %llu records above %llu (head %llu)", sh->shard_id,
              (unsigned long long)st.records, (unsigned long long)low,
              (unsigned long long)sh->head);
    }
    return cut;
}

/* Each thread's records: no duplicate, one run of numbers (a window is a suffix of what its
 * shard received), the newest at least the last one reported before the kill: a thread with
 * any record left in its shard's window has all its newer ones there. With `own_shard` (one
 * writer per shard) every thread has records. */
static void check_threads(found *f, int threads, const uint64_t *last, bool cut, bool own_shard) {
    for (int t = 0; t < threads; t++) {
        seqs *s = &f->th[t];
        if (s->n) qsort(s->v, s->n, sizeof *s->v, cmp_u64);
        if (!cut && (s->n > 0 || own_shard))
            CHECK(s->n > 0 && s->v[s->n - 1] >= last[t], "thread %d: newest %llu, reported %llu", t,
                  s->n ? (unsigned long long)s->v[s->n - 1] : 0ull, (unsigned long long)last[t]);
        for (size_t i = 1; i < s->n; i++)
            CHECK(s->v[i] != s->v[i - 1], "thread %d: seq %llu twice", t,
                  (unsigned long long)s->v[i]);
        if (s->n)
            CHECK(s->v[s->n - 1] - s->v[0] + 1 == s->n, "thread %d: gaps in %llu..%llu (%zu)", t,
                  (unsigned long long)s->v[0], (unsigned long long)s->v[s->n - 1], s->n);
    }
    if (cut) printf("note: a lapped writer's mark cut a window (its records are dropped)\n");
}

/* Whether the CPU hint is rseq here (pinned threads then each have their own shard). */
static bool rseq_hint(void) {
    bb_recorder *r = bb_recorder_new(1, 4096);
    bool yes = r && !strcmp(bb_recorder_cpu_hint_name(r), "rseq");
    bb_recorder_free(r);
    return yes;
}

/* SIGKILL while `threads` threads record into `shards` rings of 1 MiB (pinned: thread t on CPU
 * t, so one writer per shard), each past four laps of its ring. */
static void heavy(bool pinned) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = pinned ? (int)(cpus < 2 ? 2 : cpus > 4 ? 4 : cpus) : 3;
    char shards[16], nthreads[16];
    snprintf(shards, sizeof shards, "%d", pinned ? threads : 1);
    snprintf(nthreads, sizeof nthreads, "%d", threads);
    char *env[] = {base_env(shards), env_shards, "BACKBEAT_ENABLE=1", "BACKBEAT_BYTES=1M", NULL};
    char *args[] = {"heavy", nthreads, pinned ? "pin" : "nopin", NULL};
    ring_child c;
    if (!ring_spawn(&c, BB_RING_CHILD, args, env, NULL)) {
        CHECK(0, "spawn");
        return;
    }
    uint64_t last[MAX_THREADS] = {0}, msg[2], laps = 4 * (1u << 20) / REC_SIZE;
    int ready = 0;
    while (ready < threads && ring_report(&c, msg)) {
        if (msg[0] >= (uint64_t)threads || msg[1] <= last[msg[0]]) continue;
        if (last[msg[0]] < laps && msg[1] >= laps) ready++;
        last[msg[0]] = msg[1];
    }
    CHECK(ring_kill(&c), "the child did not die of SIGKILL");
    while (ring_report(&c, msg)) /* what was reported before the kill */
        if (msg[0] < (uint64_t)threads && msg[1] > last[msg[0]]) last[msg[0]] = msg[1];
    char ring[512], out[512];
    CHECK(ring_find(g_dir, ring, sizeof ring) == 1, "one ring file in %s", g_dir);
    snprintf(out, sizeof out, "%s/recovered.bb", g_dir);
    uint64_t marks[MAX_THREADS];
    uint32_t nmarks = read_marks(ring, marks, MAX_THREADS);
    bb_dump *d = recover(ring, out);
    if (!d) return;
    found f;
    memset(&f, 0, sizeof f);
    bool cut = check_windows(d, marks, nmarks, 2 * (size_t)threads + 2, &f);
    CHECK(f.bad == 0, "%zu records corrupted", f.bad);
    check_threads(&f, threads, last, cut, pinned && rseq_hint());
    found_free(&f);
    bb_dump_close(d);
}

static bool scan_says(const char *word) {
    char out[512], *args[] = {"recover", "--scan", g_dir, NULL};
    snprintf(out, sizeof out, "%s/scan.txt", g_dir);
    if (ring_cli(BB_CLI, args, out) != 0) return false;
    FILE *f = fopen(out, "r");
    char line[2048] = "";
    bool yes = f && fgets(line, sizeof line, f) && strstr(line, word);
    if (f) fclose(f);
    return yes;
}

/* recover refuses the file of a running process, --force takes a snapshot. */
static void refuse_running(const char *ring) {
    char out[512];
    snprintf(out, sizeof out, "%s/refused.bb", g_dir);
    char *args[] = {"recover", (char *)ring, "-o", out, NULL};
    CHECK(ring_cli(BB_CLI, args, NULL) == 1, "recover of a running process's file must fail");
    CHECK(access(out, F_OK) != 0, "a refused recover wrote %s", out);
    char *forced[] = {"recover", "--force", (char *)ring, "-o", out, NULL};
    CHECK(ring_cli(BB_CLI, forced, NULL) == 0, "recover --force");
    CHECK(scan_says("\trunning"), "--scan lists the file as running");
}

/* SIGKILL right after a dlopen'ed plugin registered an event and a view set and recorded 100
 * events with strings interned at run time. */
static void plugin(void) {
    char *env[] = {base_env("2"), env_shards, "BACKBEAT_ENABLE=1", "BACKBEAT_BYTES=1M", NULL};
    char *args[] = {"plugin", BB_RING_PLUGIN, NULL};
    ring_child c;
    if (!ring_spawn(&c, BB_RING_CHILD, args, env, NULL)) {
        CHECK(0, "spawn");
        return;
    }
    uint64_t msg[2];
    CHECK(ring_report(&c, msg) && msg[0] == 0xFFFFFFFFu, "the plugin's report");
    char ring[512], out[512];
    CHECK(ring_find(g_dir, ring, sizeof ring) == 1, "one ring file in %s", g_dir);
    refuse_running(ring);
    CHECK(ring_kill(&c), "the child did not die of SIGKILL");
    CHECK(scan_says("\tgone"), "--scan lists the file as gone");
    snprintf(out, sizeof out, "%s/recovered.bb", g_dir);
    bb_dump *d = recover(ring, out);
    if (!d) return;
    found f;
    memset(&f, 0, sizeof f);
    walk(d, &f, 4);
    CHECK(f.bad == 0 && f.plugin == 100, "%zu bad, %zu plugin records", f.bad, f.plugin);
    CHECK(f.plugin_seen[0] == ~0ull && f.plugin_seen[1] == (1ull << 36) - 1, "n = 0..99");
    bool view = false;
    for (size_t i = 0; i < bb_dump_view_count(d); i++) {
        bb_strview v = bb_dump_view(d, i);
        view |= v.len >= 16 && memmem(v.ptr, v.len, "ring_plugin_late", 16);
    }
    CHECK(view, "the plugin's view set was recovered");
    found_free(&f);
    bb_dump_close(d);
}

/* SIGKILL while a plugin is loaded and unloaded in a loop: schemas are appended all the time,
 * so the kill may land in the middle of one. */
static void churn(void) {
    char *env[] = {base_env("1"), env_shards, "BACKBEAT_ENABLE=1", "BACKBEAT_BYTES=1M", NULL};
    char *args[] = {"churn", BB_RING_PLUGIN, NULL};
    ring_child c;
    if (!ring_spawn(&c, BB_RING_CHILD, args, env, NULL)) {
        CHECK(0, "spawn");
        return;
    }
    uint64_t msg[2] = {0, 0}, last = 0;
    while (last < 40 && ring_report(&c, msg)) last = msg[1];
    CHECK(ring_kill(&c), "the child did not die of SIGKILL");
    while (ring_report(&c, msg)) last = msg[1];
    char ring[512], out[512];
    CHECK(ring_find(g_dir, ring, sizeof ring) == 1, "one ring file in %s", g_dir);
    snprintf(out, sizeof out, "%s/recovered.bb", g_dir);
    bb_dump *d = recover(ring, out);
    if (!d) return;
    found f;
    memset(&f, 0, sizeof f);
    walk(d, &f, 4);
    if (f.th[0].n) qsort(f.th[0].v, f.th[0].n, sizeof *f.th[0].v, cmp_u64);
    CHECK(f.bad == 0, "%zu records corrupted", f.bad);
    /* A round is 100 plugin records (34 bytes), one Dyn (26) and one Rec (42): the 1 MiB ring
     * holds ~300. */
    uint64_t fit = (1u << 20) / (100 * 34 + 26 + 42) - 2, rounds = last < fit ? last : fit;
    CHECK(f.plugin >= 100 * rounds, "%zu plugin records, %llu rounds", f.plugin,
          (unsigned long long)last);
    CHECK(f.th[0].n && f.th[0].v[f.th[0].n - 1] >= last, "rounds recorded up to the kill");
    CHECK(bb_dump_view_count(d) == 1, "the plugin's view set once, not %zu times",
          bb_dump_view_count(d));
    CHECK(f.dyn + 1 >= rounds, "%zu run-time schemas decoded, %llu rounds", f.dyn,
          (unsigned long long)rounds);
    found_free(&f);
    bb_dump_close(d);
}

/* The first dump file named STEM.*.bb in the test directory. */
static bool find_dump(const char *stem, char *out, size_t cap) {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls '%s'/%s.*.bb 2>/dev/null | head -1", g_dir, stem);
    FILE *p = popen(cmd, "r");
    bool ok = p && fgets(out, (int)cap, p);
    if (p) pclose(p);
    if (ok) out[strcspn(out, "\n")] = 0;
    return ok && *out;
}

/* Records 0..1999 through the (de-duplicating) model of two dumps of one process: how many,
 * and how many seen twice. */
static size_t count_model(bb_dump **ds, bool dedup, size_t *dups) {
    static unsigned char seen[2000];
    memset(seen, 0, sizeof seen);
    bb_model *m = NULL;
    bb_model_iter *it = NULL;
    size_t n = 0;
    *dups = 0;
    if (bb_model_open(ds, 2, dedup, &m, NULL) != BB_OK || bb_model_iter_new(m, &it) != BB_OK)
        return 0;
    bb_mrecord r;
    while (bb_model_next(it, &r)) {
        if (!named(r.rec.schema, "ring_test::Rec")) continue;
        uint64_t seq;
        memcpy(&seq, r.rec.fields + 8, 8);
        if (seq < 2000 && seen[seq]++) (*dups)++;
        n++;
    }
    bb_model_iter_free(it);
    bb_model_close(m);
    return n;
}

/* A live dump, then SIGKILL: the recovered dump and the live one convert together without
 * duplicates (same instance id, shard ids and offsets). */
static void live(void) {
    char path_env[400];
    snprintf(path_env, sizeof path_env, "BACKBEAT_PATH=%s/live.bb", g_dir);
    char *env[] = {base_env("2"), env_shards, "BACKBEAT_ENABLE=1", path_env, NULL};
    char *args[] = {"live", NULL};
    ring_child c;
    if (!ring_spawn(&c, BB_RING_CHILD, args, env, NULL)) {
        CHECK(0, "spawn");
        return;
    }
    uint64_t msg[2];
    CHECK(ring_report(&c, msg) && msg[1] == 1999, "the child's report");
    CHECK(ring_kill(&c), "the child did not die of SIGKILL");
    char ring[512], out[512], livep[512];
    CHECK(ring_find(g_dir, ring, sizeof ring) == 1, "one ring file in %s", g_dir);
    CHECK(find_dump("live", livep, sizeof livep), "the live dump");
    snprintf(out, sizeof out, "%s/recovered.bb", g_dir);
    bb_dump *ds[2] = {NULL, recover(ring, out)};
    bb_error err;
    CHECK(bb_dump_open(livep, &ds[0], &err) == BB_OK, "%s", err.message);
    if (ds[0] && ds[1]) {
        size_t dups, n = count_model(ds, true, &dups);
        CHECK(n == 2000 && dups == 0, "deduplicated: %zu records, %zu duplicates", n, dups);
        n = count_model(ds, false, &dups);
        CHECK(n == 3000 && dups == 1000, "not deduplicated: %zu records, %zu duplicates", n, dups);
    }
    char json[512];
    snprintf(json, sizeof json, "%s/both.json", g_dir);
    char *conv[] = {"convert", livep, ring, "-o", json, NULL};
    CHECK(ring_cli(BB_CLI, conv, NULL) == 0, "convert takes the ring file directly");
    for (int i = 0; i < 2; i++)
        if (ds[i]) bb_dump_close(ds[i]);
}

/* Run the `exit` child once (BACKBEAT_RING_KEEP as `keep`); its exit status. */
static int run_exit_child(bool keep) {
    char *env[] = {base_env("1"), env_shards, "BACKBEAT_ENABLE=1",
                   keep ? "BACKBEAT_RING_KEEP=1" : "BACKBEAT_RING_KEEP=0", NULL};
    char *args[] = {"exit", NULL};
    ring_child c;
    if (!ring_spawn(&c, BB_RING_CHILD, args, env, NULL)) return -1;
    return ring_wait(&c);
}

/* Two kept files recovered into one dump: two instances, each with its 10 records. */
static void recover_two(const char *first) {
    int st = run_exit_child(true);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit status %#x", st);
    char cmd[600], second[512] = "", out[512];
    snprintf(cmd, sizeof cmd, "ls '%s'/*.ring | grep -v '^%s$' | head -1", g_dir, first);
    FILE *p = popen(cmd, "r");
    if (p && fgets(second, sizeof second, p)) second[strcspn(second, "\n")] = 0;
    if (p) pclose(p);
    CHECK(second[0], "a second ring file");
    snprintf(out, sizeof out, "%s/both.bb", g_dir);
    char *args[] = {"recover", (char *)first, second, "-o", out, NULL};
    CHECK(ring_cli(BB_CLI, args, NULL) == 0, "recover of two files");
    bb_dump *d = NULL;
    bb_error err;
    if (bb_dump_open(out, &d, &err) != BB_OK) {
        CHECK(0, "%s: %s", out, err.message);
        return;
    }
    found f;
    memset(&f, 0, sizeof f);
    for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
        f.inst = bb_dump_instance(d, i);
        for (size_t s = 0; s < f.inst->shard_count; s++)
            bb_shard_walk(d, &f.inst->shards[s], on_record, &f, NULL);
    }
    CHECK(bb_dump_instance_count(d) == 2 && f.th[0].n == 20 && f.bad == 0,
          "%zu instances, %zu records", bb_dump_instance_count(d), f.th[0].n);
    found_free(&f);
    bb_dump_close(d);
}

/* A crash: the crash handler's dump and the ring file the crash leaves behind (kept with
 * BACKBEAT_RING_KEEP: a crash dump written whole removes it otherwise) hold the same records,
 * with the same keys (converted together: each once). */
static void crash(void) {
    char path_env[400];
    snprintf(path_env, sizeof path_env, "BACKBEAT_PATH=%s/crash.bb", g_dir);
    char *env[] = {base_env("2"),
                   env_shards,
                   "BACKBEAT_ENABLE=1",
                   "BACKBEAT_DUMP_ON_CRASH=1",
                   "BACKBEAT_RING_KEEP=1",
                   path_env,
                   "ASAN_OPTIONS=handle_segv=0:allow_user_segv_handler=1:detect_leaks=0",
                   "UBSAN_OPTIONS=handle_segv=0",
                   "TSAN_OPTIONS=handle_segv=0",
                   NULL};
    char *args[] = {"crash", NULL};
    ring_child c;
    if (!ring_spawn(&c, BB_RING_CHILD, args, env, NULL)) {
        CHECK(0, "spawn");
        return;
    }
    int st = ring_wait(&c);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "died of SIGSEGV (status %#x)", st);
    char ring[512], out[512], dump[512];
    CHECK(ring_find(g_dir, ring, sizeof ring) == 1, "the crash leaves the ring file");
    CHECK(find_dump("crash", dump, sizeof dump), "the crash dump");
    snprintf(out, sizeof out, "%s/recovered.bb", g_dir);
    bb_dump *ds[2] = {NULL, recover(ring, out)};
    bb_error err;
    CHECK(bb_dump_open(dump, &ds[0], &err) == BB_OK, "%s", err.message);
    if (ds[0] && ds[1]) {
        size_t dups, n = count_model(ds, true, &dups);
        CHECK(n == 1000 && dups == 0, "deduplicated: %zu records, %zu duplicates", n, dups);
        n = count_model(ds, false, &dups);
        CHECK(n == 2000 && dups == 1000, "not deduplicated: %zu records", n);
    }
    for (int i = 0; i < 2; i++)
        if (ds[i]) bb_dump_close(ds[i]);
}

/* A normal exit removes the file; BACKBEAT_RING_KEEP=1 keeps it (and it recovers). */
static void lifecycle(bool keep) {
    int st = run_exit_child(keep);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit status %#x", st);
    char ring[512], out[512];
    int n = ring_find(g_dir, ring, sizeof ring);
    CHECK(n == (keep ? 1 : 0), "%d ring files after a normal exit", n);
    if (!keep || n != 1) return;
    CHECK(scan_says("\tgone (closed)"), "--scan: closed at exit");
    snprintf(out, sizeof out, "%s/recovered.bb", g_dir);
    bb_dump *d = recover(ring, out);
    if (!d) return;
    found f;
    memset(&f, 0, sizeof f);
    walk(d, &f, 0);
    CHECK(f.bad == 0 && f.th[0].n == 10, "%zu records", f.th[0].n);
    found_free(&f);
    bb_dump_close(d);
    recover_two(ring);
}

/* True when the file holds `a` and `b`. */
static bool file_says(const char *path, const char *a, const char *b) {
    char buf[4096];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = 0;
    return strstr(buf, a) && (!b || strstr(buf, b));
}

/* A ring size too big for the file (BACKBEAT_BYTES=16M under an 8 MiB file size limit, as a
 * small disk would be) but not for memory: the ring file is retried at the size the recorder
 * falls back to (1 MiB per shard), not dropped for anonymous memory; it holds the records. */
static void fallback_size(void) {
    char err[512], env_dir2[300];
    snprintf(err, sizeof err, "%s/stderr.txt", g_dir);
    snprintf(env_dir2, sizeof env_dir2, "BACKBEAT_RING_DIR=%s", g_dir);
    char *env[] = {env_dir2,
                   "BACKBEAT_ENABLE=1",
                   "BACKBEAT_SHARDS=1",
                   "BACKBEAT_BYTES=16M",
                   "BACKBEAT_RING_KEEP=1",
                   NULL};
    char *args[] = {"exit", NULL};
    ring_child_stderr = err;
    ring_child_fsize = 8 << 20;
    ring_child c;
    bool ok = ring_spawn(&c, BB_RING_CHILD, args, env, NULL);
    ring_child_stderr = NULL;
    ring_child_fsize = 0;
    if (!ok) {
        CHECK(0, "spawn");
        return;
    }
    int st = ring_wait(&c);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit status %#x", st);
    CHECK(file_says(err, "cannot reserve", "using 1M per shard"), "the size fallback message");
    CHECK(!file_says(err, "anonymous", "memory"), "fell back to anonymous memory");
    char ring[512], out[512];
    CHECK(ring_find(g_dir, ring, sizeof ring) == 1, "the ring file at the fallback size");
    snprintf(out, sizeof out, "%s/recovered_small.bb", g_dir);
    bb_dump *d = recover(ring, out);
    if (!d) return;
    found f;
    memset(&f, 0, sizeof f);
    walk(d, &f, 0);
    CHECK(f.bad == 0 && f.th[0].n == 10, "%zu records", f.th[0].n);
    CHECK(bb_dump_instance_count(d) == 1 &&
              bb_dump_instance(d, 0)->shards[0].capacity == (1u << 20),
          "1 MiB rings");
    found_free(&f);
    bb_dump_close(d);
    unlink(ring);
}

/* A ring file that cannot be created (no such directory) or sized (a file size limit, as a
 * full disk would): a message naming the file and the reason, the recorder falls back to
 * anonymous memory (the child records and exits 0), no file is left behind. */
static void fallback(void) {
    char err[512], env_dir2[300];
    snprintf(err, sizeof err, "%s/stderr.txt", g_dir);
    snprintf(env_dir2, sizeof env_dir2, "BACKBEAT_RING_DIR=%s", g_dir);
    char *missing[] = {"BACKBEAT_RING_DIR=/nonexistent/backbeat-ring-dir", "BACKBEAT_ENABLE=1",
                       NULL};
    char *small[] = {env_dir2, "BACKBEAT_ENABLE=1", "BACKBEAT_SHARDS=1", NULL};
    char *args[] = {"exit", NULL};
    for (int k = 0; k < 2; k++) {
        ring_child_stderr = err;
        ring_child_fsize = k ? 65536 : 0;
        ring_child c;
        bool ok = ring_spawn(&c, BB_RING_CHILD, args, k ? small : missing, NULL);
        ring_child_stderr = NULL;
        ring_child_fsize = 0;
        if (!ok) {
            CHECK(0, "spawn");
            return;
        }
        int st = ring_wait(&c);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "exit status %#x (no global recorder?)", st);
        CHECK(file_says(err, k ? "cannot reserve" : "cannot create", "anonymous memory"),
              "the fallback message (case %d)", k);
        char ring[512];
        CHECK(ring_find(g_dir, ring, sizeof ring) == 0, "no ring file left behind (case %d)", k);
    }
    fallback_size();
}

/* Files in the test directory whose name ends with `suffix`. */
static int scan_count(const char *suffix) {
    char cmd[400];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '%s$'", g_dir, suffix);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p && fscanf(p, "%d", &n) != 1) n = -1;
    if (p) pclose(p);
    return n;
}

/* Remove the ring files of other processes than `pid` (the sleeper's, still in use by it). */
static void remove_others(pid_t pid) {
    char cmd[500];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && for f in backbeat.*.ring; do case $f in "
             "backbeat.%ld.*) ;; *) rm -f \"$f\";; esac; done",
             g_dir, (long)pid);
    CHECK(system(cmd) == 0, "%s", cmd);
}

/* The recorder never removes another process's file: a fork child makes, and at its normal
 * exit removes, its own; the parent's stays and recovers with the parent's records only. */
static void forked(void) {
    char *env[] = {base_env("1"), env_shards, "BACKBEAT_ENABLE=1", NULL};
    char *args[] = {"fork", NULL};
    ring_child c;
    if (!ring_spawn(&c, BB_RING_CHILD, args, env, NULL)) {
        CHECK(0, "spawn");
        return;
    }
    uint64_t msg[2], sleeper[2] = {0, 0};
    CHECK(ring_report(&c, msg) && msg[0] == 1 && msg[1] == 0, "the fork child exited 0");
    CHECK(ring_report(&c, sleeper) && sleeper[0] == 2 && sleeper[1] > 1, "the sleeper's pid");
    char ring[512], out[512];
    CHECK(scan_count(".ring") == 2, "the parent's and the sleeper's ring files");
    remove_others(c.pid);
    CHECK(ring_find(g_dir, ring, sizeof ring) == 1, "only the parent's ring file is left");
    char pidpart[64];
    snprintf(pidpart, sizeof pidpart, "backbeat.%ld.", (long)c.pid);
    CHECK(strstr(ring, pidpart) != NULL, "%s is the parent's", ring);
    CHECK(ring_kill(&c), "the child did not die of SIGKILL");
    CHECK(scan_says("\tgone (a process it forked still maps it)"),
          "gone although a fork child that inherited the mapping lives");
    if (sleeper[1] > 1) kill((pid_t)sleeper[1], SIGKILL);
    snprintf(out, sizeof out, "%s/recovered.bb", g_dir);
    bb_dump *d = recover(ring, out);
    if (!d) return;
    found f;
    memset(&f, 0, sizeof f);
    walk(d, &f, 0);
    CHECK(f.bad == 0 && f.th[0].n == 10 && f.th[1].n == 0 && f.th[2].n == 0,
          "%zu parent, %zu and %zu children's records", f.th[0].n, f.th[1].n, f.th[2].n);
    found_free(&f);
    bb_dump_close(d);
}

/* Usage and input errors of recover: exit 2 / 1, the message naming the file. */
static void cli_errors(void) {
    char err[512], notring[512], out[512];
    snprintf(err, sizeof err, "%s/stderr.txt", g_dir);
    snprintf(notring, sizeof notring, "%s/plain.txt", g_dir);
    snprintf(out, sizeof out, "%s/out.bb", g_dir);
    FILE *f = fopen(notring, "w");
    if (f) {
        for (int i = 0; i < 5000; i++) fputc('x', f);
        fclose(f);
    }
    struct {
        char *args[6];
        int status;
        const char *says;
    } cases[] = {
        {{"recover", NULL}, 2, "no ring file"},
        {{"recover", notring, NULL}, 2, "no output"},
        {{"recover", notring, "-o", out, NULL}, 1, "not a ring file"},
        {{"recover", notring, "-o", notring, NULL}, 1, "it is the input"},
        {{"recover", "--scan", "/nonexistent/backbeat-dir", NULL}, 1, "cannot list"},
        {{"recover", "--scan", g_dir, out, NULL}, 2, "--scan takes only"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ring_child_stderr = err;
        int st = ring_cli(BB_CLI, cases[k].args, NULL);
        ring_child_stderr = NULL;
        CHECK(st == cases[k].status && file_says(err, cases[k].says, NULL), "case %zu: exit %d", k,
              st);
        CHECK(access(out, F_OK) != 0, "case %zu wrote an output", k);
    }
    CHECK(file_says(err, "--scan", NULL), "last message");
    char fake[512], listing[512];
    snprintf(fake, sizeof fake, "%s/backbeat.1.0000000000000000.ring", g_dir);
    snprintf(listing, sizeof listing, "%s/scan.txt", g_dir);
    CHECK(rename(notring, fake) == 0, "rename");
    char *scan[] = {"recover", "--scan", g_dir, NULL};
    CHECK(ring_cli(BB_CLI, scan, listing) == 0 &&
              file_says(listing, fake, "invalid: not a ring file"),
          "--scan reports a damaged file");
    char *rec[] = {"recover", fake, "-o", out, NULL};
    ring_child_stderr = err;
    CHECK(ring_cli(BB_CLI, rec, NULL) == 1 && file_says(err, fake, "not a ring file"),
          "recover names the file");
    ring_child_stderr = NULL;
    char *inspect[] = {"inspect", fake, NULL};
    ring_child_stderr = err;
    CHECK(ring_cli(BB_CLI, inspect, "/dev/null") == 1, "inspect refuses it");
    ring_child_stderr = NULL;
}

/* Write `value` into the cgroup file dir/name; false (with errno) on failure. */
static bool cg_write(const char *dir, const char *name, const char *value) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (!f) return false;
    bool ok = fputs(value, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* A memory-limited cgroup (v2, else v1) in cg[cap]; false when none can be made here. */
static bool cg_create(char *cg, size_t cap, char *procs, size_t pcap) {
    bool v2 = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0;
    snprintf(cg, cap, "%s/bb_ring_oom_%ld", v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory",
             (long)getpid());
    if (mkdir(cg, 0755) != 0) return false;
    bool ok = v2 ? cg_write(cg, "memory.max", "64M") && (cg_write(cg, "memory.swap.max", "0"), 1)
                 : cg_write(cg, "memory.limit_in_bytes", "64M") &&
                       (cg_write(cg, "memory.memsw.limit_in_bytes", "64M"), 1) &&
                       (cg_write(cg, "memory.swappiness", "0"), 1);
    snprintf(procs, pcap, "%s/cgroup.procs", cg);
    if (!ok) rmdir(cg);
    return ok;
}

/* The cgroup's count of OOM kills ("oom_kill N" in memory.events or memory.oom_control), or -1
 * when the kernel does not say. */
static long cg_oom_kills(const char *cg) {
    const char *names[] = {"memory.events", "memory.oom_control"};
    for (int i = 0; i < 2; i++) {
        char p[512], line[256];
        snprintf(p, sizeof p, "%s/%s", cg, names[i]);
        FILE *f = fopen(p, "r");
        long n = -1;
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "oom_kill ", 9)) n = atol(line + 9);
        if (f) fclose(f);
        if (n >= 0) return n;
    }
    return -1;
}

/* The kernel's OOM killer ends the child in a 64 MiB cgroup while it records. */
static int oom_scenario(void) {
    char cg[256], procs[300];
    if (!cg_create(cg, sizeof cg, procs, sizeof procs)) {
        printf("SKIP: cannot create a memory-limited cgroup here: %s\n", strerror(errno));
        return 77;
    }
    char *env[] = {base_env("1"), env_shards, "BACKBEAT_ENABLE=1", "BACKBEAT_BYTES=1M", NULL};
    char *args[] = {"oom", NULL};
    ring_child c;
    if (!ring_spawn(&c, BB_RING_CHILD, args, env, procs)) {
        rmdir(cg);
        CHECK(0, "spawn");
        return 1;
    }
    uint64_t msg[2];
    CHECK(ring_report(&c, msg), "the child's start report");
    int st = ring_wait(&c);
    long kills = cg_oom_kills(cg);
    rmdir(cg);
    CHECK(kills != 0, "the cgroup counts no OOM kill");
    if (WIFEXITED(st) && WEXITSTATUS(st) == 3) {
        printf("SKIP: the cgroup's limit did not stop 4 GiB of allocations (swap?)\n");
        return 77;
    }
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the OOM killer's SIGKILL (status %#x)", st);
    char ring[512], out[512];
    CHECK(ring_find(g_dir, ring, sizeof ring) == 1, "one ring file in %s", g_dir);
    snprintf(out, sizeof out, "%s/recovered.bb", g_dir);
    bb_dump *d = recover(ring, out);
    if (!d) return 1;
    found f;
    memset(&f, 0, sizeof f);
    walk(d, &f, 4);
    CHECK(f.bad == 0 && f.th[0].n > 0, "%zu bad, %zu records", f.bad, f.th[0].n);
    found_free(&f);
    bb_dump_close(d);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    const char *sc = argv[1];
    const char *base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    if (!strcmp(sc, "plugin") && access("/dev/shm", W_OK) == 0) base = "/dev/shm";
    if (!make_dir(base)) return fprintf(stderr, "mkdtemp in %s: %s\n", base, strerror(errno)), 1;
    int rc = 0;
    if (!strcmp(sc, "heavy")) heavy(true);
    else if (!strcmp(sc, "shared")) heavy(false);
    else if (!strcmp(sc, "plugin")) plugin();
    else if (!strcmp(sc, "churn")) churn();
    else if (!strcmp(sc, "live")) live();
    else if (!strcmp(sc, "exit")) lifecycle(false);
    else if (!strcmp(sc, "keep")) lifecycle(true);
    else if (!strcmp(sc, "fallback")) fallback();
    else if (!strcmp(sc, "fork")) forked();
    else if (!strcmp(sc, "crash")) crash();
    else if (!strcmp(sc, "cli")) cli_errors();
    else if (!strcmp(sc, "oom")) rc = oom_scenario();
    else rc = 2;
    remove_dir();
    if (rc) return rc;
    return failures ? 1 : 0;
}
