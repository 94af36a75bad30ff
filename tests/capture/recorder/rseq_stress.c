/* rseq_stress.c — the commit path under stress (src/capture/commit.c, detail/recorder_inline.h):
 * several writer threads per CPU on small rings, forced to migrate (sched_setaffinity every few
 * records), interrupted by signals whose handler records too, with records small (inline
 * sequence) and large (the out-of-line sequence, and the ring's end), while the main thread
 * dumps back to back. Every record of every dump must be exactly one a thread wrote (the user
 * clock makes each timestamp a function of writer, kind and sequence; the fields repeat them
 * with check words), and no reservation may be lost (the shards' heads together cover every
 * byte recorded). Run on the default path (rseq where the host allows) and, by ctest, with
 * BACKBEAT_COMMIT=fetch_add.
 *
 * Usage: recorder_rseq_stress [THREADS_PER_CPU [SECONDS]] (default 3, 2 s). Stops by itself.
 * Not under TSan: lapped fetch_add writers race on ring bytes by design (as recorder_lapped). */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rec_util.h"

BB_EVENT(rs_small, "test::rseq", "Small", NULL, BB_KEY(uint32_t, writer, NULL),
         BB_FIELD(uint32_t, salt, NULL), BB_FIELD(uint64_t, seq, NULL),
         BB_FIELD(uint64_t, check, NULL));
/* 248 field bytes: a 266-byte frame, above the inline stage (BB__RSEQ_STAGE). */
BB_EVENT(rs_big, "test::rseq", "Big", NULL, BB_KEY(uint32_t, writer, NULL),
         BB_FIELD(uint32_t, salt, NULL), BB_FIELD(uint64_t, seq, NULL),
         BB_FIELD(uint64_t, check, NULL), BB_FIELD(uint8_t[224], filler, NULL));

enum { KIND_SMALL = 0, KIND_BIG = 1, KIND_SIG = 2 };

static bb_recorder *rec;
static int stop;                /* atomic */
static uint64_t bytes_recorded; /* atomic: frame bytes of every record made */
static __thread uint64_t t_clock;
static __thread uint32_t t_writer;
static __thread uint64_t t_sig_seq, t_bytes;
static long ncpu;

static uint64_t mix(uint64_t a, uint64_t b) {
    uint64_t h = (a + 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull ^ b;
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 29);
}

/* ts of writer w's record number s of `kind`: distinct for every (w, kind, s), never 0. */
static uint64_t ts_of(uint32_t w, uint32_t kind, uint64_t s) {
    return ((uint64_t)(w + 1) << 44) | ((uint64_t)kind << 40) | s;
}

static uint64_t user_clock(void *ctx) {
    (void)ctx;
    return t_clock;
}

static void record(uint32_t w, uint32_t kind, uint64_t s) {
    t_clock = ts_of(w, kind, s);
    if (kind == KIND_BIG) {
        rs_big ev = {.writer = w, .salt = (uint32_t)mix(w, s), .seq = s, .check = mix(s, w)};
        memset(ev.filler, (int)(s & 0xFF), sizeof ev.filler);
        BB_RECORD_PTR(rec, rs_big, &ev);
        t_bytes += BB_RECORD_SIZE(rs_big) + 18;
    } else {
        rs_small ev = {
            .writer = w, .salt = (uint32_t)mix(w, s) ^ kind, .seq = s, .check = mix(s, w) ^ kind};
        BB_RECORD_PTR(rec, rs_small, &ev);
        t_bytes += BB_RECORD_SIZE(rs_small) + 18;
    }
}

/* The handler records a small record of its own stream (kind SIG), restoring the clock of the
 * record it may have interrupted. */
static void on_signal(int signo) {
    (void)signo;
    uint64_t saved = t_clock;
    record(t_writer, KIND_SIG, t_sig_seq++);
    t_clock = saved;
}

static void *writer(void *arg) {
    uint32_t w = (uint32_t)(uintptr_t)arg;
    t_writer = w;
    for (uint64_t s = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); s++) {
        record(w, (mix(w, s) & 15) == 0 ? KIND_BIG : KIND_SMALL, s);
        if ((s & 63) == 0) { /* migrate: to one CPU, then back to all */
            cpu_set_t set;
            CPU_ZERO(&set);
            if ((s & 64) == 0) CPU_SET((int)(mix(s, w) % (uint64_t)ncpu), &set);
            else
                for (long c = 0; c < ncpu; c++) CPU_SET((int)c, &set);
            sched_setaffinity(0, sizeof set, &set);
        }
    }
    sigset_t block; /* no handler record after the count is taken */
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &block, NULL);
    __atomic_fetch_add(&bytes_recorded, t_bytes, __ATOMIC_RELAXED);
    return NULL;
}

static uint64_t checked, bad;

static bool record_ok(const rec_item *it, uint32_t nthreads) {
    if (it->size == BB_RECORD_SIZE(rs_big)) {
        rs_big ev;
        memcpy(&ev, it->fields, sizeof ev);
        uint8_t fill[224];
        memset(fill, (int)(ev.seq & 0xFF), sizeof fill);
        return ev.writer < nthreads && ev.salt == (uint32_t)mix(ev.writer, ev.seq) &&
               ev.check == mix(ev.seq, ev.writer) && memcmp(ev.filler, fill, sizeof fill) == 0 &&
               it->ts == ts_of(ev.writer, KIND_BIG, ev.seq);
    }
    rs_small ev;
    memcpy(&ev, it->fields, sizeof ev);
    uint32_t kind = (uint32_t)(it->ts >> 40) & 0xF;
    return it->size == BB_RECORD_SIZE(rs_small) && ev.writer < nthreads &&
           (kind == KIND_SMALL || kind == KIND_SIG) &&
           ev.salt == ((uint32_t)mix(ev.writer, ev.seq) ^ kind) &&
           ev.check == (mix(ev.seq, ev.writer) ^ kind) && it->ts == ts_of(ev.writer, kind, ev.seq);
}

/* Every record of every shard is exactly one a writer made; returns the shards' heads summed. */
static uint64_t verify(uint32_t nthreads) {
    rec_dump d;
    rec_dump_take(rec, &d);
    uint64_t heads = 0;
    for (uint32_t sh = 0; sh < bb_recorder_shard_count(rec); sh++) {
        heads += d.inst->shards[sh].head;
        rec_list l = {0};
        rec_collect(&d, sh, &l);
        for (size_t i = 0; i < l.n; i++) {
            bool ok = record_ok(&l.items[i], nthreads);
            if (!ok && bad < 5)
                fprintf(stderr, "rseq_stress: shard %u pos %llu: wrong record (size %u ts %llx)\n",
                        sh, (unsigned long long)l.items[i].position, l.items[i].size,
                        (unsigned long long)l.items[i].ts);
            bad += !ok;
            checked++;
        }
        free(l.items);
    }
    rec_dump_release(&d);
    return heads;
}

int main(int argc, char **argv) {
    uint32_t per_cpu = argc > 1 ? (uint32_t)atoi(argv[1]) : 3;
    double seconds = argc > 2 ? atof(argv[2]) : 2.0;
    ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1) ncpu = 1;
    uint32_t nthreads = per_cpu * (uint32_t)ncpu;
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 64;             /* a shard for every CPU of most hosts: the rseq path */
    o.bytes_per_shard = 16384; /* laps every few hundred records: the ring's end is frequent */
    o.clock = BB_CLOCK_USER;
    o.user_clock = user_clock;
    CHECK(bb_recorder_create(&o, &rec) == BB_OK);
    if (!rec) return rec_finish("recorder_rseq_stress");
    const char *env = getenv("BACKBEAT_COMMIT");
    bool want_fa = env && strcmp(env, "fetch_add") == 0;
    fprintf(stderr, "rseq_stress: commit path %s, cpu hint %s, %u threads on %ld CPUs\n",
            bb_recorder_commit_name(rec), bb_recorder_cpu_hint_name(rec), nthreads, ncpu);
    if (want_fa) CHECK(strcmp(bb_recorder_commit_name(rec), "fetch_add") == 0);
#if defined(__x86_64__)
    if (!want_fa && strcmp(bb_recorder_cpu_hint_name(rec), "rseq") == 0 &&
        sysconf(_SC_NPROCESSORS_CONF) <= 64 && !getenv("LD_PRELOAD"))
        CHECK(strcmp(bb_recorder_commit_name(rec), "rseq") == 0);
#endif
    bb_recorder_enable(rec, true);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);
    sigset_t block; /* the main thread (dumping) takes no signal */
    sigemptyset(&block);
    sigaddset(&block, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &block, NULL);
    pthread_t *t = calloc(nthreads, sizeof *t);
    for (uint32_t i = 0; i < nthreads; i++) {
        pthread_sigmask(SIG_UNBLOCK, &block, NULL); /* writers inherit an open mask */
        CHECK(pthread_create(&t[i], NULL, writer, (void *)(uintptr_t)i) == 0);
        pthread_sigmask(SIG_BLOCK, &block, NULL);
    }
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int dumps = 0;
    uint64_t signals = 0;
    do {
        for (uint32_t k = 0; k < 20; k++, signals++)
            pthread_kill(t[mix(signals, k) % nthreads], SIGUSR1);
        verify(nthreads);
        dumps++;
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < nthreads; i++) pthread_join(t[i], NULL);
    uint64_t heads = verify(nthreads);
    dumps++;
    uint64_t made = __atomic_load_n(&bytes_recorded, __ATOMIC_RELAXED);
    fprintf(stderr,
            "rseq_stress: %d dumps, %llu signals, %llu records checked, %llu wrong; "
            "%llu bytes recorded, heads cover %llu\n",
            dumps, (unsigned long long)signals, (unsigned long long)checked,
            (unsigned long long)bad, (unsigned long long)made, (unsigned long long)heads);
    CHECK(bad == 0);
    CHECK(checked > 0);
    CHECK(heads >= made); /* a lost reservation would leave the heads short */
    free(t);
    bb_recorder_free(rec);
    return rec_finish("recorder_rseq_stress");
}
