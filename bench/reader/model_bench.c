/* model_bench.c — throughput and memory of the reader + model on a large generated dump.
 *
 * Usage: bench_reader_model [records_millions=10] [shards=8 (1..65000)] [unsorted_permille=0]
 * Builds an in-memory dump (independently of the writer) of N million records spread over the
 * shards (payloads of 24 and 17 bytes, an interned and an enum field), optionally with a fraction
 * of timestamps out of order so the per-ring sort runs, then reports: time to open the dump, time
 * to build the model (walk + locators + sort), model heap bytes per record (mallinfo2 delta), and
 * time to iterate the merged stream decoding every field, in records per second (all times
 * are process CPU time, so a loaded machine does not skew them).
 */
/* SPDX-License-Identifier: MIT */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backbeat/model.h"
#include "backbeat/reader.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); /* CPU time: the machine is shared */
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static size_t heap_used(void) {
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1Dull;
}

typedef struct out {
    uint8_t *p;
    size_t n;
} out;

static void w8(out *o, uint8_t v) { o->p[o->n++] = v; }
static void w16(out *o, uint16_t v) {
    w8(o, (uint8_t)v);
    w8(o, (uint8_t)(v >> 8));
}
static void w32(out *o, uint32_t v) {
    for (int i = 0; i < 4; i++) w8(o, (uint8_t)(v >> (8 * i)));
}
static void w64(out *o, uint64_t v) {
    for (int i = 0; i < 8; i++) w8(o, (uint8_t)(v >> (8 * i)));
}
static void wstr(out *o, const char *s) {
    w16(o, (uint16_t)strlen(s));
    memcpy(o->p + o->n, s, strlen(s));
    o->n += strlen(s);
}

#define ID_A 0xA000000000000001ull /* u32 key + interned u32: 8 bytes */
#define ID_B 0xB000000000000002ull /* enum u8: 1 byte */

static void field(out *o, const char *name, uint8_t type, uint8_t arg, uint16_t off, uint16_t width,
                  uint8_t role) {
    wstr(o, name);
    w8(o, 0);
    w8(o, type);
    if (type == 10 || type == 11) w8(o, arg);
    w16(o, off);
    w16(o, width);
    w8(o, role);
    w8(o, 0);
    w8(o, 0);
}

int main(int argc, char **argv) {
    double millions = argc > 1 ? atof(argv[1]) : 10;
    unsigned shards = argc > 2 ? (unsigned)atoi(argv[2]) : 8;
    unsigned unsorted = argc > 3 ? (unsigned)atoi(argv[3]) : 0;
    if (shards < 1 || shards > 65000) {
        fprintf(stderr, "bench_reader_model: shards must be 1..65000\n");
        return 2;
    }
    uint64_t total = (uint64_t)(millions * 1e6);
    uint64_t per = total / shards;
    uint64_t cap = 1;
    while (cap < per * 26) cap <<= 1; /* records are at most 26 bytes: no wrap */
    size_t size = 4096 + 20 * ((size_t)shards + 3) + shards * (28 + cap) + 64;
    out o = {malloc(size), 0};
    if (!o.p) return 1;
    unsigned nsec = 3 + shards;
    memcpy(o.p, "BACKBEAT", 8);
    o.n = 8;
    w16(&o, 1);
    w16(&o, 1);
    w16(&o, (uint16_t)nsec);
    w16(&o, 0);
    size_t table = o.n;
    o.n += 20 * nsec;
    uint64_t *offs = calloc(nsec, sizeof *offs), *lens = calloc(nsec, sizeof *lens);
    uint16_t *kinds = calloc(nsec, sizeof *kinds);
    if (!offs || !lens || !kinds) return 1;
    /* schema */
    offs[0] = o.n;
    kinds[0] = 0;
    w32(&o, 2);
    w64(&o, ID_A);
    wstr(&o, "bench::A");
    w8(&o, 0);
    w16(&o, 8);
    w8(&o, 0);
    w16(&o, 2);
    field(&o, "conn", 2, 0, 0, 4, 1);
    w16(&o, 0);
    field(&o, "tag", 11, 1, 4, 4, 0);
    w16(&o, 0);
    w64(&o, ID_B);
    wstr(&o, "bench::B");
    w8(&o, 0);
    w16(&o, 1);
    w8(&o, 0);
    w16(&o, 1);
    field(&o, "dir", 10, 1, 0, 1, 0);
    w16(&o, 2);
    w64(&o, 0);
    wstr(&o, "in");
    w64(&o, 1);
    wstr(&o, "out");
    lens[0] = o.n - offs[0];
    /* intern */
    offs[1] = o.n;
    kinds[1] = 1;
    w64(&o, 42);
    w32(&o, 2);
    w32(&o, 1);
    w32(&o, 3);
    memcpy(o.p + o.n, "one", 3);
    o.n += 3;
    w32(&o, 2);
    w32(&o, 3);
    memcpy(o.p + o.n, "two", 3);
    o.n += 3;
    lens[1] = o.n - offs[1];
    /* shards */
    uint64_t written = 0;
    for (unsigned s = 0; s < shards; s++) {
        offs[2 + s] = o.n;
        kinds[2 + s] = 2;
        w64(&o, 42);
        w32(&o, s);
        size_t head_at = o.n;
        w64(&o, 0);
        w64(&o, cap);
        uint8_t *ring = o.p + o.n;
        memset(ring, 0, cap);
        uint64_t head = 0, ts = 1000000 + s;
        for (uint64_t i = 0; i < per; i++) {
            bool big = (i % 4) != 3;
            uint64_t t = ts + i * 100;
            if (unsorted && rnd() % 1000 < unsorted) t -= rnd() % 5000;
            uint64_t id = big ? ID_A : ID_B;
            uint16_t fl = big ? 8 : 1;
            memcpy(ring + head, &t, 8);
            memcpy(ring + head + 8, &id, 8);
            uint32_t conn = (uint32_t)i, tag = 1 + (uint32_t)(i & 1);
            if (big) {
                memcpy(ring + head + 16, &conn, 4);
                memcpy(ring + head + 20, &tag, 4);
            } else {
                ring[head + 16] = (uint8_t)(i & 1);
            }
            uint16_t len = (uint16_t)(16 + fl);
            memcpy(ring + head + 16 + fl, &len, 2);
            head += 18u + fl;
            written++;
        }
        uint64_t save = o.n;
        o.n = head_at;
        w64(&o, head);
        o.n = save + cap;
        lens[2 + s] = o.n - offs[2 + s];
    }
    offs[2 + shards] = o.n;
    kinds[2 + shards] = 3;
    w64(&o, 42);
    wstr(&o, "bench-host");
    lens[2 + shards] = o.n - offs[2 + shards];
    size_t end = o.n;
    o.n = table;
    for (unsigned i = 0; i < nsec; i++) {
        w16(&o, kinds[i]);
        w16(&o, 0);
        w64(&o, offs[i]);
        w64(&o, lens[i]);
    }
    o.n = end;

    printf("dump: %.1f MiB, %u shards, %llu records, %u/1000 out of order\n",
           (double)o.n / (1 << 20), shards, (unsigned long long)written, unsorted);
    size_t h0 = heap_used();
    double t0 = now();
    bb_dump *d = NULL;
    bb_error err;
    if (bb_dump_open_memory(o.p, o.n, "bench.bb", &d, &err) != BB_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    double t1 = now();
    size_t h1 = heap_used();
    bb_model *m = NULL;
    if (bb_model_open(&d, 1, true, &m, &err) != BB_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    double t2 = now();
    size_t h2 = heap_used();
    uint64_t n = bb_model_record_count(m);
    bb_model_iter *it = NULL;
    bb_model_iter_new(m, &it);
    size_t h3 = heap_used();
    bb_mrecord r;
    uint64_t k = 0, sum = 0, last = 0, disorder = 0;
    while (bb_model_next(it, &r)) {
        if (r.rec.ts < last) disorder++;
        last = r.rec.ts;
        for (size_t f = 0; f < r.rec.schema->field_count; f++) {
            bb_value v = bb_decode_field(r.rec.schema, f, r.rec.fields, r.instance);
            sum += v.u + v.str.len;
        }
        k++;
    }
    double t3 = now();
    /* The merge alone, without decoding. */
    bb_model_iter *it2 = NULL;
    bb_model_iter_new(m, &it2);
    uint64_t k2 = 0;
    while (bb_model_next(it2, &r)) k2 += r.rec.ts & 1;
    double t4 = now();
    bb_model_iter_free(it2);
    printf("iterate only: %.3f s (%.1f M records/s) (%llu)\n", t4 - t3, (double)n / (t4 - t3) / 1e6,
           (unsigned long long)k2);
    printf("open: %.3f s (heap %zu bytes)\n", t1 - t0, h1 - h0);
    printf("model: %.3f s for %llu records (%.1f M records/s)\n", t2 - t1, (unsigned long long)n,
           (double)n / (t2 - t1) / 1e6);
    printf("model heap: %.2f MiB = %.2f bytes/record; iterator %zu bytes\n",
           (double)(h2 - h1) / (1 << 20), (double)(h2 - h1) / (double)(n ? n : 1), h3 - h2);
    printf("iterate+decode: %.3f s (%.1f M records/s), %llu yielded, order %s (checksum %llu)\n",
           t3 - t2, (double)k / (t3 - t2) / 1e6, (unsigned long long)k, disorder ? "BROKEN" : "ok",
           (unsigned long long)sum);
    bb_model_iter_free(it);
    bb_model_close(m);
    bb_dump_close(d);
    free(o.p);
    free(offs);
    free(lens);
    free(kinds);
    return disorder || k != n;
}
