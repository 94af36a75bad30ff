/* wrap.c — a ring that wrapped many times keeps exactly the newest records: after each of many
 * batches of mixed-size records through a 4 KiB ring, the walk recovers precisely the records
 * that lie wholly in the last `capacity` bytes, newest first, values exact — including the one
 * that straddles the physical end of the region (seen many times over the run). */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "rec_util.h"

BB_EVENT(w4, "test::wrap", "W4", NULL, BB_FIELD(uint8_t[4], seq, NULL));
BB_EVENT(w11, "test::wrap", "W11", NULL, BB_FIELD(uint8_t[4], seq, NULL),
         BB_FIELD(uint8_t[7], blob, NULL));
BB_EVENT(w37, "test::wrap", "W37", NULL, BB_FIELD(uint8_t[4], seq, NULL),
         BB_FIELD(uint8_t[33], blob, NULL));
BB_EVENT(w90, "test::wrap", "W90", NULL, BB_FIELD(uint8_t[4], seq, NULL),
         BB_FIELD(uint8_t[86], blob, NULL));

typedef struct written {
    uint64_t pos; /* absolute start */
    uint64_t ts;
    uint32_t seq;
    uint16_t size; /* field bytes */
} written;

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Field bytes of record `seq` of `size` bytes: the seq, then a pattern derived from it. */
static void fill(uint8_t *f, uint32_t seq, uint16_t size) {
    memcpy(f, &seq, 4);
    for (uint16_t i = 4; i < size; i++) f[i] = (uint8_t)(seq * 31u + i);
}

int main(void) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 1;
    o.bytes_per_shard = 4096;
    o.clock = BB_CLOCK_MANUAL;
    bb_recorder *rec = NULL;
    if (bb_recorder_create(&o, &rec) != BB_OK) return 1;
    bb_recorder_enable(rec, true);
    const uint64_t cap = bb_recorder_shard_capacity(rec);

    size_t n = 0, capw = 1 << 16;
    written *w = malloc(capw * sizeof *w);
    uint64_t head = 0;
    uint32_t seq = 0;
    int straddles = 0, batches = 0;
    for (int batch = 0; batch < 400; batch++) {
        int count = 1 + (int)(next_rand() % 300);
        for (int k = 0; k < count; k++) {
            bb_recorder_clock_advance(rec, 1 + next_rand() % 1000);
            uint8_t f[90];
            uint16_t size;
            switch (next_rand() % 4) {
            case 0:
                size = 4;
                fill(f, seq, size);
                BB_RECORD_PTR(rec, w4, (const w4 *)(const void *)f);
                break;
            case 1:
                size = 11;
                fill(f, seq, size);
                BB_RECORD_PTR(rec, w11, (const w11 *)(const void *)f);
                break;
            case 2:
                size = 37;
                fill(f, seq, size);
                BB_RECORD_PTR(rec, w37, (const w37 *)(const void *)f);
                break;
            default:
                size = 90;
                fill(f, seq, size);
                /* the function form, for variety */
                CHECK(bb_record_event(rec, BB_DESC(w90), f, size) == BB_OK);
                break;
            }
            if (n == capw) w = realloc(w, (capw *= 2) * sizeof *w);
            w[n].pos = head;
            w[n].ts = bb_recorder_now(rec);
            w[n].seq = seq++;
            w[n].size = size;
            head += 18u + size;
            n++;
        }
        rec_dump d;
        rec_dump_take(rec, &d);
        CHECK_EQ_U64(d.inst->shards[0].head, head);
        /* The public snapshot gives the same ring. */
        static uint8_t snap[4096];
        uint64_t shead = 0;
        CHECK(bb_recorder_shard_snapshot(rec, 0, snap, &shead) == BB_OK);
        CHECK(shead == head && memcmp(snap, d.inst->shards[0].region, sizeof snap) == 0);
        CHECK(bb_recorder_shard_snapshot(rec, 1, snap, &shead) == BB_ERR_INVALID);
        rec_list l;
        rec_collect(&d, 0, &l);
        /* Expected: every record wholly inside [head - cap, head), newest first. */
        uint64_t low = head > cap ? head - cap : 0;
        size_t j = 0;
        bool ok = true;
        for (size_t i = n; i-- > 0 && w[i].pos >= low; j++) {
            if (j >= l.n) {
                ok = false;
                break;
            }
            const rec_item *r = &l.items[j];
            uint8_t f[90];
            fill(f, w[i].seq, w[i].size);
            /* The record (payload + suffix) crosses the end; the reader reports offset
             * 0xFFFFFFFF when the payload itself does. */
            bool straddle = (w[i].pos & (cap - 1)) + 18u + w[i].size > cap;
            bool payload_wraps = (w[i].pos & (cap - 1)) + 16u + w[i].size > cap;
            if (straddle) straddles++;
            if (r->ts != w[i].ts || r->size != w[i].size || r->position != w[i].pos ||
                memcmp(r->fields, f, w[i].size) != 0 ||
                (payload_wraps ? r->offset != 0xFFFFFFFFu : r->offset != (w[i].pos & (cap - 1)))) {
                fprintf(stderr,
                        "batch %d: record %zu (seq %u) differs: want pos %llu off %llu size %u "
                        "ts %llu, got pos %llu off %u size %u ts %llu\n",
                        batch, j, w[i].seq, (unsigned long long)w[i].pos,
                        (unsigned long long)(w[i].pos & (cap - 1)), w[i].size,
                        (unsigned long long)w[i].ts, (unsigned long long)r->position, r->offset,
                        r->size, (unsigned long long)r->ts);
                ok = false;
                break;
            }
        }
        if (j != l.n) ok = false;
        if (!ok) fprintf(stderr, "batch %d: expected %zu records, walked %zu\n", batch, j, l.n);
        CHECK(ok);
        free(l.items);
        rec_dump_release(&d);
        batches++;
    }
    CHECK(head > 100 * cap); /* wrapped many times */
    CHECK(straddles >= 100); /* the straddling record was recovered over and over */
    printf("wrap: %d batches, %llu laps, %d straddling records verified\n", batches,
           (unsigned long long)(head / cap), straddles);
    free(w);
    bb_recorder_free(rec);
    return rec_finish("recorder_wrap");
}
