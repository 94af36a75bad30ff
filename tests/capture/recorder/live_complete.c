/* live_complete.c — a live dump of a busy process keeps its shards (issue 37): 8 threads record
 * back to back into 2 shards (more writers than CPUs on a 2-CPU host) while the main thread
 * dumps into memory several times. Before issue 37 the copy of a shard took long enough for the
 * writers to lap it and whole shards came back empty; the snapshot now copies newest first
 * holding the shard's CPU (common/cpu_hold.h: its writers wait for the copy), catches up on
 * what they added meanwhile and cuts only what was overwritten. Each dump's shards must each
 * hold whole records covering at least FLOOR percent of the ring, and every record must be one
 * a thread wrote (its check word). On a loaded 2-CPU host, privileged or not, the copy itself
 * lost nothing in the runs measured (bench/live_dump, scripts/bench.sh section `livedump`),
 * but these 4 MiB rings lost up to 17 % in the worst dump of a run (83-98 % kept; not traced
 * further: the cuts below writers in flight or overtaken by a lap mid-record are the likely
 * cause). The floor was 25 % of the ring before the CPU hold; it is now of the window (the
 * bytes written when the ring has not wrapped yet: a first dump on a host at load 50+ found
 * 2.4 of 4 MiB written).
 * Usage: recorder_live_complete [DUMPS [MIB_PER_SHARD]] (default 3 dumps, 4 MiB). */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rec_util.h"

#define WRITERS 8
#define FLOOR 60 /* percent of each ring kept as whole records, in every dump */

BB_EVENT(lc_rec, "test::live", "Rec", NULL, BB_KEY(uint32_t, writer, NULL),
         BB_FIELD(uint32_t, pad, NULL), BB_FIELD(uint64_t, seq, NULL),
         BB_FIELD(uint64_t, check, NULL));

static bb_recorder *rec;
static int stop; /* atomic */

static uint64_t check_of(uint32_t w, uint64_t s) { return (s * 0x9E3779B97F4A7C15ull) ^ w; }

static void *writer(void *arg) {
    uint32_t w = (uint32_t)(uintptr_t)arg;
    for (uint64_t s = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); s++)
        BB_RECORD(rec, lc_rec, .writer = w, .seq = s, .check = check_of(w, s));
    return NULL;
}

/* Check one dump: every shard's records are whole and cover FLOOR % of its window. */
static void verify(int round, uint64_t cap) {
    rec_dump d;
    rec_dump_take(rec, &d);
    for (uint32_t sh = 0; sh < bb_recorder_shard_count(rec); sh++) {
        rec_list l = {0};
        rec_collect(&d, sh, &l);
        /* the window: the ring, or what was written when it has not wrapped yet (a loaded host
         * gives the writers little time before the first dump) */
        uint64_t head = 0;
        for (size_t k = 0; k < d.inst->shard_count; k++)
            if (d.inst->shards[k].shard_id == sh) head = d.inst->shards[k].head;
        uint64_t window = head < cap ? head : cap;
        uint64_t bytes = 0, bad = 0;
        for (size_t i = 0; i < l.n; i++) {
            lc_rec r;
            memcpy(&r, l.items[i].fields, sizeof r);
            bad += r.writer >= WRITERS || r.check != check_of(r.writer, r.seq);
            bytes += 16u + l.items[i].size + 2u; /* ts, id, fields, suffix */
        }
        fprintf(
            stderr,
            "live_complete: dump %d shard %u: %zu records, %.1f%% of the window (%.1f%% of the ring)\n",
            round, sh, l.n, window ? 100.0 * (double)bytes / (double)window : 100.0,
            100.0 * (double)bytes / (double)cap);
        CHECK_EQ_U64(bad, 0);
        CHECK(bytes * 100 >= window * FLOOR);
        free(l.items);
    }
    rec_dump_release(&d);
}

int main(int argc, char **argv) {
    int dumps = argc > 1 ? atoi(argv[1]) : 3;
    uint64_t cap = (uint64_t)(argc > 2 ? atoi(argv[2]) : 4) << 20;
    rec = bb_recorder_new(2, cap);
    CHECK(rec != NULL);
    if (!rec) return rec_finish("recorder_live_complete");
    bb_recorder_enable(rec, true);
    pthread_t t[WRITERS];
    for (uint32_t i = 0; i < WRITERS; i++)
        CHECK(pthread_create(&t[i], NULL, writer, (void *)(uintptr_t)i) == 0);
    /* let every ring wrap: 8 writers fill 2 x 4 MiB in a few milliseconds */
    struct timespec nap = {0, 200 * 1000 * 1000};
    nanosleep(&nap, NULL);
    for (int k = 0; k < dumps; k++) verify(k, cap);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (uint32_t i = 0; i < WRITERS; i++) pthread_join(t[i], NULL);
    bb_recorder_free(rec);
    return rec_finish("recorder_live_complete");
}
