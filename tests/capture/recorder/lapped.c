/* lapped.c — many more writer threads than CPUs on small rings, so that a writer preempted
 * between its reservation and its copy is lapped (the ring wraps past its slot before it
 * writes), while another thread dumps. Every record recovered from every dump must be one that
 * a thread wrote, exactly: the user clock makes each record's timestamp a function of its writer
 * and sequence number, and the fields repeat both with a check word. A lapped writer writes its
 * record late over newer ones; the recorder must keep such bytes out of every dump
 * (src/capture/recorder_dump.c, inflight.c), never hand the reader a record that mixes two.
 *
 * Usage: recorder_lapped [THREADS [SECONDS [BYTES]]] (default 200 threads, 2 s, 16 KiB rings).
 * Stops by itself.
 * Not under TSan: lapped writers race on the same ring bytes by design (the point of the test). */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rec_util.h"

BB_EVENT(lap_rec, "test::lap", "Rec", NULL, BB_KEY(uint32_t, writer, NULL),
         BB_FIELD(uint32_t, salt, NULL), BB_FIELD(uint64_t, seq, NULL),
         BB_FIELD(uint64_t, check, NULL), BB_FIELD(uint8_t[24], filler, NULL));

static bb_recorder *rec;
static int stop;                  /* atomic */
static __thread uint64_t t_clock; /* the user clock: this thread's next timestamp */

static uint64_t mix(uint64_t a, uint64_t b) {
    uint64_t h = (a + 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull ^ b;
    h ^= h >> 31;
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 29);
}

/* ts of writer w's record number s: distinct for every (w, s), never 0. */
static uint64_t ts_of(uint32_t w, uint64_t s) { return ((uint64_t)(w + 1) << 40) | s; }

static uint64_t user_clock(void *ctx) {
    (void)ctx;
    return t_clock;
}

static void *writer(void *arg) {
    uint32_t w = (uint32_t)(uintptr_t)arg;
    for (uint64_t s = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); s++) {
        t_clock = ts_of(w, s);
        lap_rec ev = {.writer = w, .salt = (uint32_t)mix(w, s), .seq = s, .check = mix(s, w)};
        memset(ev.filler, (int)(s & 0xFF), sizeof ev.filler);
        BB_RECORD_PTR(rec, lap_rec, &ev);
    }
    return NULL;
}

static uint64_t checked, bad;

/* Every record of every shard is exactly one a writer made. */
static void verify(bb_recorder *r, uint32_t nthreads) {
    rec_dump d;
    rec_dump_take(r, &d);
    for (uint32_t sh = 0; sh < bb_recorder_shard_count(r); sh++) {
        rec_list l = {0};
        rec_collect(&d, sh, &l);
        for (size_t i = 0; i < l.n; i++) {
            lap_rec ev;
            memcpy(&ev, l.items[i].fields, sizeof ev);
            uint8_t fill[24];
            memset(fill, (int)(ev.seq & 0xFF), sizeof fill);
            bool ok = ev.writer < nthreads && ev.salt == (uint32_t)mix(ev.writer, ev.seq) &&
                      ev.check == mix(ev.seq, ev.writer) &&
                      memcmp(ev.filler, fill, sizeof fill) == 0 &&
                      l.items[i].ts == ts_of(ev.writer, ev.seq);
            if (!ok && bad < 5)
                fprintf(stderr,
                        "lapped: shard %u pos %llu: wrong record (writer %u seq %llu ts "
                        "%llx, expected ts %llx)\n",
                        sh, (unsigned long long)l.items[i].position, ev.writer,
                        (unsigned long long)ev.seq, (unsigned long long)l.items[i].ts,
                        (unsigned long long)ts_of(ev.writer, ev.seq));
            bad += !ok;
            checked++;
        }
        free(l.items);
    }
    rec_dump_release(&d);
}

int main(int argc, char **argv) {
    uint32_t nthreads = argc > 1 ? (uint32_t)atoi(argv[1]) : 200;
    double seconds = argc > 2 ? atof(argv[2]) : 2.0;
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 2;
    /* by default a lap is a few hundred records: preempted writers get lapped */
    o.bytes_per_shard = argc > 3 ? (uint64_t)atoll(argv[3]) : 16384;
    o.clock = BB_CLOCK_USER;
    o.user_clock = user_clock;
    CHECK(bb_recorder_create(&o, &rec) == BB_OK);
    if (!rec) return rec_finish("recorder_lapped");
    bb_recorder_enable(rec, true);
    pthread_t *t = calloc(nthreads, sizeof *t);
    for (uint32_t i = 0; i < nthreads; i++)
        CHECK(pthread_create(&t[i], NULL, writer, (void *)(uintptr_t)i) == 0);
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int dumps = 0;
    do {
        verify(rec, nthreads); /* dumps while writers run */
        dumps++;
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < nthreads; i++) pthread_join(t[i], NULL);
    verify(rec, nthreads); /* and once at rest: late writes of lapped writers are in the ring */
    dumps++;
    fprintf(stderr, "lapped: %u threads, %d dumps, %llu records checked, %llu wrong\n", nthreads,
            dumps, (unsigned long long)checked, (unsigned long long)bad);
    CHECK(bad == 0);
    CHECK(checked > 0);
    free(t);
    bb_recorder_free(rec);
    return rec_finish("recorder_lapped");
}
