/* dlclose_host.c — a host that dlopens an instrumented plugin (dlclose_plugin.c), records
 * through it from several threads on the default commit path, dlcloses it and keeps running:
 * the threads yield, sleep and take signals while the plugin is unmapped, round after round.
 * The rseq path's critical-section descriptor lives in the plugin; were rseq_cs left pointing
 * at it, the kernel would read the unmapped descriptor at the next preemption or signal and
 * kill the process (SIGSEGV). A final dump holds the plugin's records, every one intact.
 * Usage: recorder_dlclose [ROUNDS [PLUGIN.so]] (default 30 rounds, fewer when they take over
 * 10 s; the plugin built with it). */
/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "rec_util.h"

enum { DC_THREADS = 4, DC_RECORDS = 5000, DC_SIGNALS = 20 };

typedef void (*record_fn)(bb_recorder *, uint64_t, uint64_t);

static bb_recorder *rec;
static record_fn fn;             /* the plugin's function of this round */
static pthread_barrier_t loaded; /* main: plugin loaded; threads: start recording */
static pthread_barrier_t done;   /* every thread has recorded through the plugin */
static pthread_barrier_t over;   /* the round is over */
static volatile int round_over, rounds_left;
static volatile sig_atomic_t signals_taken;

static void on_signal(int signo) {
    (void)signo;
    signals_taken++;
}

/* Record through the plugin, then keep running in this object while main unloads it. */
static void *worker(void *arg) {
    uint64_t me = (uint64_t)(uintptr_t)arg;
    for (;;) {
        pthread_barrier_wait(&loaded);
        if (!rounds_left) return NULL;
        fn(rec, me, DC_RECORDS);
        pthread_barrier_wait(&done);
        for (unsigned k = 0; !__atomic_load_n(&round_over, __ATOMIC_ACQUIRE); k++) {
            if (k % 4) {
                sched_yield();
            } else {
                struct timespec nap = {0, 50000};
                nanosleep(&nap, NULL);
            }
        }
        pthread_barrier_wait(&over);
    }
}

/* One round: load, record from every thread, unload, signal and let them be preempted. */
static int one_round(const char *path, pthread_t *t) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        return -1;
    }
    fn = (record_fn)(uintptr_t)dlsym(h, "bb_test_plugin_record");
    if (!fn) return -1;
    pthread_barrier_wait(&loaded);
    pthread_barrier_wait(&done);
    dlclose(h);
    void *still = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (still) { /* not unmapped: this round proves nothing */
        fprintf(stderr, "the plugin stayed loaded after dlclose\n");
        dlclose(still);
        return -1;
    }
    for (int s = 0; s < DC_SIGNALS; s++) {
        for (int i = 0; i < DC_THREADS; i++) pthread_kill(t[i], SIGUSR1);
        struct timespec nap = {0, 200000};
        nanosleep(&nap, NULL);
    }
    __atomic_store_n(&round_over, 1, __ATOMIC_RELEASE);
    pthread_barrier_wait(&over);
    __atomic_store_n(&round_over, 0, __ATOMIC_RELEASE);
    return 0;
}

/* Every plugin record in the dump is one a thread wrote (its check word matches). */
static void check_dump(void) {
    rec_dump d;
    rec_dump_take(rec, &d);
    uint64_t good = 0, bad = 0;
    for (uint32_t s = 0; s < bb_recorder_shard_count(rec); s++) {
        rec_list l;
        rec_collect(&d, s, &l);
        for (size_t i = 0; i < l.n; i++) {
            if (l.items[i].size != 24) continue;
            uint64_t v[3];
            memcpy(v, l.items[i].fields, sizeof v);
            if (v[0] < DC_THREADS && v[1] < DC_RECORDS &&
                v[2] == ((v[0] + 1) * 0x9E3779B97F4A7C15ull ^ v[1]))
                good++;
            else bad++;
        }
        free(l.items);
    }
    CHECK(good > 0);
    CHECK_EQ_U64(bad, 0);
    rec_dump_release(&d);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 30;
    const char *plugin = argc > 2 ? argv[2] : DC_PLUGIN_PATH;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGUSR1, &sa, NULL);
    rec = bb_recorder_new(0, 1u << 16);
    CHECK(rec != NULL);
    if (!rec) return rec_finish("recorder_dlclose");
    bb_recorder_enable(rec, true);
    printf("commit path: %s\n", bb_recorder_commit_name(rec));
    pthread_barrier_init(&loaded, NULL, DC_THREADS + 1);
    pthread_barrier_init(&done, NULL, DC_THREADS + 1);
    pthread_barrier_init(&over, NULL, DC_THREADS + 1);
    pthread_t t[DC_THREADS];
    rounds_left = 1;
    for (int i = 0; i < DC_THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i);
    /* Bounded in time on a loaded host: after 10 s no new round starts (3 rounds at least). */
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int r = 0, failed = 0;
    for (; r < rounds; r++) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (r >= 3 && now.tv_sec - t0.tv_sec >= 10) break;
        if ((failed = one_round(plugin, t)) != 0) break;
    }
    CHECK(!failed);
    rounds_left = 0;
    if (!failed) pthread_barrier_wait(&loaded);
    for (int i = 0; i < DC_THREADS && !failed; i++) pthread_join(t[i], NULL);
    printf("%d rounds, %d signals taken after dlclose\n", r, (int)signals_taken);
    CHECK(signals_taken > 0);
    check_dump();
    bb_recorder_free(rec);
    return rec_finish("recorder_dlclose");
}
