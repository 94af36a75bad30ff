/* intern_default.c — the intern table's default size keeps every string that full rings name
 * (issue 38, found from outside with nginx-like load): two threads pinned to CPUs 0 and 1, so
 * that both shards fill, record the smallest record that names a string of its own (26 bytes:
 * a u32 and the interned id) with a distinct ~30-byte string each, ten times what the rings
 * hold, in step. With the default table (intern_entries and intern_bytes 0), no record of
 * the final dump may read "table full" and each must resolve to its own string. Before the fix (8
 * generations, 32 bytes a string) the table refused strings the rings still named.
 * The threads write at a fixed ratio (1.3 records of thread 0 per record of thread 1): a
 * slower ring keeps older strings, which the table must hold too; 8 generations of 32 bytes a
 * string (the earlier default) refused 6 661 strings here, 16 of 48 refuse none up to ~1.35.
 * Usage: recorder_intern_default [strings per thread [ratio]] (default 200000 1.3). */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec_util.h"

BB_EVENT(small, "test::intern", "Small", NULL, BB_FIELD(uint32_t, seq, "Which string."),
         BB_INTERN_DYN_F(uri, "Its own string."));

#define RING (256u * 1024u)
#define STEP 256 /* how far one thread may run ahead of the other, in records */

static bb_recorder *rec;
static uint64_t per_thread;
static double ratio = 1.3; /* thread 0's records per record of thread 1 */
static uint64_t done[2];   /* atomic: records each thread wrote */
static int pinned[2];      /* atomic: 1 when the thread runs on its CPU */

static int text_of(uint32_t seq, char *buf, size_t cap) {
    return snprintf(buf, cap, "/static/%u/page.html?q=%08x", seq, seq * 2654435761u);
}

static bool pin_cpu(int cpu) {
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return pthread_setaffinity_np(pthread_self(), sizeof s, &s) == 0 && sched_getcpu() == cpu;
}

/* Records thread t writes: per_thread for thread 0, per_thread / ratio for thread 1 (they end
 * together, so that neither ring is left holding records far older than the other's). */
static uint64_t count_of(int t) {
    return t == 0 ? per_thread : (uint64_t)((double)per_thread / ratio);
}

/* True while thread t, about to write its record i, is more than STEP records ahead of where
 * the pace (thread 0 writes `ratio` records for each of thread 1's) puts it. */
static bool ahead(int t, uint64_t i) {
    uint64_t o = __atomic_load_n(&done[1 - t], __ATOMIC_ACQUIRE);
    if (o == count_of(1 - t)) return false; /* the other one is done: finish */
    double other = (double)o;
    double mine = t == 0 ? other * ratio : other / ratio;
    return i > (uint64_t)mine + STEP;
}

static void *writer(void *arg) {
    int t = (int)(uintptr_t)arg;
    __atomic_store_n(&pinned[t], pin_cpu(t) ? 1 : -1, __ATOMIC_RELEASE);
    char buf[64];
    for (uint64_t i = 0; i < count_of(t); i++) {
        while (ahead(t, i) && __atomic_load_n(&pinned[1 - t], __ATOMIC_ACQUIRE) >= 0)
            sched_yield(); /* in step with the other thread */
        uint32_t seq = (uint32_t)(2 * i + (uint64_t)t);
        int n = text_of(seq, buf, sizeof buf);
        BB_RECORD(rec, small, .seq = seq, .uri = bb_intern(rec, buf, (size_t)n));
        __atomic_store_n(&done[t], i + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* Every Small record of the dump: its uri must be its own string; counts them and the
 * table-full ones. */
static void verify(const rec_dump *d, size_t *total, size_t *full) {
    for (uint32_t s = 0; s < 2; s++) {
        rec_list l = {0};
        rec_collect(d, s, &l);
        for (size_t i = 0; i < l.n; i++) {
            const bb_rschema *sc = bb_dump_find_schema(d->dump, l.items[i].event_id);
            if (!sc || l.items[i].event_id != bb_event_id(BB_DESC(small))) continue;
            (*total)++;
            bb_value seq = bb_decode_field(sc, 0, l.items[i].fields, d->inst);
            bb_value uri = bb_decode_field(sc, 1, l.items[i].fields, d->inst);
            char want[64];
            int n = text_of((uint32_t)seq.u, want, sizeof want);
            if (uri.kind == BB_VALUE_STRING && uri.u == BB_INTERN_FULL_ID) (*full)++;
            else
                CHECK(uri.has_label && uri.str.len == (size_t)n &&
                      memcmp(uri.str.ptr, want, (size_t)n) == 0);
        }
        free(l.items);
    }
}

int main(int argc, char **argv) {
    per_thread = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000;
    if (argc > 2) ratio = strtod(argv[2], NULL);
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 2;
    o.bytes_per_shard = RING; /* intern_entries, intern_bytes: 0, the defaults */
    if (bb_recorder_create(&o, &rec) != BB_OK) {
        fprintf(stderr, "intern_default: cannot create a recorder\n");
        return 1;
    }
    bb_recorder_enable(rec, true);
    if (strcmp(bb_recorder_cpu_hint_name(rec), "thread") == 0) {
        printf("intern_default: skipped (shards not chosen by CPU)\n");
        bb_recorder_free(rec);
        return rec_finish("recorder_intern_default");
    }
    pthread_t th[2];
    for (int t = 0; t < 2; t++) pthread_create(&th[t], NULL, writer, (void *)(uintptr_t)t);
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    if (pinned[0] != 1 || pinned[1] != 1) {
        printf("intern_default: skipped (cannot pin threads to CPUs 0 and 1)\n");
        bb_recorder_free(rec);
        return rec_finish("recorder_intern_default");
    }
    rec_dump d;
    size_t total = 0, full = 0;
    rec_dump_take(rec, &d);
    verify(&d, &total, &full);
    bb_recorder_stats st;
    bb_recorder_stats_get(rec, &st);
    printf("intern_default: 2 threads x %llu distinct strings, 2 rings of %u bytes, default "
           "table: %zu records in the final dump, %zu table-full, %llu intern calls answered "
           "0\n",
           (unsigned long long)per_thread, RING, total, full, (unsigned long long)st.intern_full);
    CHECK(total > 2 * RING / 26 * 8 / 10); /* both rings full of 26-byte records */
    CHECK_EQ_U64(full, 0);
    CHECK_EQ_U64(st.intern_full, 0); /* not even for records since overwritten */
    rec_dump_release(&d);
    bb_recorder_free(rec);
    return rec_finish("recorder_intern_default");
}
