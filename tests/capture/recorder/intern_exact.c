/* intern_exact.c — a dump carries exactly the strings its records name (issue 38): while the
 * intern table turns its generations over hundreds of times, the Intern section of each kind of
 * dump (to memory, to a path, the crash path's signal-safe one) holds the very set of ids that
 * the interned fields of its records name (event fields and log lines' BB_I arguments), no
 * more, no fewer; BB_INTERN_FULL_ID's entry only while a record names it. And the default
 * table of a recorder with large rings stays under its ceiling.
 * Usage: recorder_intern_exact [distinct strings] (default 200000). */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <backbeat/log.h>

#include "rec_util.h"

BB_EVENT(ex_hit, "test::exact", "Hit", NULL, BB_FIELD(uint64_t, seq, NULL),
         BB_INTERN_DYN_F(uri, "A distinct string."), BB_INTERN_F(route, "A call-site string."));
BB_EVENT(ex_plain, "test::exact", "Plain", NULL, BB_FIELD(uint64_t, seq, NULL));

typedef struct ids {
    uint32_t *v;
    size_t n, cap;
} ids;

static void ids_add(ids *s, uint32_t id) {
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v) exit(1);
    }
    s->v[s->n++] = id;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The distinct ids the interned fields of d's records name, ascending; *records: records read. */
static ids named(const rec_dump *d, size_t *records) {
    ids s = {0};
    *records = 0;
    for (size_t k = 0; k < d->inst->shard_count; k++) {
        rec_list l = {0};
        rec_collect(d, d->inst->shards[k].shard_id, &l);
        for (size_t i = 0; i < l.n; i++) {
            const bb_rschema *sc = bb_dump_find_schema(d->dump, l.items[i].event_id);
            if (!sc) continue;
            (*records)++;
            for (size_t f = 0; f < sc->field_count; f++) {
                if (sc->fields[f].type != BB_TYPE_INTERNED || sc->fields[f].width != 4) continue;
                const uint8_t *p = l.items[i].fields + sc->fields[f].offset;
                ids_add(&s, (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                                (uint32_t)p[3] << 24);
            }
        }
        free(l.items);
    }
    if (s.n) qsort(s.v, s.n, sizeof *s.v, cmp_u32);
    size_t u = 0;
    for (size_t i = 0; i < s.n; i++)
        if (u == 0 || s.v[u - 1] != s.v[i]) s.v[u++] = s.v[i];
    s.n = u;
    return s;
}

/* The Intern section's ids equal the named ids (both ascending, no duplicate). */
static void check_exact(const char *what, const rec_dump *d, bool want_full) {
    size_t records = 0;
    ids s = named(d, &records);
    size_t n = d->inst->intern_count, same = n == s.n;
    for (size_t i = 0; same && i < n; i++) same = d->inst->intern[i].id == s.v[i];
    bool has_full = s.n > 0 && s.v[0] == BB_INTERN_FULL_ID;
    printf("intern_exact: %-12s %zu records name %zu distinct ids; the Intern section holds %zu "
           "entries: %s%s\n",
           what, records, s.n, n, same ? "the same set" : "NOT the same set",
           has_full ? " (id 0 named)" : "");
    if (!same) {
        size_t a = 0, b = 0, extra = 0, missing = 0;
        while (a < n || b < s.n) {
            if (b == s.n || (a < n && d->inst->intern[a].id < s.v[b])) extra++, a++;
            else if (a == n || s.v[b] < d->inst->intern[a].id) missing++, b++;
            else a++, b++;
        }
        fprintf(stderr, "intern_exact: %s: %zu entries no record names, %zu named ids missing\n",
                what, extra, missing);
    }
    CHECK(same);
    CHECK(records > 100);
    CHECK_EQ_U64(has_full, want_full);
    free(s.v);
}

/* Open `len` bytes read from fd (from offset 0) as a dump of rec. */
static void open_fd(bb_recorder *rec, int fd, rec_dump *d) {
    memset(d, 0, sizeof *d);
    off_t len = lseek(fd, 0, SEEK_END);
    d->buf = len > 0 ? malloc((size_t)len) : NULL;
    bb_error err;
    if (!d->buf || pread(fd, d->buf, (size_t)len, 0) != len ||
        bb_dump_open_memory(d->buf, (size_t)len, "fd", &d->dump, &err) != BB_OK ||
        !(d->inst = bb_dump_find_instance(d->dump, bb_recorder_instance_id(rec)))) {
        fprintf(stderr, "intern_exact: cannot read a dump back\n");
        exit(1);
    }
    d->len = (size_t)len;
}

/* Each kind of dump of rec: to memory, to a path, and the signal-safe one. */
static void check_all(bb_recorder *rec, bool want_full) {
    rec_dump d;
    rec_dump_take(rec, &d);
    check_exact("memory:", &d, want_full);
    rec_dump_release(&d);

    char path[] = "/tmp/bb_intern_exact_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    bb_error err;
    CHECK(bb_recorder_dump_path(rec, path, NULL, &err) == BB_OK);
    close(fd);
    fd = open(path, O_RDONLY);
    open_fd(rec, fd, &d);
    close(fd);
    check_exact("path:", &d, want_full);
    rec_dump_release(&d);

    fd = open(path, O_RDWR | O_TRUNC);
    unlink(path);
    CHECK(bb_recorder_dump_fd_signal_safe(rec, fd) == BB_OK);
    open_fd(rec, fd, &d);
    close(fd);
    check_exact("signal-safe:", &d, want_full);
    rec_dump_release(&d);
}

static bb_recorder *make(uint32_t entries, uint32_t bytes) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 2;
    o.bytes_per_shard = 16384;
    o.intern_entries = entries;
    o.intern_bytes = bytes;
    bb_recorder *rec = NULL;
    if (bb_recorder_create(&o, &rec) != BB_OK) {
        fprintf(stderr, "intern_exact: cannot create a recorder\n");
        exit(1);
    }
    bb_recorder_enable(rec, true);
    return rec;
}

static uint32_t intern_seq(bb_recorder *rec, uint64_t i) {
    char buf[64];
    int n = snprintf(buf, sizeof buf, "/exact/uri/%llu", (unsigned long long)i);
    return bb_intern(rec, buf, (size_t)n);
}

/* Generations turning over: 8 of 512 strings, `n` distinct strings (n / 512 generations). */
static void test_generations(uint64_t n) {
    bb_recorder *rec = make(4096, 512u * 1024u);
    for (uint64_t i = 0; i < n; i++) {
        BB_RECORD(rec, ex_hit, .seq = i, .uri = intern_seq(rec, i),
                  .route = BB_INTERN(rec, "static-route"));
        if (i % 7 == 0) {
            char s[48];
            snprintf(s, sizeof s, "user-%llu", (unsigned long long)i);
            BB_LOG(rec, BB_INFO, "login by %s", BB_I(s));
        }
        if (i % 5 == 0) BB_RECORD(rec, ex_plain, .seq = i);
        if (i == n / 2) check_all(rec, false); /* mid-run, ids of many generations */
    }
    bb_recorder_stats st;
    bb_recorder_stats_get(rec, &st);
    printf("intern_exact: %llu distinct strings through a 4096-string table: %llu live strings "
           "in the table, %llu intern calls answered 0\n",
           (unsigned long long)n, (unsigned long long)st.intern_count,
           (unsigned long long)st.intern_full);
    CHECK_EQ_U64(st.intern_full, 0);
    check_all(rec, false);
    bb_recorder_free(rec);
}

/* `n` plain records from every CPU the thread may run on: a record goes to its CPU's shard, so
 * this wraps every shard past the records before it, whichever CPUs wrote those (a thread that
 * wrote the first ones on one CPU and the rest on another left the first shard unwrapped). */
static void wrap_every_shard(bb_recorder *rec, uint64_t n) {
    cpu_set_t was;
    bool pinned = sched_getaffinity(0, sizeof was, &was) == 0;
    for (int c = 0; pinned && c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &was)) continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0) continue;
        for (uint64_t i = 0; i < n; i++) BB_RECORD(rec, ex_plain, .seq = i);
    }
    if (pinned) (void)sched_setaffinity(0, sizeof was, &was);
    else
        for (uint64_t i = 0; i < n; i++) BB_RECORD(rec, ex_plain, .seq = i);
}

/* A table of one generation that fills for good: id 0's entry while records name it, and not
 * once the rings have wrapped past them (the table still says it answered 0). */
static void test_full(void) {
    bb_recorder *rec = make(64, 4096);
    for (uint64_t i = 0; i < 200; i++)
        BB_RECORD(rec, ex_hit, .seq = i, .uri = intern_seq(rec, i),
                  .route = BB_INTERN(rec, "static-route"));
    bb_recorder_stats st;
    bb_recorder_stats_get(rec, &st);
    CHECK(st.intern_full > 0);
    check_all(rec, true);
    wrap_every_shard(rec, 20000);
    for (uint64_t i = 0; i < 20; i++) /* strings interned before the table filled */
        BB_RECORD(rec, ex_hit, .seq = i, .uri = intern_seq(rec, i),
                  .route = BB_INTERN(rec, "static-route"));
    check_all(rec, false);
    bb_recorder_free(rec);
}

/* The process's virtual size in bytes (/proc/self/statm), 0 when unknown. */
static uint64_t vm_size(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long pages = 0;
    if (!f) return 0;
    if (fscanf(f, "%llu", &pages) != 1) pages = 0;
    fclose(f);
    return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* The default table of a recorder with 1 GiB of rings stays under its ceiling (4 Mi strings of
 * 48 bytes: ~290 MiB with entries and hash slots), not a string per 20 ring bytes (4 GiB). */
static void test_default_cap(void) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 16;
    o.bytes_per_shard = 64u << 20;
    uint64_t before = vm_size();
    bb_recorder *rec = NULL;
    if (bb_recorder_create(&o, &rec) != BB_OK) {
        printf("intern_exact: default cap skipped (1 GiB of rings cannot be mapped here)\n");
        return;
    }
    uint64_t grown = vm_size() - before, rings = (uint64_t)16 << 26;
    printf("intern_exact: a recorder with 1 GiB of rings and the default intern table reserves "
           "%.0f MiB besides its rings\n",
           ((double)grown - (double)rings) / 1048576.0);
    if (before == 0 || grown < rings) printf("intern_exact: (virtual size not measurable)\n");
    else CHECK(grown - rings < (uint64_t)384 << 20);
    bb_recorder_enable(rec, true);
    uint32_t id = bb_intern(rec, "a", 1); /* the table works */
    CHECK(id != BB_INTERN_FULL_ID);
    bb_recorder_free(rec);
}

int main(int argc, char **argv) {
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000;
    bb_log_level_set(BB_INFO);
    test_generations(n);
    test_full();
    test_default_cap();
    return rec_finish("recorder_intern_exact");
}
