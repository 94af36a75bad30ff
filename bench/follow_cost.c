/* follow_cost.c — the follow API's own CPU per record, apart from the scheduler (issue 37): on a
 * shared host a follower's losses say more about the CPU it got than about its code, so this
 * measures the code. One ring file (2 shards x 16 MiB, like bench/follow_rate.c); per round the
 * same thread records K records, then follows them, by either call: `records`
 * (bb_ring_follow_records, a callback counting every record) or `dump` (bb_ring_follow,
 * bb_dump_open_memory, a walk counting every record); only the follow is timed, in the thread's
 * CPU time (CLOCK_THREAD_CPUTIME_ID: time the thread was not running does not count). Per call
 * and poll size K: ns per record for the follow call, the dump's open and walk (0 for
 * `records`: its records come with the call), and the whole; µs per poll; 5 rounds of each, the
 * two calls interleaved, then each call's median and minimum. The
 * budget a follower has at 20 M records/s is 50 ns per record. Figures, not thresholds
 * (scripts/bench.sh section `follow`).
 * Usage: follow_cost [DIR] [K...] (defaults /dev/shm, 2000 20000 200000). */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <backbeat/backbeat.h>
#include <backbeat/reader.h>
#include <backbeat/ring_reader.h>

BB_EVENT(fc_tick, "bench::follow", "Tick", "A record.",
         BB_FIELD(uint64_t, seq, "The writer's record number."),
         BB_FIELD(uint64_t, val, "A value."));

static uint64_t cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int count_rec(const bb_record *r, void *ctx) {
    (void)r;
    ++*(uint64_t *)ctx;
    return 0;
}

static int count_new(void *ctx, const bb_ring_record *r) {
    (void)r;
    ++*(uint64_t *)ctx;
    return 0;
}

/* Rounds of K records then one follow call (`records`: bb_ring_follow_records), over `total`
 * records; prints the row; *ns: ns per record of the whole. */
static bool run(const char *dir, bool records, uint64_t k, uint64_t total, double *ns) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 2;
    o.bytes_per_shard = (uint64_t)16 << 20;
    bb_recorder *rec;
    bb_ring *r;
    bb_error err;
    if (bb_recorder_create_ring(&o, dir, true, &rec, &err) != BB_OK) {
        fprintf(stderr, "follow_cost: %s\n", err.message);
        return false;
    }
    bb_recorder_enable(rec, true);
    bool ok = bb_ring_open(bb_recorder_ring_path(rec), &r, &err) == BB_OK;
    bb_ring_cursor cur[2];
    memset(cur, 0, sizeof cur);
    uint64_t seen = 0, lost = 0, written = 0, t_follow = 0, t_all = 0, polls = 0;
    while (ok && written < total) {
        for (uint64_t i = 0; i < k; i++, written++)
            BB_RECORD(rec, fc_tick, .seq = written, .val = written & 0xff);
        uint64_t t0 = cpu_ns();
        void *mem = NULL;
        size_t len;
        bb_dump *d = NULL;
        if (records) {
            ok = bb_ring_follow_records(r, cur, count_new, &seen, &err) == BB_OK;
            t_follow += cpu_ns() - t0;
            t_all += cpu_ns() - t0;
            polls++;
            lost += cur[0].lost + cur[1].lost;
            continue;
        }
        ok = bb_ring_follow(r, cur, &mem, &len, &err) == BB_OK;
        uint64_t t1 = cpu_ns();
        ok = ok && bb_dump_open_memory(mem, len, "follow", &d, &err) == BB_OK;
        for (size_t i = 0; ok && i < bb_dump_instance_count(d); i++) {
            const bb_rinstance *in = bb_dump_instance(d, i);
            for (size_t s = 0; s < in->shard_count; s++)
                bb_shard_walk(d, &in->shards[s], count_rec, &seen, NULL);
        }
        bb_dump_close(d);
        bb_ring_buffer_free(mem);
        t_follow += t1 - t0;
        t_all += cpu_ns() - t0;
        polls++;
        lost += cur[0].lost + cur[1].lost;
    }
    *ns = seen ? (double)t_all / (double)seen : 0;
    if (!ok) fprintf(stderr, "follow_cost: %s\n", err.message);
    else
        printf("   %-8s %8llu %9llu %9llu %5llu %8.1f %8.1f %8.1f %9.1f\n",
               records ? "records" : "dump", (unsigned long long)k, (unsigned long long)written,
               (unsigned long long)seen, (unsigned long long)lost, (double)t_follow / (double)seen,
               (double)(t_all - t_follow) / (double)seen, (double)t_all / (double)seen,
               (double)t_all / 1e3 / (double)polls);
    if (r) bb_ring_close(r);
    unlink(bb_recorder_ring_path(rec));
    bb_recorder_free(rec);
    return ok;
}

#define ROUNDS 5

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "/dev/shm";
    uint64_t ks[16] = {2000, 20000, 200000};
    int nk = 3;
    if (argc > 2) {
        nk = 0;
        for (int i = 2; i < argc && nk < 16; i++) ks[nk++] = strtoull(argv[i], NULL, 10);
    }
    double load[3] = {0, 0, 0};
    getloadavg(load, 3);
    printf("== follow cost: the follow API's CPU per record (thread CPU time), polls of K records "
           "(2 shards x 16 MiB ring file in %s); budget at 20 M/s: 50 ns; load average %.2f %.2f "
           "%.2f\n",
           dir, load[0], load[1], load[2]);
    printf("   %-8s %8s %9s %9s %5s %8s %8s %8s %9s\n", "call", "K", "written", "seen", "lost",
           "follow", "walk", "ns/rec", "us/poll");
    int rc = 0;
    for (int i = 0; i < nk; i++) {
        double v[2][ROUNDS];                         /* per call, per round: ns per record */
        for (int round = 0; round < ROUNDS; round++) /* the two calls interleaved */
            for (int records = 1; records >= 0; records--)
                if (ks[i] &&
                    !run(dir, records, ks[i], ks[i] * 1000 < 4000000 ? ks[i] * 1000 : 4000000,
                         &v[records][round]))
                    rc = 1;
        for (int records = 1; records >= 0; records--) {
            qsort(v[records], ROUNDS, sizeof v[records][0], cmp_double);
            printf("   median of %d: %-8s K %-7llu %6.1f ns/rec (min %.1f)\n", ROUNDS,
                   records ? "records" : "dump", (unsigned long long)ks[i], v[records][ROUNDS / 2],
                   v[records][0]);
        }
    }
    return rc;
}
