/* concurrent.c — several writer threads record self-checking events (each carries a checksum of
 * its own fields) while another thread dumps repeatedly. In every dump each recovered record
 * validates with exact values, and per writer the recovered records are its most recent ones,
 * in order, with no gap except at the oldest end (the newest is at least the last one it had
 * completed when the dump began). Writers share shards (more writers than CPUs), so concurrent
 * reservations on one cursor are exercised. Also: concurrent dynamic interning of the same
 * strings from several threads while dumps read the table. Runs under ThreadSanitizer (label
 * concurrent). */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "rec_util.h"

BB_EVENT(conc_big, "test::conc", "Big", NULL, BB_KEY(uint32_t, writer, NULL),
         BB_FIELD(uint32_t, salt, NULL), BB_FIELD(uint64_t, seq, NULL),
         BB_FIELD(uint64_t, value, NULL), BB_FIELD(uint64_t, check, NULL));
BB_EVENT(conc_small, "test::conc", "Small", NULL, BB_KEY(uint32_t, writer, NULL),
         BB_FIELD(uint32_t, seq32, NULL), BB_FIELD(uint32_t, check32, NULL));
/* An interned string, recorded so that dumps carry it (they carry what their records name). */
BB_EVENT(conc_str, "test::conc", "Str", NULL, BB_FIELD(uint32_t, thread, NULL),
         BB_INTERN_DYN_F(str, NULL));

#define NW 4
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define BB_TEST_INSTRUMENTED 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__) || defined(BB_TEST_INSTRUMENTED)
/* The test's premise is that no writer stays descheduled mid-record for a whole lap of its
 * ring (the documented limit of fetch_add rings). A lap is ring size / write rate; on a loaded
 * 2-core CI machine a thread can be off CPU for tens of milliseconds, so both builds keep a lap
 * at a few hundred milliseconds: instrumented builds (slow walks) write more slowly into a
 * smaller ring. */
#define DUMPS 8 /* instrumented walks are slow: fewer dumps */
#define RING (8u << 20)
#define PAUSES 100
#else
#define DUMPS 25
#define RING (16u << 20)
#define PAUSES 20
#endif

static bb_recorder *rec;
static uint64_t completed[NW]; /* atomic: records fully written by writer w */
static int stop;               /* atomic */
static int pinned = 1;
static int cpus[NW];

static uint64_t mix(uint64_t a, uint64_t b, uint64_t c) {
    uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= c + (h >> 31);
    h *= 0x94D049BB133111EBull;
    return h ^ (h >> 32);
}

static inline void sched_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("pause");
#else
    __asm__ volatile("" ::: "memory");
#endif
}

static void *writer(void *arg) {
    uint32_t w = (uint32_t)(uintptr_t)arg;
    if (pinned) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpus[w], &set);
        pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    }
    for (uint64_t seq = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); seq++) {
        if (seq % 7 == 3) {
            uint32_t c = (uint32_t)mix(w, seq, 7);
            BB_RECORD(rec, conc_small, .writer = w, .seq32 = (uint32_t)seq, .check32 = c);
        } else {
            uint32_t salt = (uint32_t)(seq * 2654435761u);
            uint64_t value = mix(seq, salt, w);
            BB_RECORD(rec, conc_big, .writer = w, .salt = salt, .seq = seq, .value = value,
                      .check = mix(w ^ ((uint64_t)salt << 32), seq, value));
        }
        __atomic_store_n(&completed[w], seq + 1, __ATOMIC_RELEASE);
        /* A little work between records: a lap of the ring then takes hundreds of milliseconds, far
         * longer than a writer normally stays descheduled mid-record. (A writer descheduled
         * between reservation and copy for longer than a lap writes over newer records, which
         * the walk then drops as torn: a documented limit of fetch_add rings.) */
        for (int i = 0; i < PAUSES; i++) sched_pause();
    }
    return NULL;
}

/* Per-dump walk state. */
typedef struct walk {
    uint64_t big_id, small_id;
    bool seen[NW];
    uint64_t newest[NW], prev[NW], prevpos[NW];
    uint32_t shard_of[NW];
    uint32_t shard;
    uint64_t head;
    uint64_t records, bad;
} walk;

static int check_record(const bb_record *r, void *ctx) {
    walk *k = ctx;
    uint32_t w;
    uint64_t seq;
    memcpy(&w, r->fields, 4);
    if (w >= NW) {
        k->bad++;
        return 0;
    }
    if (r->event_id == k->big_id) {
        uint32_t salt;
        uint64_t value, check;
        memcpy(&salt, r->fields + 4, 4);
        memcpy(&seq, r->fields + 8, 8);
        memcpy(&value, r->fields + 16, 8);
        memcpy(&check, r->fields + 24, 8);
        if (seq % 7 == 3 || salt != (uint32_t)(seq * 2654435761u) || value != mix(seq, salt, w) ||
            check != mix(w ^ ((uint64_t)salt << 32), seq, value)) {
            fprintf(stderr, "bad big record: writer %u seq %llu at %llu off %u\n", w,
                    (unsigned long long)seq, (unsigned long long)r->position, r->offset);
            k->bad++;
            return 0;
        }
    } else if (r->event_id == k->small_id) {
        uint32_t s32, c32;
        memcpy(&s32, r->fields + 4, 4);
        memcpy(&c32, r->fields + 8, 4);
        /* widen the 32-bit seq next to the previous one seen (or the newest possible) */
        uint64_t ref = k->seen[w] ? k->prev[w] : __atomic_load_n(&completed[w], __ATOMIC_ACQUIRE);
        seq = (ref & ~0xFFFFFFFFull) | s32;
        if (seq > ref) seq -= 1ull << 32;
        if (seq % 7 != 3 || c32 != (uint32_t)mix(w, seq, 7)) {
            fprintf(stderr, "bad small record: writer %u seq32 %u (ref %llu) at %llu off %u\n", w,
                    s32, (unsigned long long)ref, (unsigned long long)r->position, r->offset);
            k->bad++;
            return 0;
        }
    } else {
        k->bad++;
        return 0;
    }
    k->records++;
    if (!k->seen[w]) {
        k->seen[w] = true;
        k->newest[w] = seq;
        k->shard_of[w] = k->shard;
    } else if (seq + 1 != k->prev[w] || k->shard_of[w] != k->shard) {
        fprintf(
            stderr,
            "writer %u: seq %llu after %llu (shard %u, first seen in %u) at %llu (prev at %llu) head %llu\n",
            w, (unsigned long long)seq, (unsigned long long)k->prev[w], k->shard, k->shard_of[w],
            (unsigned long long)r->position, (unsigned long long)k->prevpos[w],
            (unsigned long long)k->head);
        k->bad++;
    }
    k->prev[w] = seq;
    k->prevpos[w] = r->position;
    return 0;
}

/* Dump, walk every shard and check; returns the records recovered. */
static uint64_t dump_and_check(const uint64_t *before, bool final) {
    rec_dump d;
    rec_dump_take(rec, &d);
    walk k;
    memset(&k, 0, sizeof k);
    k.big_id = bb_event_id(BB_DESC(conc_big));
    k.small_id = bb_event_id(BB_DESC(conc_small));
    for (size_t i = 0; i < d.inst->shard_count; i++) {
        k.shard = d.inst->shards[i].shard_id;
        k.head = d.inst->shards[i].head;
        bb_shard_walk(d.dump, &d.inst->shards[i], check_record, &k, NULL);
    }
    if (k.bad && getenv("CONC_SAVE")) {
        FILE *f = fopen(getenv("CONC_SAVE"), "wb");
        fwrite(d.buf, 1, d.len, f);
        fclose(f);
    }
    CHECK_EQ_U64(k.bad, 0);
    for (int w = 0; w < NW; w++) {
        if (final) {
            /* A writer may have all its records overwritten by its CPU-mate while it was
             * descheduled; if any remain, the newest is its last. */
            if (k.seen[w] && k.newest[w] + 1 != before[w])
                fprintf(stderr, "final: writer %d newest %llu completed %llu\n", w,
                        (unsigned long long)k.newest[w], (unsigned long long)before[w]);
            CHECK(!k.seen[w] || k.newest[w] + 1 == before[w]);
        } else if (k.seen[w] && before[w] > 0 && k.newest[w] + 1 < before[w]) {
            fprintf(stderr, "writer %d: newest recovered %llu, completed before dump %llu\n", w,
                    (unsigned long long)k.newest[w], (unsigned long long)before[w]);
            CHECK(false);
        }
    }
    rec_dump_release(&d);
    return k.records;
}

#define NSTR 16384
static uint32_t ids[4][NSTR];

static bb_recorder *irec;  /* a ring for every string's record, a big intern table */
static int interners_left; /* atomic */

static void *interner(void *arg) {
    int t = (int)(uintptr_t)arg;
    char buf[32];
    for (int i = 0; i < NSTR; i++) {
        int s = (i * 7919 + t * 131) % NSTR; /* a different order per thread (7919 is odd) */
        snprintf(buf, sizeof buf, "str-%d", s);
        ids[t][s] = bb_intern_str(irec, buf);
        BB_RECORD(irec, conc_str, .thread = (uint32_t)t, .str = ids[t][s]);
        if (i % 64 == 0) /* pace it, so that dumps land while the table grows */
            for (int k = 0; k < 2000; k++) sched_pause();
    }
    __atomic_fetch_sub(&interners_left, 1, __ATOMIC_RELEASE);
    return NULL;
}

int main(void) {
    cpu_set_t allowed;
    int ncpu = 0, cpu_list[64], maxcpu = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        for (int c = 0; c < 64; c++)
            if (CPU_ISSET(c, &allowed)) {
                cpu_list[ncpu++] = c;
                maxcpu = c;
            }
    if (ncpu == 0) pinned = 0;
    for (int w = 0; w < NW && pinned; w++) cpus[w] = cpu_list[w % ncpu];

    bb_recorder_options o;
    bb_recorder_options_init(&o);
    /* Pinned writers stay on one shard each (their CPU's); if pinning is impossible, one shard
     * keeps each writer's records in one ring. */
    o.shards = pinned ? (uint32_t)maxcpu + 1 : 1;
    o.bytes_per_shard = RING;
    if (bb_recorder_create(&o, &rec) != BB_OK) return 1;
    bb_recorder_enable(rec, true);

    pthread_t th[NW];
    for (int w = 0; w < NW; w++) pthread_create(&th[w], NULL, writer, (void *)(uintptr_t)w);
    uint64_t total = 0;
    for (int i = 0; i < DUMPS; i++) {
        uint64_t before[NW];
        for (int w = 0; w < NW; w++) before[w] = __atomic_load_n(&completed[w], __ATOMIC_ACQUIRE);
        total += dump_and_check(before, false);
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int w = 0; w < NW; w++) pthread_join(th[w], NULL);
    uint64_t done[NW];
    for (int w = 0; w < NW; w++) done[w] = completed[w];
    total += dump_and_check(done, true);
    printf("concurrent: %d dumps, %llu records validated, %d shards, clock %s, cpu hint %s\n",
           DUMPS + 1, (unsigned long long)total, (int)bb_recorder_shard_count(rec),
           bb_recorder_clock_name(rec), bb_recorder_cpu_hint_name(rec));
    CHECK(total > 0);

    /* Concurrent interning while dumps are taken: every entry a dump holds is a whole string of
     * the set (the table is published entry by entry), ids are distinct; afterwards every
     * thread got one id per string, and each id resolves to it. */
    bb_recorder_options io;
    bb_recorder_options_init(&io);
    io.shards = 1;
    io.bytes_per_shard = 2u << 20; /* 4 x NSTR records of 26 bytes: none is lapped */
    io.intern_entries = 4 * NSTR;
    io.intern_bytes = 16 * 4 * NSTR;
    if (bb_recorder_create(&io, &irec) != BB_OK) return 1;
    bb_recorder_enable(irec, true);
    pthread_t it[4];
    interners_left = 4;
    for (int t = 0; t < 4; t++) pthread_create(&it[t], NULL, interner, (void *)(uintptr_t)t);
    int dumps = 0, partial = 0;
    while (__atomic_load_n(&interners_left, __ATOMIC_ACQUIRE) > 0 || dumps == 0) {
        rec_dump dd;
        rec_dump_take(irec, &dd);
        int bad = 0;
        for (size_t e = 0; e < dd.inst->intern_count; e++) {
            const bb_rintern *ri = &dd.inst->intern[e];
            int num = -1, used = 0;
            char tmp[32];
            if (ri->bytes.len < sizeof tmp) {
                memcpy(tmp, ri->bytes.ptr, ri->bytes.len);
                tmp[ri->bytes.len] = 0;
                if (sscanf(tmp, "str-%d%n", &num, &used) != 1 || used != (int)ri->bytes.len ||
                    num < 0 || num >= NSTR)
                    bad++;
            } else {
                bad++;
            }
            if (e > 0 && ri->id <= dd.inst->intern[e - 1].id) bad++;
        }
        CHECK(bad == 0);
        if (dd.inst->intern_count < NSTR) partial++;
        dumps++;
        rec_dump_release(&dd);
    }
    for (int t = 0; t < 4; t++) pthread_join(it[t], NULL);
    printf("concurrent: %d dumps taken while 4 threads interned %d strings (%d saw a partial "
           "table)\n",
           dumps, NSTR, partial);
    rec_dump d;
    rec_dump_take(irec, &d);
    char buf[32];
    int unresolved = 0;
    for (int s = 0; s < NSTR; s++) {
        snprintf(buf, sizeof buf, "str-%d", s);
        for (int t = 0; t < 4; t++) {
            const char *got = rec_intern(&d, ids[t][s]);
            if (ids[t][s] == BB_INTERN_FULL_ID || !got || strcmp(got, buf) != 0) unresolved++;
        }
    }
    CHECK(unresolved == 0);
    rec_dump_release(&d);
    bb_recorder_free(irec);
    bb_recorder_free(rec);
    return rec_finish("recorder_concurrent");
}
