/* ring_child.c — the program the ring file tests kill (ring_e2e.c). Configured through the
 * environment only (BACKBEAT_RING_DIR, BACKBEAT_ENABLE, ...), it records through the global
 * recorder and reports what it wrote through the pipe on fd 3 (16-byte messages, atomic):
 *   heavy T [pin] T threads record ring_test::Rec {thread, seq, check} forever (pinned to
 *                CPU t mod CPUs); each reports {thread, seq} of its newest completed record
 *                every 1024 records
 *   plugin PATH  dlopen PATH after start, record 100 of its events (strings made at run time),
 *                report {0xFFFFFFFF, 100}, wait to be killed
 *   churn PATH   dlopen / record / dlclose PATH in a loop, and register and record a new
 *                schema each round (the ring file's log grows all the time), reporting each
 *                round
 *   live         record 1000, dump (bb_global_dump), record 1000 more, report, wait
 *   oom          record while allocating and touching memory until killed (exit 3 after
 *                4 GiB)
 *   exit         record 10 and exit normally (the file is removed unless BACKBEAT_RING_KEEP)
 *   crash        record 1000, then SIGSEGV (with BACKBEAT_DUMP_ON_CRASH the handler dumps)
 *   paced T R MS [PATH]  T threads each record R records per millisecond (then a 1 ms sleep)
 *                for MS ms; halfway, dlopen PATH (an event and a view set registered mid-run)
 *                and record 100 of its events; then report {thread, last seq} of each thread
 *                and exit normally (the file is removed: `backbeat tail` drains it first)
 *   fork         record 10, fork a child that records 10 and exits normally (removing its own
 *                file only), report {1, its exit status}; fork a child that records once,
 *                reports {2, its pid} and sleeps; wait to be killed */
/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backbeat/backbeat.h"
#include "ring_check.h"

BB_EVENT(ring_rec, "ring_test", "Rec", "a self-checking record",
         BB_FIELD(uint32_t, thread, "the writing thread"), BB_FIELD(uint32_t, _pad, NULL),
         BB_FIELD(uint64_t, seq, "the thread's record number"),
         BB_FIELD(uint64_t, check, "ring_check(thread, seq)"));

static void report(uint64_t a, uint64_t b) {
    uint64_t msg[2] = {a, b};
    if (write(3, msg, sizeof msg) != (ssize_t)sizeof msg) _exit(9);
}

static bool g_pin;

static void *writer(void *arg) {
    uint32_t t = (uint32_t)(uintptr_t)arg;
    if (g_pin) { /* one writer per CPU, so per shard (rseq hint) */
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET((int)t % (int)sysconf(_SC_NPROCESSORS_ONLN), &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    for (uint64_t seq = 0;; seq++) {
        BB_GRECORD(ring_rec, .thread = t, .seq = seq, .check = ring_check(t, seq));
        if (seq % 1024 == 1023) report(t, seq);
    }
    return NULL;
}

static int heavy(int threads) {
    for (int i = 0; i < threads; i++) {
        pthread_t th;
        if (pthread_create(&th, NULL, writer, (void *)(uintptr_t)i) != 0) return 2;
    }
    for (;;) pause();
}

struct ring_plugin_api {
    void (*run)(uint64_t first, uint64_t count);
};

static const struct ring_plugin_api *load(const char *path, void **h) {
    *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!*h) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        exit(3);
    }
    const struct ring_plugin_api *api = dlsym(*h, "ring_plugin_api");
    if (!api) exit(4);
    return api;
}

/* A schema made at run time, new each round: "ring_churn::Dyn<round>" {u64 v}, registered
 * (appended to the ring file's log) and recorded once with v = round. */
static void dyn_event(uint64_t round) {
    static const bb_field_desc field = {"v", NULL, NULL, NULL, 0, 0, 8, 0, BB_TYPE_U64, 0, 0, 0};
    bb_event_desc *d = calloc(1, sizeof *d);
    char *name = malloc(48);
    if (!d || !name) exit(8);
    snprintf(name, 48, "ring_churn::Dyn%llu", (unsigned long long)round);
    *d = (bb_event_desc){BB__ABI_LAYOUT, name, NULL, &field, 1, 8, BB_PHASE_NONE, 0, NULL};
    bb_registry_add(d); /* kept registered: the process is killed */
    bb_record_event(bb_global(), d, &round, 8);
}

__attribute__((noreturn)) static int plugin(const char *path, bool churn) {
    for (uint64_t round = 0;; round++) {
        void *h;
        const struct ring_plugin_api *api = load(path, &h);
        api->run(round * 100, 100);
        if (!churn) {
            report(0xFFFFFFFFu, 100);
            for (;;) pause();
        }
        dlclose(h);
        dyn_event(round);
        BB_GRECORD(ring_rec, .thread = 0, .seq = round, .check = ring_check(0, round));
        report(0, round);
    }
}

static int g_rate, g_ms;

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void *paced_writer(void *arg) {
    uint32_t t = (uint32_t)(uintptr_t)arg;
    uint64_t end = now_ms() + (uint64_t)g_ms, seq = 0;
    while (now_ms() < end) {
        for (int k = 0; k < g_rate; k++, seq++)
            BB_GRECORD(ring_rec, .thread = t, .seq = seq, .check = ring_check(t, seq));
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    return (void *)(uintptr_t)seq;
}

static int paced(int threads, int rate, int ms, const char *plugin_path) {
    pthread_t th[64];
    g_rate = rate;
    g_ms = ms;
    for (int i = 0; i < threads && i < 64; i++)
        if (pthread_create(&th[i], NULL, paced_writer, (void *)(uintptr_t)i) != 0) return 2;
    if (plugin_path) {
        nanosleep(&(struct timespec){ms / 2000, (long)(ms / 2 % 1000) * 1000000L}, NULL);
        void *h;
        load(plugin_path, &h)->run(0, 100);
    }
    for (int i = 0; i < threads && i < 64; i++) {
        void *n;
        pthread_join(th[i], &n);
        report((uint64_t)i, (uint64_t)(uintptr_t)n);
    }
    return 0;
}

static int live(void) {
    for (uint64_t seq = 0; seq < 1000; seq++)
        BB_GRECORD(ring_rec, .thread = 0, .seq = seq, .check = ring_check(0, seq));
    char path[4096];
    bb_error err;
    if (bb_global_dump(path, sizeof path, &err) != BB_OK) {
        fprintf(stderr, "dump: %s\n", err.message);
        return 5;
    }
    for (uint64_t seq = 1000; seq < 2000; seq++)
        BB_GRECORD(ring_rec, .thread = 0, .seq = seq, .check = ring_check(0, seq));
    report(0, 1999);
    for (;;) pause();
}

__attribute__((noreturn)) static int oom(void) {
    report(0, 0);
    for (uint64_t seq = 0; seq < 4096; seq++) { /* 4 GiB: not killed means no memory limit */
        char *p = malloc(1 << 20);
        if (p) memset(p, (int)seq, 1 << 20);
        BB_GRECORD(ring_rec, .thread = 0, .seq = seq, .check = ring_check(0, seq));
    }
    exit(3);
}

static int forking(void) {
    for (uint64_t seq = 0; seq < 10; seq++)
        BB_GRECORD(ring_rec, .thread = 0, .seq = seq, .check = ring_check(0, seq));
    pid_t pid = fork();
    if (pid == 0) {
        for (uint64_t seq = 100; seq < 110; seq++)
            BB_GRECORD(ring_rec, .thread = 1, .seq = seq, .check = ring_check(1, seq));
        exit(0);
    }
    int st = -1;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return 7;
    report(1, (uint64_t)st);
    if (fork() == 0) { /* lives on after this process is killed */
        BB_GRECORD(ring_rec, .thread = 2, .seq = 0, .check = ring_check(2, 0));
        report(2, (uint64_t)getpid()); /* its own ring file exists now */
        for (;;) pause();
    }
    for (;;) pause();
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    if (!bb_global()) return 6;
    g_pin = argc > 3 && !strcmp(argv[3], "pin") && strcmp(argv[1], "paced");
    if (!strcmp(argv[1], "heavy") && argc > 2) return heavy(atoi(argv[2]));
    if (!strcmp(argv[1], "plugin") && argc > 2) return plugin(argv[2], false);
    if (!strcmp(argv[1], "churn") && argc > 2) return plugin(argv[2], true);
    if (!strcmp(argv[1], "live")) return live();
    if (!strcmp(argv[1], "paced") && argc > 4)
        return paced(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), argc > 5 ? argv[5] : NULL);
    if (!strcmp(argv[1], "oom")) return oom();
    if (!strcmp(argv[1], "fork")) return forking();
    if (!strcmp(argv[1], "crash")) {
        for (uint64_t seq = 0; seq < 1000; seq++)
            BB_GRECORD(ring_rec, .thread = 0, .seq = seq, .check = ring_check(0, seq));
        raise(SIGSEGV);
        return 10;
    }
    if (!strcmp(argv[1], "exit")) {
        for (uint64_t seq = 0; seq < 10; seq++)
            BB_GRECORD(ring_rec, .thread = 0, .seq = seq, .check = ring_check(0, seq));
        return 0;
    }
    return 2;
}
