/* ring_intern_gens.c — a ring-file recorder's intern table in generations (issue 38,
 * docs/RING_FILE.md "The intern table"): one writer interns 1 000 000 distinct strings, one per
 * record, through a 4096-string table (8 generations of 512) and a 16 KiB ring (250 000 when
 * followed), and
 *   recover  `backbeat recover --force` of the running writer (a child) gives no record another
 *            string; then the writer is SIGKILLed while it goes on interning, and `backbeat
 *            recover` of its file resolves the string of every record still in the ring to its
 *            own string (0 "table full", 0 missing, 0 wrong);
 *   follow   a follower (bb_ring_follow) reads the file while the generations turn over (the
 *            writer at most 300 records ahead of it) and resolves every record to its own
 *            string; then, on a copy of the file, a
 *            storage marked as being emptied, one whose bytes no longer match their hashes
 *            under a new generation number, and one whose id base is past the ids the writer
 *            gives, leave their records' ids unresolved (`#id`), never another string;
 *   compat   a version 2 file (one generation, no generation table) still reads; a header
 *            announcing 9 generations is refused.
 * Prints the strings interned, generations turned, records checked and rows unresolved. */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../support/check.h"
#include "backbeat/backbeat.h"
#include "backbeat/reader.h"
#include "backbeat/ring_reader.h"
#include "format/ring_file.h"

BB_EVENT(gen_hit, "test::ring_intern", "Hit", NULL, BB_FIELD(uint64_t, seq, "Which string."),
         BB_INTERN_DYN_F(uri, "The distinct string."), BB_FIELD(uint32_t, _pad, NULL));

#define N 1000000u
#define ENTRIES 4096u
#define BYTES (512u * 1024u)
#define RING 16384u

static char g_dir[64];

static int text_of(uint64_t seq, char *buf, size_t cap) {
    return snprintf(buf, cap, "/uri/%llu/%llx", (unsigned long long)seq,
                    (unsigned long long)(seq * UINT64_C(0x9E3779B97F4A7C15) >> 40));
}

static void put(bb_recorder *rec, uint64_t seq) {
    char buf[64];
    int n = text_of(seq, buf, sizeof buf);
    BB_RECORD(rec, gen_hit, .seq = seq, .uri = bb_intern(rec, buf, (size_t)n));
}

static bb_recorder *make(uint32_t entries, uint32_t bytes) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 1;
    o.bytes_per_shard = RING;
    o.intern_entries = entries;
    o.intern_bytes = bytes;
    bb_recorder *rec = NULL;
    bb_error err;
    if (bb_recorder_create_ring(&o, g_dir, true, &rec, &err) != BB_OK) {
        fprintf(stderr, "ring_intern_gens: %s\n", err.message);
        exit(1);
    }
    bb_recorder_enable(rec, true);
    return rec;
}

/* What the records of the dumps checked said. */
typedef struct tally {
    uint64_t records, ok, full, missing, wrong;
    uint64_t newest; /* the newest record's seq + 1 */
} tally;

typedef struct walk_ctx {
    const bb_dump *d;
    const bb_rinstance *inst;
    tally *t;
} walk_ctx;

static int on_record(const bb_record *r, void *vctx) {
    walk_ctx *c = vctx;
    const bb_rschema *s = bb_dump_find_schema(c->d, r->event_id);
    if (!s || r->event_id != bb_event_id(BB_DESC(gen_hit))) return 0;
    bb_value seq = bb_decode_field(s, 0, r->fields, c->inst);
    bb_value uri = bb_decode_field(s, 1, r->fields, c->inst);
    char want[64];
    int n = text_of(seq.u, want, sizeof want);
    c->t->records++;
    if (seq.u + 1 > c->t->newest) c->t->newest = seq.u + 1;
    if (uri.u == BB_INTERN_FULL_ID) c->t->full++;
    else if (!uri.has_label) c->t->missing++;
    else if (uri.str.len == (size_t)n && memcmp(uri.str.ptr, want, (size_t)n) == 0) c->t->ok++;
    else if (c->t->wrong++ < 5)
        fprintf(stderr, "record %llu: id %llu resolves to another string (%.*s)\n",
                (unsigned long long)seq.u, (unsigned long long)uri.u, (int)uri.str.len,
                uri.str.ptr);
    return 0;
}

static void check_dump(const bb_dump *d, tally *t) {
    for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
        walk_ctx c = {d, bb_dump_instance(d, i), t};
        for (size_t k = 0; k < c.inst->shard_count; k++)
            bb_shard_walk(d, &c.inst->shards[k], on_record, &c, NULL);
    }
}

/* A dump in memory (a snapshot or follow call's), checked. */
static bool check_mem(const void *mem, size_t len, tally *t) {
    bb_dump *d = NULL;
    bb_error err;
    if (bb_dump_open_memory(mem, len, "ring", &d, &err) != BB_OK) {
        CHECK(0, "the dump does not open: %s", err.message);
        return false;
    }
    check_dump(d, t);
    bb_dump_close(d);
    return true;
}

static uint32_t get32(const uint8_t *h, size_t off) {
    uint32_t v;
    memcpy(&v, h + off, 4);
    return v;
}

/* The ring file's header at `path` into h (a failed read is a failed check; h then zero). */
static void read_header(const char *path, uint8_t h[BB_RING_HEADER_SIZE]) {
    memset(h, 0, BB_RING_HEADER_SIZE);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0 && pread(fd, h, BB_RING_HEADER_SIZE, 0) == (ssize_t)BB_RING_HEADER_SIZE,
          "cannot read %s", path);
    if (fd >= 0) close(fd);
}

/* The generations the file's table went through: its storages' reuses, and the newest number. */
static uint64_t turned(const uint8_t *h, uint32_t *newest) {
    uint64_t n = 0;
    *newest = 0;
    for (uint32_t s = 0; s < get32(h, BB_RH_GENS); s++) {
        const uint8_t *e = h + BB_RH_GEN_TABLE + s * BB_RING_GEN_STRIDE;
        n += get32(e, BB_RG_REUSES);
        if (get32(e, BB_RG_NUMBER) < BB_RING_GEN_BUSY && get32(e, BB_RG_NUMBER) > *newest)
            *newest = get32(e, BB_RG_NUMBER);
    }
    return n;
}

static bool find_ring(char *out, size_t cap) {
    DIR *dir = opendir(g_dir);
    struct dirent *e;
    bool found = false;
    while (dir && (e = readdir(dir)) != NULL)
        if (strstr(e->d_name, ".ring")) found = snprintf(out, cap, "%s/%s", g_dir, e->d_name) > 0;
    if (dir) closedir(dir);
    return found;
}

static void remove_dir(void) {
    DIR *dir = opendir(g_dir);
    struct dirent *e;
    char p[512];
    while (dir && (e = readdir(dir)) != NULL)
        if (e->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
            unlink(p);
        }
    if (dir) closedir(dir);
    rmdir(g_dir);
}

static void report(const char *what, uint64_t interned, uint64_t gens, const tally *t) {
    printf("%s: %llu strings interned, %llu generations turned, %llu records checked: %llu "
           "resolved, %llu unresolved (%llu table full, %llu missing), %llu wrong\n",
           what, (unsigned long long)interned, (unsigned long long)gens,
           (unsigned long long)t->records, (unsigned long long)t->ok,
           (unsigned long long)(t->full + t->missing), (unsigned long long)t->full,
           (unsigned long long)t->missing, (unsigned long long)t->wrong);
}

/* ---- recover: SIGKILL, then `backbeat recover` ------------------------------------------- */

static int run_cli(char *const *args) {
    pid_t p = fork();
    if (p == 0) {
        execv(BB_CLI, args);
        _exit(127);
    }
    int st = 0;
    return p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void recover_after_kill(void) {
    int fds[2];
    if (pipe(fds) != 0) exit(1);
    pid_t pid = fork();
    if (pid == 0) { /* the writer: N strings, says so, then goes on until killed */
        close(fds[0]);
        bb_recorder *rec = make(ENTRIES, BYTES);
        uint64_t seq = 0;
        for (; seq < N; seq++) put(rec, seq);
        if (write(fds[1], &seq, sizeof seq) != (ssize_t)sizeof seq) _exit(2);
        for (;; seq++) put(rec, seq);
    }
    close(fds[1]);
    uint64_t done = 0;
    CHECK(read(fds[0], &done, sizeof done) == (ssize_t)sizeof done && done == N,
          "the writer did not intern its strings");
    close(fds[0]);
    char ring[400], out[400];
    CHECK(find_ring(ring, sizeof ring), "no ring file in %s", g_dir);
    snprintf(out, sizeof out, "%s/live.bb", g_dir);
    char *live[] = {BB_CLI, "recover", "--force", ring, "-o", out, NULL};
    CHECK(run_cli(live) == 0, "backbeat recover --force %s failed", ring);
    tally lt = {0};
    bb_dump *d = NULL;
    bb_error err;
    if (bb_dump_open(out, &d, &err) != BB_OK) CHECK(0, "%s: %s", out, err.message);
    else check_dump(d, &lt);
    if (d) bb_dump_close(d);
    d = NULL;
    unlink(out);
    /* records written while the snapshot copies may name strings interned after it read the
     * table (RING_FILE.md): those are unresolved, never another string */
    report("recover --force of the running writer", N, 0, &lt);
    CHECK(lt.wrong == 0 && lt.full == 0, "recover --force: %llu wrong of %llu",
          (unsigned long long)lt.wrong, (unsigned long long)lt.records);
    kill(pid, SIGKILL);
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the writer was not killed (%d)", st);
    snprintf(out, sizeof out, "%s/recovered.bb", g_dir);
    char *args[] = {BB_CLI, "recover", ring, "-o", out, NULL};
    CHECK(run_cli(args) == 0, "backbeat recover %s failed", ring);
    uint8_t h[BB_RING_HEADER_SIZE];
    read_header(ring, h);
    uint32_t newest;
    uint64_t gens = turned(h, &newest);
    tally t = {0};
    if (bb_dump_open(out, &d, &err) != BB_OK) CHECK(0, "%s: %s", out, err.message);
    else check_dump(d, &t);
    if (d) bb_dump_close(d);
    report("recover after SIGKILL", N, gens, &t);
    CHECK(get32(h, BB_RH_VERSION) == BB_RING_VERSION && get32(h, BB_RH_GENS) == 8,
          "version %u, %u generations", get32(h, BB_RH_VERSION), get32(h, BB_RH_GENS));
    CHECK(gens >= N / (ENTRIES / 8) - 8, "only %llu generations turned", (unsigned long long)gens);
    CHECK(t.records > RING / 64, "only %llu records recovered", (unsigned long long)t.records);
    CHECK(t.ok == t.records && t.full == 0 && t.missing == 0 && t.wrong == 0,
          "%llu of %llu records resolved", (unsigned long long)t.ok, (unsigned long long)t.records);
}

/* ---- follow: a reader while the generations turn over ----------------------------------- */

/* The writer keeps less than half a ring ahead of the follower (it waits for it), so that
 * every record is followed (none lapped) however slow the follower is (a loaded host, TSan),
 * while the follower's calls still run during its bursts. */
#define AHEAD 300u
#define NF 250000u /* strings the followed writer interns */

typedef struct writer {
    bb_recorder *rec;
    uint64_t done;     /* atomic: strings interned */
    uint64_t followed; /* atomic: the follower's newest record + 1 */
} writer;

static void *write_all(void *arg) {
    writer *w = arg;
    for (uint64_t seq = 0; seq < NF; seq++) {
        while (seq >= __atomic_load_n(&w->followed, __ATOMIC_ACQUIRE) + AHEAD) {
            __atomic_store_n(&w->done, seq, __ATOMIC_RELEASE);
            usleep(50);
        }
        put(w->rec, seq);
    }
    __atomic_store_n(&w->done, NF, __ATOMIC_RELEASE);
    return NULL;
}

static void follow_calls(bb_ring *r, writer *w, tally *t, uint64_t *calls, uint64_t *lost) {
    bb_ring_cursor cur = {BB_RING_OLDEST, 0, 0, 0};
    bool last = false;
    while (!last) {
        last = __atomic_load_n(&w->done, __ATOMIC_ACQUIRE) == NF; /* one more call after */
        void *mem = NULL;
        size_t len = 0;
        bb_error err;
        if (bb_ring_follow(r, &cur, &mem, &len, &err) != BB_OK) {
            CHECK(0, "follow: %s", err.message);
            return;
        }
        (*calls)++;
        *lost += cur.lost;
        bool ok = check_mem(mem, len, t);
        bb_ring_buffer_free(mem);
        if (!ok) return;
        __atomic_store_n(&w->followed, t->newest, __ATOMIC_RELEASE);
        if (!last && cur.bytes < 2048) usleep(100); /* a reader that keeps up, not a spinner */
    }
}

/* On a copy of the file (a dead process's, as bb_ring_open_memory reads it): the newest
 * generation's storage marked as being emptied, then its bytes damaged under a new generation
 * number: its records then read as unresolved ids, never as other strings. */
static void recycled_under_reader(const char *path) {
    int fd = open(path, O_RDONLY);
    struct stat sb;
    uint8_t *f = fd >= 0 && fstat(fd, &sb) == 0 ? malloc((size_t)sb.st_size) : NULL;
    if (!f || pread(fd, f, (size_t)sb.st_size, 0) != sb.st_size) {
        CHECK(0, "cannot copy %s", path);
        free(f);
        if (fd >= 0) close(fd);
        return;
    }
    close(fd);
    bb_ring *r = NULL;
    bb_error err;
    CHECK(bb_ring_open_memory(f, (size_t)sb.st_size, "copy", &r, &err) == BB_OK, "%s", err.message);
    uint32_t newest = 0, s = 0, gens = get32(f, BB_RH_GENS);
    (void)turned(f, &newest);
    for (uint32_t i = 0; i < gens; i++)
        if (get32(f + BB_RH_GEN_TABLE + i * BB_RING_GEN_STRIDE, BB_RG_NUMBER) == newest) s = i;
    uint8_t *e = f + BB_RH_GEN_TABLE + s * BB_RING_GEN_STRIDE;
    tally t[4] = {{0}, {0}, {0}, {0}};
    for (int step = 0; r && step < 4; step++) {
        uint32_t number = step == 0   ? newest
                          : step == 1 ? BB_RING_GEN_BUSY
                                      : newest + 100 * (uint32_t)step;
        memcpy(e + BB_RG_NUMBER, &number, 4);
        if (step >= 2) { /* every string of the storage damaged (step 2: no hash matches), then
                          * whole again under ids the writer never gives (step 3) */
            uint64_t arena = 0;
            memcpy(&arena, f + BB_RH_ARENA_OFF, 8);
            uint32_t gb = get32(f, BB_RH_INTERN_BYTES) / gens, base = UINT32_MAX - 600;
            for (uint32_t k = 0; k < gb; k++) f[arena + (uint64_t)s * gb + k] ^= 0x20;
            if (step == 3) memcpy(e + BB_RG_ID_BASE, &base, 4);
        }
        void *mem = NULL;
        size_t len = 0;
        if (bb_ring_snapshot(r, &mem, &len, &err) != BB_OK) CHECK(0, "snapshot: %s", err.message);
        else check_mem(mem, len, &t[step]);
        bb_ring_buffer_free(mem);
    }
    printf("copy of the file: %llu records resolved; storage %u being emptied: %llu resolved, "
           "%llu unresolved, %llu wrong; its bytes damaged: %llu resolved, %llu unresolved, %llu "
           "wrong; whole under ids past the writer's: %llu resolved, %llu unresolved, %llu "
           "wrong\n",
           (unsigned long long)t[0].ok, s, (unsigned long long)t[1].ok,
           (unsigned long long)t[1].missing, (unsigned long long)t[1].wrong,
           (unsigned long long)t[2].ok, (unsigned long long)t[2].missing,
           (unsigned long long)t[2].wrong, (unsigned long long)t[3].ok,
           (unsigned long long)t[3].missing, (unsigned long long)t[3].wrong);
    CHECK(t[0].records > 0 && t[0].ok == t[0].records, "a copy of the file: %llu of %llu resolved",
          (unsigned long long)t[0].ok, (unsigned long long)t[0].records);
    for (int k = 1; k < 4; k++)
        CHECK(t[k].missing > 0 && t[k].wrong == 0 && t[k].full == 0 &&
                  t[k].ok + t[k].missing == t[k].records,
              "step %d: %llu resolved, %llu missing, %llu wrong of %llu", k,
              (unsigned long long)t[k].ok, (unsigned long long)t[k].missing,
              (unsigned long long)t[k].wrong, (unsigned long long)t[k].records);
    bb_ring_close(r);
    free(f);
}

static void follow_live(void) {
    writer w = {make(ENTRIES, BYTES), 0, 0};
    bb_ring *r = NULL;
    bb_error err;
    if (bb_ring_open(bb_recorder_ring_path(w.rec), &r, &err) != BB_OK) {
        CHECK(0, "open: %s", err.message);
        return;
    }
    pthread_t th;
    if (pthread_create(&th, NULL, write_all, &w) != 0) exit(1);
    tally t = {0};
    uint64_t calls = 0, lost = 0;
    follow_calls(r, &w, &t, &calls, &lost);
    pthread_join(th, NULL);
    bb_ring_close(r);
    char path[400];
    snprintf(path, sizeof path, "%s", bb_recorder_ring_path(w.rec));
    uint8_t h[BB_RING_HEADER_SIZE];
    read_header(path, h);
    uint32_t newest;
    uint64_t gens = turned(h, &newest);
    report("live follower", NF, gens, &t);
    printf("live follower: %llu follow calls, %llu bytes lost\n", (unsigned long long)calls,
           (unsigned long long)lost);
    CHECK(gens >= NF / (ENTRIES / 8) - 8, "only %llu generations turned", (unsigned long long)gens);
    CHECK(t.records == NF && lost == 0, "%llu of %llu records followed, %llu bytes lost",
          (unsigned long long)t.records, (unsigned long long)NF, (unsigned long long)lost);
    CHECK(t.ok == t.records && t.full == 0 && t.missing == 0 && t.wrong == 0,
          "%llu of %llu records resolved", (unsigned long long)t.ok, (unsigned long long)t.records);
    recycled_under_reader(path);
    bb_recorder_free(w.rec);
}

/* ---- compat: a version 2 file still reads ----------------------------------------------- */

static void refix(uint8_t *f) {
    uint64_t c = bb__ring_fnv64(f, BB_RING_CHECKED);
    memcpy(f + BB_RH_CHECK, &c, 8);
}

static void compat(void) {
    bb_recorder *rec = make(64, 4096); /* one generation: the layout of version 2 */
    for (uint64_t seq = 0; seq < 40; seq++) put(rec, seq);
    const char *path = bb_recorder_ring_path(rec);
    int fd = open(path, O_RDONLY);
    struct stat sb;
    uint8_t *f = fd >= 0 && fstat(fd, &sb) == 0 ? malloc((size_t)sb.st_size) : NULL;
    CHECK(f && pread(fd, f, (size_t)sb.st_size, 0) == sb.st_size, "cannot copy %s", path);
    if (fd >= 0) close(fd);
    CHECK(f && get32(f, BB_RH_GENS) == 1, "a 64-string table has %u generations",
          f ? get32(f, BB_RH_GENS) : 0);
    for (int k = 0; f && k < 2; k++) {
        uint32_t v = k == 0 ? 2 : 3, gens = k == 0 ? 0 : 9;
        memcpy(f + BB_RH_VERSION, &v, 4);
        memcpy(f + BB_RH_GENS, &gens, 4);
        if (k == 0) memset(f + BB_RH_GEN_TABLE, 0, BB_RING_GEN_MAX * BB_RING_GEN_STRIDE);
        refix(f);
        bb_ring *r = NULL;
        bb_error err;
        bb_status st = bb_ring_open_memory(f, (size_t)sb.st_size, "v2", &r, &err);
        if (k == 1) {
            CHECK(st != BB_OK && strstr(err.message, "generation count"),
                  "9 generations accepted: %s", st == BB_OK ? "" : err.message);
            bb_ring_close(r);
            break;
        }
        CHECK(st == BB_OK, "a version 2 file: %s", err.message);
        void *mem = NULL;
        size_t len = 0;
        tally t = {0};
        if (st == BB_OK && bb_ring_snapshot(r, &mem, &len, &err) == BB_OK) check_mem(mem, len, &t);
        else CHECK(0, "a version 2 file's snapshot: %s", err.message);
        bb_ring_buffer_free(mem);
        bb_ring_close(r);
        printf("version 2 file: %llu of %llu records resolved\n", (unsigned long long)t.ok,
               (unsigned long long)t.records);
        CHECK(t.records == 40 && t.ok == 40, "version 2: %llu of %llu resolved",
              (unsigned long long)t.ok, (unsigned long long)t.records);
    }
    free(f);
    bb_recorder_free(rec);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: ring_intern_gens recover|follow|compat\n");
        return 2;
    }
    snprintf(g_dir, sizeof g_dir, "/tmp/bb_ringgen_XXXXXX");
    if (!mkdtemp(g_dir)) return 77;
    if (!strcmp(argv[1], "recover")) recover_after_kill();
    else if (!strcmp(argv[1], "follow")) follow_live();
    else if (!strcmp(argv[1], "compat")) compat();
    else CHECK(0, "unknown scenario %s", argv[1]);
    remove_dir();
    return failures ? 1 : 0;
}
