// log_side.cpp — log lines side by side (issue 41; section `log` of scripts/bench.sh, run by
// bench/log.sh): per call, in one process, in the same interleaved rounds (order rotated each
// round), with one thread and with two threads calling at once:
//   - BB_LOG with three integer arguments, and BB_RECORD of an event with the same three fields;
//   - the same two into a recorder created with BB_CLOCK_TSC, when the CPU has an invariant TSC
//     (the default clock is TSC only where the kernel's clocksource is tsc too: on a VM with
//     kvm-clock it is MONOTONIC; which one the default rows use is printed);
//   - BB_LOG with one short string argument;
//   - spdlog's async logger writing the same line to a file (Debian libspdlog-dev);
//   - LTTng-UST's tracef with the same format, enabled in the session bench/log.sh created;
//   - fprintf of the same line to a fully buffered file.
// Prints the median ns per call (each calling thread's CPU time / its calls) with min and max,
// and the ratios to BB_RECORD (the TSC rows: to BB_RECORD with the TSC clock), spdlog, tracef and
// fprintf taken within each round (medians).
// A variant built without its library is omitted. Usage: log_side DIR [calls [rounds]]
// SPDX-License-Identifier: MIT
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

#include <backbeat/backbeat.h>
#include <backbeat/log.h>

#ifdef BB_HAVE_SPDLOG
#include <spdlog/async.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>
#endif
#ifdef BB_HAVE_LTTNG
#include <lttng/tracef.h>
#endif

BB_EVENT(three, "bench::log", "Three", "The three integers of the log line.",
         BB_FIELD(int32_t, a, "int"), BB_FIELD(uint32_t, b, "unsigned"),
         BB_FIELD(uint64_t, c, "uint64"));

enum {
    V_LOG3,
    V_RECORD3,
    V_LOG3_TSC,
    V_RECORD3_TSC,
    V_LOGSTR,
    V_SPDLOG,
    V_TRACEF,
    V_FPRINTF,
    V_COUNT
};
static const char *const vname[V_COUNT] = {"BB_LOG, 3 integers",
                                           "BB_RECORD, same 3 fields",
                                           "BB_LOG, 3 integers (TSC clock)",
                                           "BB_RECORD, same 3 (TSC clock)",
                                           "BB_LOG, 1 short string",
                                           "spdlog async logger -> file",
                                           "LTTng-UST tracef (session on)",
                                           "fprintf -> buffered file"};
static bool have[V_COUNT] = {true, true, false, false, true, false, false, true};

static bb_recorder *rec, *rec_tsc; // the default clock; BB_CLOCK_TSC (NULL: no invariant TSC)
static FILE *files[2];
#ifdef BB_HAVE_SPDLOG
static std::shared_ptr<spdlog::logger> slog;
#endif

static uint64_t now_ns() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

// One thread's loop of n calls of variant v (t: the thread's number); its CPU time in *ns.
static void loop(int v, uint64_t n, int t, uint64_t *ns) {
    uint64_t t0 = now_ns();
    static const char *const names[] = {"alpha", "beta", "gamma", "delta"};
    for (uint64_t i = 0; i < n; i++) {
        int a = int(i);
        unsigned b = unsigned(i * 3);
        uint64_t c = i * 7;
        switch (v) {
        case V_LOG3: BB_LOG(rec, BB_INFO, "req %d took %u us (%" PRIu64 ")", a, b, c); break;
        case V_RECORD3: BB_RECORD(rec, three, .a = a, .b = b, .c = c); break;
        case V_LOG3_TSC:
            BB_LOG(rec_tsc, BB_INFO, "req %d took %u us (%" PRIu64 ")", a, b, c);
            break;
        case V_RECORD3_TSC: BB_RECORD(rec_tsc, three, .a = a, .b = b, .c = c); break;
        case V_LOGSTR: BB_LOG(rec, BB_INFO, "user %s logged in", names[i & 3]); break;
#ifdef BB_HAVE_SPDLOG
        case V_SPDLOG: slog->info("req {} took {} us ({})", a, b, c); break;
#endif
#ifdef BB_HAVE_LTTNG
        case V_TRACEF: tracef("req %d took %u us (%" PRIu64 ")", a, b, c); break;
#endif
        case V_FPRINTF: fprintf(files[t], "req %d took %u us (%" PRIu64 ")\n", a, b, c); break;
        default: break;
        }
    }
    *ns = now_ns() - t0;
}

// ns per call of variant v with `threads` threads calling at once: the calling threads' CPU
// time (a busy host's preemptions do not count; spdlog's background thread does not either:
// what a call costs the caller).
static double run(int v, uint64_t n, int threads) {
    uint64_t ns[2] = {0, 0};
    if (threads == 1) {
        loop(v, n, 0, &ns[0]);
    } else {
        std::thread other(loop, v, n, 1, &ns[1]);
        loop(v, n, 0, &ns[0]);
        other.join();
    }
#ifdef BB_HAVE_SPDLOG
    if (v == V_SPDLOG) slog->flush(); // not timed: the queue is drained in the background
#endif
    return double(ns[0] + ns[1]) / double(n) / threads;
}

static double median(std::vector<double> x) {
    std::sort(x.begin(), x.end());
    return x[x.size() / 2];
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: log_side DIR [calls [rounds]]\n");
        return 2;
    }
    std::string dir = argv[1];
    uint64_t n = argc > 2 ? strtoull(argv[2], nullptr, 10) : 200000;
    int rounds = argc > 3 ? atoi(argv[3]) : 11;
    rec = bb_recorder_new(2, 4u << 20); // 4 MiB rings: the warm-up round faults them all in
    bb_recorder_enable(rec, true);
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 2;
    o.bytes_per_shard = 4u << 20;
    o.clock = BB_CLOCK_TSC;
    if (bb_recorder_create(&o, &rec_tsc) == BB_OK) {
        bb_recorder_enable(rec_tsc, true);
        have[V_LOG3_TSC] = have[V_RECORD3_TSC] = true;
    }
    printf("  default recorder clock: %s; BB_CLOCK_TSC: %s\n", bb_recorder_clock_name(rec),
           rec_tsc ? "available (the TSC rows)" : "refused (no invariant TSC): TSC rows skipped");
    bb_log_level_set(BB_INFO);
    for (int t = 0; t < 2; t++) {
        files[t] = fopen((dir + "/fprintf" + std::to_string(t) + ".log").c_str(), "w");
        if (!files[t]) return 1;
        setvbuf(files[t], nullptr, _IOFBF, 1 << 20);
    }
#ifdef BB_HAVE_SPDLOG
    spdlog::init_thread_pool(8192, 1);
    slog =
        spdlog::create_async<spdlog::sinks::basic_file_sink_mt>("bench", dir + "/spdlog.log", true);
    have[V_SPDLOG] = true;
#endif
#ifdef BB_HAVE_LTTNG
    have[V_TRACEF] = true;
#endif
    for (int v = 0; v < V_COUNT; v++) // warm-up, not counted: rings, files, queues touched
        if (have[v]) run(v, n, 2);
    for (int threads = 1; threads <= 2; threads++) {
        std::vector<double> ns[V_COUNT], ratio[V_COUNT][4];
        for (int r = 0; r < rounds; r++) {
            double x[V_COUNT] = {0};
            for (int k = 0; k < V_COUNT; k++) {
                int v = (k + r) % V_COUNT;
                if (have[v]) x[v] = run(v, n, threads);
            }
            for (int v = 0; v < V_COUNT; v++) {
                if (!have[v]) continue;
                bool tsc = v == V_LOG3_TSC || v == V_RECORD3_TSC;
                const int base[4] = {tsc ? V_RECORD3_TSC : V_RECORD3, V_SPDLOG, V_TRACEF,
                                     V_FPRINTF};
                ns[v].push_back(x[v]);
                for (int b = 0; b < 4; b++)
                    if (have[base[b]]) ratio[v][b].push_back(x[v] / x[base[b]]);
            }
        }
        printf("== log lines, %d thread%s, %" PRIu64 " calls per thread, %d rounds (median ns per "
               "call [min max]; ratios: medians of the per-round ratios; a TSC row's /RECORD is to "
               "BB_RECORD with the TSC clock)\n",
               threads, threads > 1 ? "s" : "", n, rounds);
        printf("  %-32s %9s %17s %9s %9s %9s %9s\n", "variant", "ns/call", "[min max]", "/RECORD",
               "/spdlog", "/tracef", "/fprintf");
        for (int v = 0; v < V_COUNT; v++) {
            if (!have[v]) {
                bool tsc = v == V_LOG3_TSC || v == V_RECORD3_TSC;
                printf("  %-32s (%s)\n", vname[v],
                       tsc ? "skipped: no invariant TSC" : "not built: library missing");
                continue;
            }
            auto mm = std::minmax_element(ns[v].begin(), ns[v].end());
            printf("  %-32s %9.1f [%7.1f %7.1f]", vname[v], median(ns[v]), *mm.first, *mm.second);
            for (int b = 0; b < 4; b++) {
                if (ratio[v][b].empty()) printf(" %9s", "-");
                else printf(" %9.3f", median(ratio[v][b]));
            }
            printf("\n");
        }
    }
    // Every variant captured: the newest BB_LOG line reads back (log.sh checks with backbeat log;
    // the last round's later variants may have lapped the rings, so BB_LOG runs last).
    uint64_t last_ns;
    loop(V_LOG3, n, 0, &last_ns);
    std::string dump = dir + "/log_side.bb";
    bb_error err;
    if (bb_recorder_dump_path(rec, dump.c_str(), nullptr, &err) != BB_OK) {
        fprintf(stderr, "log_side: %s\n", err.message);
        return 1;
    }
    for (int t = 0; t < 2; t++) fclose(files[t]);
    bb_recorder_free(rec_tsc);
#ifdef BB_HAVE_SPDLOG
    spdlog::shutdown();
#endif
    printf("dump: %s\n", dump.c_str());
    return 0;
}
