/* demo.c — the README's demo: a toy key-value server records real traffic through a recorder
 * (spans with parents, enums, static and dynamic interned strings, a views block), then dumps
 * it. With --live, the same server keeps serving (about 4 x 10 000 requests per second) for
 * SECONDS into a ring file in DIR, to watch with `backbeat tail` / `backbeat top`; the file is
 * removed at the end. With --trigger, the same run has one slow request (80 ms, on a cache
 * miss of worker 2) and the trigger RULES (backbeat/trigger.h) dump the window around it into
 * DIR.
 * With --crash, it serves through the process-wide recorder and then crashes (a NULL store
 * in a request handler): run it with BACKBEAT_ENABLE=1 BACKBEAT_DUMP_ON_CRASH=1 and `backbeat
 * inspect` the crash dump to see where.
 * Usage: demo OUT.bb | demo --live DIR SECONDS | demo --trigger RULES DIR | demo --crash */
/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <backbeat/backbeat.h>
#include <backbeat/log.h>
#include <backbeat/trigger.h>

/* What a request asks for. */
BB_ENUM(kv_method, uint8_t, (KV_GET, 0, "GET"), (KV_PUT, 1, "PUT"), (KV_DELETE, 2, "DELETE"));
/* How a request ended. */
BB_ENUM(kv_status, uint8_t, (KV_OK, 0, "ok"), (KV_NOT_FOUND, 1, "not_found"),
        (KV_ERROR, 2, "error"));

BB_SPAN_ENTER_EVENT(req_begin, "demo::kv", "RequestBegin", "A request arrived.",
                    BB_SPAN_ID(uint64_t, span, "The request's span."),
                    BB_PARENT_SPAN_ID(uint64_t, parent, "The enclosing span (0: none)."),
                    BB_KEY(uint64_t, key, "The key asked for."),
                    BB_INTERN_F(route, "The handler serving it."),
                    BB_INTERN_DYN_F(client, "The client's name."),
                    BB_ENUM_F(kv_method, method, "What it asks for."),
                    BB_FIELD(uint8_t[7], pad, NULL));
BB_SPAN_EXIT_EVENT(req_end, "demo::kv", "RequestEnd", "A request was answered.",
                   BB_SPAN_ID(uint64_t, span, "The request's span."),
                   BB_PARENT_SPAN_ID(uint64_t, parent, "The enclosing span (0: none)."),
                   BB_FIELD(uint32_t, bytes, "Size of the answer.", BB_UNIT("bytes")),
                   BB_ENUM_F(kv_status, status, "How it ended."), BB_FIELD(uint8_t[3], pad, NULL));
BB_SPAN_ENTER_EVENT(lookup_begin, "demo::cache", "LookupBegin", "A cache lookup started.",
                    BB_SPAN_ID(uint64_t, span, "The lookup's span."),
                    BB_PARENT_SPAN_ID(uint64_t, parent, "The request it serves."));
BB_SPAN_EXIT_EVENT(lookup_end, "demo::cache", "LookupEnd", "A cache lookup finished.",
                   BB_SPAN_ID(uint64_t, span, "The lookup's span."),
                   BB_PARENT_SPAN_ID(uint64_t, parent, "The request it serves."));
BB_EVENT(cache_miss, "demo::cache", "Miss", "The key was not cached.",
         BB_KEY(uint64_t, key, "The key."), BB_FIELD(uint32_t, worker, "The worker thread."),
         BB_FIELD(uint32_t, latency_us, "Simulated backend latency.", BB_UNIT("us"),
                  BB_SENTINEL(0xFFFFFFFFu)));

BB_VIEWS(demo_views, "CREATE OR REPLACE VIEW demo_requests AS\n"
                     "  SELECT b.instance_id, b.span, b.ts_nanos AS start_ns,\n"
                     "         e.ts_nanos - b.ts_nanos AS duration_ns,\n"
                     "         b.\"demo::kv::RequestBegin\".method AS method,\n"
                     "         b.\"demo::kv::RequestBegin\".route AS route,\n"
                     "         b.\"demo::kv::RequestBegin\".client AS client,\n"
                     "         e.\"demo::kv::RequestEnd\".status AS status\n"
                     "  FROM \"demo::kv::RequestBegin\" b JOIN \"demo::kv::RequestEnd\" e\n"
                     "    USING (instance_id, span);\n"
                     "CREATE OR REPLACE VIEW demo_misses_per_worker AS\n"
                     "  SELECT \"demo::cache::Miss\".worker AS worker, count(*) AS misses\n"
                     "  FROM \"demo::cache::Miss\" GROUP BY ALL ORDER BY worker;\n");

#define WORKERS 4
#define REQUESTS 2500

static bb_recorder *rec;
static double live_until; /* --live: serve until this CLOCK_MONOTONIC second; 0: REQUESTS each */
static bool one_slow;     /* --trigger: request 1234 of worker 2 takes 80 ms */

typedef struct worker {
    uint32_t id;
    uint64_t rng;
} worker;

static uint64_t next(worker *w) {
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    return w->rng;
}

/* A cache lookup: a child span of the request, closed by the scope. */
static bool lookup(worker *w, uint64_t request, uint64_t key) {
    BB_SPAN_SCOPED(span, rec, lookup_begin, lookup_end, request);
    bool hit = next(w) % 4 != 0;
    if (!hit)
        BB_RECORD(rec, cache_miss, .key = key, .worker = w->id,
                  .latency_us = next(w) % 8 == 0 ? 0xFFFFFFFFu : (uint32_t)(next(w) % 900));
    return hit;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether request i is served: REQUESTS of them, or (--live) until the time is up, paced by a
 * 1 ms nap every 10 requests. */
static bool serving(int i) {
    if (live_until == 0) return i < REQUESTS;
    if (i % 10 == 0 && i) nanosleep(&(struct timespec){0, 1000000}, NULL);
    return now_s() < live_until;
}

static void *serve(void *arg) {
    worker *w = arg;
    static const char *const clients[] = {"curl/8.5", "kv-cli/1.2", "python-requests/2.31",
                                          "Go-http-client/1.1", "backup-agent"};
    char client[64];
    BB_LOG(rec, BB_INFO, "worker %u starts (%s)", (unsigned)w->id, live_until ? "live" : "batch");
    int i = 0, hits = 0;
    for (; serving(i); i++) {
        uint64_t key = next(w) % 1000;
        kv_method m = (kv_method)(next(w) % 3);
        snprintf(client, sizeof client, "%s #%u", clients[next(w) % 5], (unsigned)(next(w) % 7));
        uint32_t route = m == KV_GET   ? BB_INTERN(rec, "/kv/get")
                         : m == KV_PUT ? BB_INTERN(rec, "/kv/put")
                                       : BB_INTERN(rec, "/kv/delete");
        uint64_t span = BB_SPAN_ENTER(rec, req_begin, 0, .key = key, .route = route,
                                      .client = bb_intern_str(rec, client), .method = m);
        bool hit = lookup(w, span, key);
        hits += hit;
        if (one_slow && w->id == 2 && i == 1234) nanosleep(&(struct timespec){0, 80000000}, NULL);
        kv_status st = hit ? KV_OK : (next(w) % 5 == 0 ? KV_ERROR : KV_NOT_FOUND);
        if (st == KV_ERROR) /* a log line: formatted only when the dump is read */
            BB_LOG(rec, BB_ERROR,
                   "key %" PRIu64 " failed for %s (%d request %d, span %016" PRIx64 ")", key,
                   client, BB_E(kv_method, m), i, span); /* BB_E: read as the method's label */
        BB_SPAN_EXIT(rec, req_end, span, .bytes = hit ? (uint32_t)(64 + next(w) % 4096) : 0,
                     .status = st);
    }
    BB_LOG(rec, BB_INFO, "worker %u done, %.1f%% of %d lookups hit", (unsigned)w->id,
           i ? 100.0 * hits / i : 0.0, i);
    return NULL;
}

/* Run the WORKERS server threads to their end. */
static void run_workers(void) {
    pthread_t th[WORKERS];
    worker ws[WORKERS];
    for (uint32_t i = 0; i < WORKERS; i++) {
        ws[i] = (worker){i, 0x9E3779B97F4A7C15ull * (i + 1)};
        pthread_create(&th[i], NULL, serve, &ws[i]);
    }
    for (int i = 0; i < WORKERS; i++) pthread_join(th[i], NULL);
}

/* --live DIR SECONDS: serve into a ring file of DIR until the time is up. */
static int live(const char *dir, const char *seconds) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.bytes_per_shard = 4u << 20;
    bb_error err;
    if (bb_recorder_create_ring(&o, dir, false, &rec, &err) != BB_OK) {
        fprintf(stderr, "demo: %s\n", err.message);
        return 1;
    }
    bb_recorder_enable(rec, true);
    printf("demo: serving for %s s; ring file %s\n", seconds, bb_recorder_ring_path(rec));
    fflush(stdout);
    live_until = now_s() + atof(seconds);
    run_workers();
    bb_recorder_free(rec);
    return 0;
}

static void on_firing(bb_recorder *r, const bb_trigger_firing *f, void *ctx) {
    char path[4096];
    snprintf(path, sizeof path, "%s/demo-trigger.bb", (const char *)ctx);
    bb_error err;
    if (bb_recorder_dump_path(r, path, NULL, &err) != BB_OK)
        fprintf(stderr, "demo: %s\n", err.message);
    else
        printf("demo: trigger '%s' fired on %s (span %016llx, %.1f ms%s) -> %s\n", f->rule,
               f->event, (unsigned long long)f->span_id, (double)f->duration_ns / 1e6,
               f->hung ? ", still open" : "", path);
}

/* --trigger RULES DIR: the demo's run with one slow request, the rules armed. */
static int trigger(const char *rules, const char *dir) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.bytes_per_shard = 4u << 20;
    bb_error err;
    if (bb_recorder_create(&o, &rec) != BB_OK) return 1;
    bb_trigger_options t = {.fn = on_firing, .ctx = (void *)dir, .after_ns = 40000000};
    if (bb_recorder_trigger_options(rec, &t, &err) != BB_OK ||
        bb_recorder_trigger_add(rec, rules, &err) != BB_OK) {
        fprintf(stderr, "demo: %s\n", err.message);
        bb_recorder_free(rec);
        return 2;
    }
    bb_recorder_enable(rec, true);
    one_slow = true;
    run_workers();
    nanosleep(&(struct timespec){0, 200000000}, NULL); /* the after-window and the dump */
    bb_recorder_free(rec);
    return 0;
}

/* --crash: a handler that stores through a NULL table (kept out of line: a frame of its own). */
static volatile uintptr_t demo_table;
__attribute__((noinline)) static void store_value(uint64_t key, uint64_t value) {
    ((volatile uint64_t *)demo_table)[key % 16] = value;
}
__attribute__((noinline)) static void handle_put(uint64_t key) {
    store_value(key, key * 2);
    __asm__ volatile("" ::: "memory"); /* a call, not a jump: handle_put stays on the stack */
}

/* --crash: serve through the process-wide recorder (BACKBEAT_* variables), then crash. */
static int crash(void) {
    rec = bb_global();
    if (!rec) {
        fprintf(stderr, "demo: no global recorder (set BACKBEAT_ENABLE=1)\n");
        return 1;
    }
    run_workers();
    handle_put(42);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "--live")) return live(argv[2], argv[3]);
    if (argc == 4 && !strcmp(argv[1], "--trigger")) return trigger(argv[2], argv[3]);
    if (argc == 2 && !strcmp(argv[1], "--crash")) return crash();
    if (argc != 2) {
        fprintf(stderr,
                "usage: %s OUT.bb | %s --live DIR SECONDS | %s --trigger RULES DIR | %s --crash\n",
                argv[0], argv[0], argv[0], argv[0]);
        return 2;
    }
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.bytes_per_shard = 4u << 20; /* room for the whole run */
    if (bb_recorder_create(&o, &rec) != BB_OK) {
        fprintf(stderr, "demo: cannot create the recorder\n");
        return 1;
    }
    bb_recorder_enable(rec, true);
    run_workers();
    bb_error err;
    if (bb_recorder_dump_path(rec, argv[1], NULL, &err) != BB_OK) {
        fprintf(stderr, "demo: %s\n", err.message);
        bb_recorder_free(rec);
        return 1;
    }
    bb_recorder_stats st;
    bb_recorder_stats_get(rec, &st);
    printf("demo: %d workers served %d requests; %u shards x %llu KiB, clock %s, "
           "%llu interned strings, instance %016llx -> %s\n",
           WORKERS, WORKERS * REQUESTS, bb_recorder_shard_count(rec),
           (unsigned long long)(bb_recorder_shard_capacity(rec) / 1024),
           bb_recorder_clock_name(rec), (unsigned long long)st.intern_count,
           (unsigned long long)bb_recorder_instance_id(rec), argv[1]);
    bb_recorder_free(rec);
    return 0;
}
