/* intern_gens.c — the intern table's generations (issue 38): a process interning far more
 * distinct strings than the table holds, through small rings, still resolves every string its
 * dumps' records name (each record checked against its own string), never answers "table
 * full" while the rings wrap, keeps call-site (BB_INTERN) strings resolving across many
 * retirements, two threads racing through generation switches never get a wrong string, and
 * a shard that stops receiving records holds back only the generation its records name.
 * Usage: recorder_intern_gens [distinct strings [ring bytes intern-entries intern-bytes]]
 * (default 2000000 16384 4096 524288; intern-entries and -bytes 0: the library's defaults);
 * INTERN_GENS_DUMP=path also writes the single-thread run's final dump there. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rec_util.h"

BB_EVENT(hit, "test::intern", "Hit", NULL, BB_FIELD(uint64_t, seq, "Which string."),
         BB_FIELD(uint32_t, thread, "Which thread."), BB_INTERN_DYN_F(uri, "The distinct string."),
         BB_INTERN_F(route, "A call-site string."), BB_FIELD(uint32_t, _pad, NULL));
BB_EVENT(tick, "test::intern", "Tick", NULL, BB_FIELD(uint64_t, seq, "No string."));

/* The table: 8 generations of 512 strings and 64 KiB; rings of ~500 records. Arguments may
 * change them for a measurement (the checks then hold only if the table is large enough for
 * what the rings hold). */
static uint32_t ENTRIES = 4096u, BYTES = 512u * 1024u, RING = 16384u;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bb_recorder *make(uint32_t shards) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = shards;
    o.bytes_per_shard = RING;
    o.intern_entries = ENTRIES;
    o.intern_bytes = BYTES;
    bb_recorder *rec = NULL;
    if (bb_recorder_create(&o, &rec) != BB_OK) {
        fprintf(stderr, "intern_gens: cannot create a recorder\n");
        exit(1);
    }
    bb_recorder_enable(rec, true);
    return rec;
}

static bool field_is(const bb_value *v, const char *want) {
    return v->kind == BB_VALUE_STRING && v->has_label && v->str.len == strlen(want) &&
           memcmp(v->str.ptr, want, v->str.len) == 0;
}

/* Check every record of d against its own strings; *full counts id-0 uris and, mid-race,
 * unresolved ids (both allowed only when `full_ok`); an id naming another string always fails.
 * Returns the records that resolved. */
static size_t verify(const rec_dump *d, uint32_t shards, bool full_ok, size_t *full) {
    size_t ok = 0, bad = 0, total = 0;
    if (ENTRIES) /* live generations only (+ the full entry) */
        CHECK(d->inst->intern_count <= ENTRIES + 1);
    for (uint32_t s = 0; s < shards; s++) {
        rec_list l = {0};
        rec_collect(d, s, &l);
        for (size_t i = 0; i < l.n; i++) {
            const bb_rschema *sc = bb_dump_find_schema(d->dump, l.items[i].event_id);
            if (!sc || l.items[i].event_id != bb_event_id(BB_DESC(hit))) continue;
            total++;
            bb_value seq = bb_decode_field(sc, 0, l.items[i].fields, d->inst);
            bb_value th = bb_decode_field(sc, 1, l.items[i].fields, d->inst);
            bb_value uri = bb_decode_field(sc, 2, l.items[i].fields, d->inst);
            bb_value route = bb_decode_field(sc, 3, l.items[i].fields, d->inst);
            char want[64];
            snprintf(want, sizeof want, "/t%llu/uri/%llu", (unsigned long long)th.u,
                     (unsigned long long)seq.u);
            if (uri.kind == BB_VALUE_STRING && uri.u == BB_INTERN_FULL_ID) {
                (*full)++;
                if (!full_ok) bad++;
            } else if (field_is(&uri, want) && field_is(&route, "static-route")) {
                ok++;
            } else if (full_ok && (!uri.has_label || field_is(&uri, want)) &&
                       (!route.has_label || field_is(&route, "static-route"))) {
                /* a dump taken mid-race: its intern section is the table when the dump began,
                 * before the rings are copied, so a string interned in between and recorded
                 * before the copy is not in it (never another string's) */
                (*full)++;
            } else if (bad++ < 5) {
                fprintf(stderr, "record seq %llu: uri id %llu %s, route %s\n",
                        (unsigned long long)seq.u, (unsigned long long)uri.u,
                        uri.has_label ? "resolves to another string" : "unresolved",
                        field_is(&route, "static-route") ? "ok" : "wrong");
            }
        }
        free(l.items);
    }
    CHECK(total > 0);
    CHECK_EQ_U64(bad, 0);
    return ok;
}

/* The crash path's dump (bb_recorder_dump_fd_signal_safe: no lock, the live rings) of rec,
 * opened like rec_dump_take's. */
static void take_signal_safe(bb_recorder *rec, rec_dump *d) {
    memset(d, 0, sizeof *d);
    char path[] = "/tmp/bb_intern_gens_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || bb_recorder_dump_fd_signal_safe(rec, fd) != BB_OK) {
        fprintf(stderr, "intern_gens: signal-safe dump failed\n");
        exit(1);
    }
    unlink(path);
    off_t len = lseek(fd, 0, SEEK_END);
    d->buf = len > 0 ? malloc((size_t)len) : NULL;
    bb_error err;
    if (!d->buf || pread(fd, d->buf, (size_t)len, 0) != len ||
        bb_dump_open_memory(d->buf, (size_t)len, "signal-safe", &d->dump, &err) != BB_OK ||
        !(d->inst = bb_dump_find_instance(d->dump, bb_recorder_instance_id(rec)))) {
        fprintf(stderr, "intern_gens: cannot read the signal-safe dump back\n");
        exit(1);
    }
    d->len = (size_t)len;
    close(fd);
}

static uint32_t intern_seq(bb_recorder *rec, uint32_t thread, uint64_t i) {
    char buf[64];
    int n = snprintf(buf, sizeof buf, "/t%u/uri/%llu", thread, (unsigned long long)i);
    return bb_intern(rec, buf, (size_t)n);
}

/* One thread, one shard: every record of every dump resolves, no id is ever 0. */
static void test_single(uint64_t n) {
    bb_recorder *rec = make(1);
    double t0 = now_s();
    uint64_t zero = 0, resolved = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t id = intern_seq(rec, 0, i);
        zero += id == BB_INTERN_FULL_ID;
        BB_RECORD(rec, hit, .seq = i, .thread = 0, .uri = id,
                  .route = BB_INTERN(rec, "static-route"));
        if (i % 500000 == 499999) { /* dumps along the way pin the table meanwhile */
            rec_dump d;
            size_t full = 0;
            rec_dump_take(rec, &d);
            resolved += verify(&d, 1, false, &full);
            rec_dump_release(&d);
        }
    }
    const char *keep = getenv("INTERN_GENS_DUMP"); /* the final dump, for the CLI to read */
    if (keep && bb_recorder_dump_path(rec, keep, NULL, NULL) != BB_OK) CHECK(0);
    rec_dump d;
    size_t full = 0;
    rec_dump_take(rec, &d);
    size_t last = verify(&d, 1, false, &full);
    resolved += last;
    bb_recorder_stats st;
    bb_recorder_stats_get(rec, &st);
    CHECK_EQ_U64(zero, 0);
    CHECK_EQ_U64(full, 0);
    CHECK_EQ_U64(st.intern_full, 0);
    CHECK(!ENTRIES || st.intern_count <= ENTRIES);
    CHECK(last > 100);
    printf("intern_gens: %llu distinct strings through a %u-string table (%u B rings): %zu records "
           "in the final dump resolved, %zu table-full, %llu intern calls answered 0; %llu "
           "resolved over all dumps; %.2f s\n",
           (unsigned long long)n, ENTRIES, RING, last, full, (unsigned long long)zero,
           (unsigned long long)resolved, now_s() - t0);
    rec_dump_release(&d);
    take_signal_safe(rec, &d); /* the crash path reads the generations without locks */
    CHECK_EQ_U64(verify(&d, 1, false, &full), last);
    rec_dump_release(&d);
    bb_recorder_free(rec);
}

static bb_recorder *g_rec;
static uint64_t g_done; /* atomic: records the racers wrote */

static void *racer(void *arg) {
    uint32_t t = (uint32_t)(uintptr_t)arg;
    for (uint64_t i = 0; i < 200000; i++) {
        BB_RECORD(g_rec, hit, .seq = i, .thread = t, .uri = intern_seq(g_rec, t, i),
                  .route = BB_INTERN(g_rec, "static-route"));
        __atomic_fetch_add(&g_done, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

/* Two threads switching generations at once through one shard (and a dump meanwhile, whose
 * pin may answer a few ids 0): no id ever names another string, and the final dump's records
 * all resolve. (With a shard per thread, a shard that stops receiving records keeps the
 * generations its records name alive, and the table answers 0 once all are kept so:
 * docs/guide/instrument.md.) */
static void test_race(void) {
    g_rec = make(1);
    pthread_t th[2];
    for (uint32_t t = 0; t < 2; t++) pthread_create(&th[t], NULL, racer, (void *)(uintptr_t)t);
    while (__atomic_load_n(&g_done, __ATOMIC_RELAXED) < 50000) sched_yield(); /* mid-race */
    rec_dump mid;
    size_t mid_full = 0, full = 0;
    rec_dump_take(g_rec, &mid);
    verify(&mid, 1, true, &mid_full);
    rec_dump_release(&mid);
    for (uint32_t t = 0; t < 2; t++) pthread_join(th[t], NULL);
    rec_dump d;
    rec_dump_take(g_rec, &d);
    size_t ok = verify(&d, 1, false, &full);
    CHECK_EQ_U64(full, 0);
    printf("intern_gens: 2 threads x 200000 strings, one shard: %zu records in the final dump "
           "resolved, 0 table-full (%zu in a dump taken meanwhile)\n",
           ok, mid_full);
    rec_dump_release(&d);
    bb_recorder_free(g_rec);
}

static bool pin_cpu(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return sched_setaffinity(0, sizeof s, &s) == 0 && sched_getcpu() == cpu;
}

/* A quiet shard: 10 records on CPU 0 (`named`: each naming a string of its own, else no string
 * at all), then 200 000 distinct strings, one per record, on CPU 1. Shard 0 never wraps: its
 * records must keep only what they name (named: generation 0, and their strings still resolve;
 * else nothing), and the other generations keep recycling: no intern call answers 0, every
 * record of the final dump resolves. (Before the fix generation 0 was kept by any record and
 * recycling stopped at it: the table answered 0 from the ninth generation on.) */
static void test_quiet_shard(bool named) {
    cpu_set_t was;
    if (sched_getaffinity(0, sizeof was, &was) != 0 || !pin_cpu(0)) {
        printf("intern_gens: quiet shard skipped (cannot pin to CPU 0)\n");
        return;
    }
    bb_recorder *rec = make(2);
    for (uint64_t i = 0; i < 10; i++) {
        if (named)
            BB_RECORD(rec, hit, .seq = i, .thread = 9, .uri = intern_seq(rec, 9, i),
                      .route = BB_INTERN(rec, "static-route"));
        else BB_RECORD(rec, tick, .seq = i);
    }
    bool moved = pin_cpu(1);
    sched_setaffinity(0, sizeof was, &was);
    if (!moved || strcmp(bb_recorder_cpu_hint_name(rec), "thread") == 0) {
        printf("intern_gens: quiet shard skipped (no CPU 1, or shards not chosen by CPU)\n");
        bb_recorder_free(rec);
        return;
    }
    pin_cpu(1);
    uint64_t zero = 0, n = 200000;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t id = intern_seq(rec, 0, i);
        zero += id == BB_INTERN_FULL_ID;
        BB_RECORD(rec, hit, .seq = i, .thread = 0, .uri = id,
                  .route = BB_INTERN(rec, "static-route"));
    }
    sched_setaffinity(0, sizeof was, &was);
    rec_dump d;
    size_t full = 0;
    rec_dump_take(rec, &d);
    rec_list q = {0};
    rec_collect(&d, 0, &q);
    CHECK_EQ_U64(q.n, 10); /* the setup: shard 0 quiet, its 10 records still there */
    free(q.items);
    size_t ok = verify(&d, 2, true, &full);
    bb_recorder_stats st;
    bb_recorder_stats_get(rec, &st);
    printf("intern_gens: quiet shard (10 records %s on CPU 0, then %llu distinct strings on CPU "
           "1): %llu intern calls answered 0, %zu records of the final dump resolved, %zu "
           "table-full\n",
           named ? "naming strings" : "without strings", (unsigned long long)n,
           (unsigned long long)st.intern_full, ok, full);
    CHECK_EQ_U64(zero, 0);
    CHECK_EQ_U64(st.intern_full, 0);
    CHECK_EQ_U64(full, 0);
    CHECK(ok > 100);
    rec_dump_release(&d);
    bb_recorder_free(rec);
}

int main(int argc, char **argv) {
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
    if (argc > 4) {
        RING = (uint32_t)strtoul(argv[2], NULL, 10);
        ENTRIES = (uint32_t)strtoul(argv[3], NULL, 10);
        BYTES = (uint32_t)strtoul(argv[4], NULL, 10);
    }
    test_single(n);
    test_race();
    test_quiet_shard(false);
    test_quiet_shard(true);
    return rec_finish("recorder_intern_gens");
}
