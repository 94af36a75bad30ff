/* scratch_reuse.c — the copy buffer a recorder keeps from its first dump on (recorder_dump.c,
 * issue 37: later dumps fault no page in) serves every shard of a dump and every later dump: a
 * ring that is not full must still read as never written above its records. Shard 0 is filled
 * past its capacity and shard 1 holds a few records (a thread pinned to each CPU), then the
 * recorder is dumped three times, with more records in shard 1 between dumps: in every dump,
 * shard 1's region is zero above its head (the bytes the copy of shard 0 and the earlier dumps
 * left in the buffer are gone), and every record of both shards reads back whole. */
/* SPDX-License-Identifier: MIT */
#include <sched.h>
#include <string.h>

#include "rec_util.h"

BB_EVENT(sr_rec, "test::scratch", "Rec", NULL, BB_KEY(uint64_t, seq, NULL),
         BB_FIELD(uint64_t, check, NULL));

static bool pin(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return sched_setaffinity(0, sizeof s, &s) == 0 && sched_getcpu() == cpu;
}

static void record(bb_recorder *rec, uint64_t from, uint64_t n) {
    for (uint64_t s = from; s < from + n; s++)
        BB_RECORD(rec, sr_rec, .seq = s, .check = s * 0x9E3779B97F4A7C15ull);
}

/* Shard sh of dump d: every record whole; the region zero from its head's offset up when the
 * ring has not wrapped. Returns the records. */
static size_t check_shard(rec_dump *d, uint32_t sh) {
    const bb_rshard *s = NULL;
    for (size_t i = 0; i < d->inst->shard_count; i++)
        if (d->inst->shards[i].shard_id == sh) s = &d->inst->shards[i];
    CHECK(s != NULL);
    if (!s) return 0;
    if (s->head < s->capacity)
        for (uint64_t off = s->head; off < s->capacity; off++)
            if (s->region[off] != 0) {
                fprintf(stderr, "scratch_reuse: shard %u byte %llu above head %llu is %u\n", sh,
                        (unsigned long long)off, (unsigned long long)s->head, s->region[off]);
                CHECK(0);
                break;
            }
    rec_list l = {0};
    rec_collect(d, sh, &l);
    size_t bad = 0;
    for (size_t i = 0; i < l.n; i++) {
        sr_rec r;
        memcpy(&r, l.items[i].fields, sizeof r);
        bad += r.check != r.seq * 0x9E3779B97F4A7C15ull;
    }
    CHECK_EQ_U64(bad, 0);
    size_t n = l.n;
    free(l.items);
    return n;
}

int main(void) {
    bb_recorder *rec = bb_recorder_new(2, 1u << 20); /* 4 chunks of the copy per ring */
    if (!rec || !pin(0) || bb_recorder_shard_count(rec) != 2) {
        fprintf(stderr, "scratch_reuse: needs 2 CPUs and the rseq shard choice; skipped\n");
        bb_recorder_free(rec);
        return 77;
    }
    bb_recorder_enable(rec, true);
    record(rec, 0, (2u << 20) / 32); /* shard 0 wraps */
    uint64_t seq = 1u << 30;
    for (int round = 0; round < 3; round++) {
        if (!pin(1)) {
            fprintf(stderr, "scratch_reuse: cannot run on CPU 1; skipped\n");
            bb_recorder_free(rec);
            return 77;
        }
        record(rec, seq, 100 + 3000u * (unsigned)round); /* shard 1: under a chunk, then more */
        seq += 100000;
        rec_dump d;
        rec_dump_take(rec, &d);
        size_t n0 = check_shard(&d, 0), n1 = check_shard(&d, 1);
        fprintf(stderr, "scratch_reuse: dump %d: shard 0 %zu records, shard 1 %zu\n", round, n0,
                n1);
        CHECK(n0 > 10000);
        CHECK(n1 > 0);
        rec_dump_release(&d);
    }
    bb_recorder_free(rec);
    return rec_failures ? 1 : 0;
}
