/* gen_scale.c — dumps whose shape stresses one conversion or reader path (bench/scale.sh).
 *
 * Usage: gen_scale OUT.bb widefields NFIELDS      4 events of NFIELDS u8 fields, 4 records
 *        gen_scale OUT.bb manylabels NLABELS NREC one enum field of NLABELS labels, NREC records
 *        gen_scale OUT.bb bigstrings NSTR LEN NREC NSTR interned strings of LEN bytes, NREC
 *                                                  records referencing them (pseudo-randomly)
 *        gen_scale OUT.bb manymeta N              N Meta sections (instances 1..N), one shard
 *        gen_scale OUT.bb zeroshard BYTES          one all-zero shard of BYTES (a power of two)
 *        gen_scale OUT.bb manyviews N             N Views sections of distinct text
 *        gen_scale OUT.bb manyshards N            N record-less Shard sections of one instance
 *
 * Everything but manymeta, manyviews and manyshards goes through the public dump writer; those
 * write the bytes of the sections themselves (the writer emits one Meta section per dump and
 * one Views section per registered set).
 */
/* SPDX-License-Identifier: MIT */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/dump_writer.h"
#include "backbeat/registry.h"
#include "backbeat/schema.h"

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i)); }
static void put64(uint8_t *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i)); }

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static int write_all(void *ctx, const void *data, size_t len)
{
    return fwrite(data, 1, len, (FILE *)ctx) == len ? 0 : 1;
}

/* One ring of records: events[k] chosen by ev_of(i), field bytes by fill(i). */
typedef struct ring {
    uint8_t *mem;
    uint64_t cap, head;
} ring;

static void ring_init(ring *r, uint64_t bytes)
{
    r->cap = 4096;
    while (r->cap < bytes) r->cap *= 2;
    r->mem = calloc(1, r->cap);
    if (!r->mem) { perror("calloc"); exit(1); }
    r->head = 0;
}

/* Append a record of `rs` field bytes (copied from f) and return the field pointer. */
static void ring_put(ring *r, uint64_t ts, uint64_t id, const uint8_t *f, uint16_t rs)
{
    uint8_t *p = r->mem + r->head;
    put64(p, ts);
    put64(p + 8, id);
    if (rs) memcpy(p + 16, f, rs);
    put16(p + 16 + rs, (uint16_t)(16 + rs));
    r->head += 18u + rs;
}

static ring g_ring;
static uint64_t one_cap(void *ctx, uint32_t s) { (void)ctx; (void)s; return g_ring.cap; }
static const uint8_t *one_region(void *ctx, uint32_t s, uint8_t *scratch, uint64_t *head)
{
    (void)ctx; (void)s; (void)scratch;
    *head = g_ring.head;
    return g_ring.mem;
}

static size_t g_nstr, g_len;
static char *g_str;
static bb_intern_item str_get(void *ctx, size_t i)
{
    (void)ctx;
    return (bb_intern_item){.id = (uint32_t)(i + 1), .len = (uint32_t)g_len,
                            .bytes = g_str + i * g_len};
}

static int write_dump(const char *path, bb_dump_input *in)
{
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); return 1; }
    static char iobuf[1 << 20];
    setvbuf(f, iobuf, _IOFBF, sizeof iobuf);
    bb_error err;
    bb_sink sink = {.write = write_all, .ctx = f};
    if (bb_dump_write(in, sink, NULL, &err) != BB_OK) {
        fprintf(stderr, "gen_scale: %s\n", err.message);
        return 1;
    }
    return fclose(f) == 0 ? 0 : 1;
}

static int widefields(const char *path, unsigned n)
{
    enum { NEV = 4, RS = 256 };
    bb_field_desc *fd = calloc(n, sizeof *fd);
    char *names = malloc((size_t)n * 8);
    if (!fd || !names) return 1;
    for (unsigned k = 0; k < n; k++) {
        snprintf(names + 8 * (size_t)k, 8, "f%05u", k & 0xFFFFu);
        fd[k] = (bb_field_desc){.name = names + 8 * (size_t)k, .offset = (uint16_t)(k % RS),
                                .width = 1, .type = BB_TYPE_U8};
    }
    static bb_event_desc ev[NEV];
    static char evn[NEV][16];
    const bb_event_desc *evs[NEV];
    ring_init(&g_ring, NEV * (18 + RS));
    uint8_t f[RS];
    for (int e = 0; e < NEV; e++) {
        snprintf(evn[e], sizeof evn[e], "wide::W%d", e);
        ev[e] = (bb_event_desc){.name = evn[e], .fields = fd, .field_count = n,
                                .record_size = RS};
        ev[e].id = bb_event_id_compute(&ev[e]);
        evs[e] = &ev[e];
        for (int i = 0; i < RS; i++) f[i] = (uint8_t)(i + e);
        ring_put(&g_ring, 1000 + (uint64_t)e, ev[e].id, f, RS);
    }
    bb_dump_input in = {.instance_id = 1, .host = "h", .events = evs, .event_count = NEV,
                        .shard_count = 1, .shard_capacity = one_cap, .shard_region = one_region};
    return write_dump(path, &in);
}

static int manylabels(const char *path, unsigned nl, uint64_t nrec)
{
    bb_enum_label *lab = calloc(nl, sizeof *lab);
    char *names = malloc((size_t)nl * 8);
    if (!lab || !names) return 1;
    for (unsigned k = 0; k < nl; k++) {
        snprintf(names + 8 * (size_t)k, 8, "L%05u", k & 0xFFFFu);
        lab[k] = (bb_enum_label){k, names + 8 * (size_t)k};
    }
    bb_field_desc fd[] = {{.name = "e", .offset = 0, .width = 2, .type = BB_TYPE_ENUM,
                           .type_arg = 2, .labels = lab, .label_count = nl}};
    static bb_event_desc ev = {.name = "labels::E", .field_count = 1, .record_size = 2};
    ev.fields = fd;
    ev.id = bb_event_id_compute(&ev);
    const bb_event_desc *evs[] = {&ev};
    ring_init(&g_ring, nrec * 20);
    for (uint64_t i = 0; i < nrec; i++) {
        uint8_t f[2];
        put16(f, (uint16_t)(nl - 1 - mix64(i) % (nl < 16 ? nl : 16))); /* the last labels */
        ring_put(&g_ring, 1000 + i, ev.id, f, 2);
    }
    bb_dump_input in = {.instance_id = 1, .host = "h", .events = evs, .event_count = 1,
                        .shard_count = 1, .shard_capacity = one_cap, .shard_region = one_region};
    return write_dump(path, &in);
}

static int bigstrings(const char *path, size_t nstr, size_t len, uint64_t nrec)
{
    g_nstr = nstr;
    g_len = len;
    g_str = malloc(nstr * len);
    if (!g_str) return 1;
    for (size_t i = 0; i < nstr * len; i++) g_str[i] = (char)('a' + mix64(i) % 26);
    bb_field_desc fd[] = {{.name = "s", .offset = 0, .width = 4, .type = BB_TYPE_INTERNED,
                           .type_arg = 1}};
    static bb_event_desc ev = {.name = "strings::S", .field_count = 1, .record_size = 4};
    ev.fields = fd;
    ev.id = bb_event_id_compute(&ev);
    const bb_event_desc *evs[] = {&ev};
    ring_init(&g_ring, nrec * 22);
    for (uint64_t i = 0; i < nrec; i++) {
        uint8_t f[4];
        put32(f, (uint32_t)(1 + mix64(i) % nstr));
        ring_put(&g_ring, 1000 + i, ev.id, f, 4);
    }
    bb_dump_input in = {.instance_id = 1, .host = "h", .events = evs, .event_count = 1,
                        .intern_count = nstr, .intern_get = str_get, .shard_count = 1,
                        .shard_capacity = one_cap, .shard_region = one_region};
    return write_dump(path, &in);
}

static int zeroshard(const char *path, uint64_t bytes)
{
    ring_init(&g_ring, bytes);
    g_ring.head = g_ring.cap;
    bb_dump_input in = {.instance_id = 1, .host = "h", .shard_count = 1,
                        .shard_capacity = one_cap, .shard_region = one_region};
    return write_dump(path, &in);
}

/* Envelope, table, an empty Schema section, N Meta sections (instance i+1, host "host-i"),
 * and one small Shard section of instance 1 holding one record-less ring. */
static int manymeta(const char *path, unsigned n)
{
    if (n > 65533) n = 65533;
    unsigned nsec = n + 2;
    size_t table = 16 + 20 * (size_t)nsec;
    size_t cap = 4096;
    size_t total = table + 4 + (size_t)n * (8 + 2 + 16) + 28 + cap;
    uint8_t *b = calloc(1, total);
    if (!b) return 1;
    memcpy(b, "BACKBEAT", 8);
    put16(b + 8, 1);
    put16(b + 10, 1);
    put16(b + 12, (uint16_t)nsec);
    size_t pos = table;
    unsigned s = 0;
    /* schema: count 0 */
    put16(b + 16 + 20 * s, 0);
    put64(b + 16 + 20 * s + 4, pos);
    put64(b + 16 + 20 * s + 12, 4);
    s++;
    pos += 4;
    for (unsigned i = 0; i < n; i++, s++) {
        char host[16];
        int hl = snprintf(host, sizeof host, "host-%u", i);
        put16(b + 16 + 20 * s, 3);
        put64(b + 16 + 20 * s + 4, pos);
        put64(b + 16 + 20 * s + 12, 8 + 2 + (uint64_t)hl);
        put64(b + pos, (uint64_t)i + 1);
        put16(b + pos + 8, (uint16_t)hl);
        memcpy(b + pos + 10, host, (size_t)hl);
        pos += 10 + (size_t)hl;
    }
    put16(b + 16 + 20 * s, 2);
    put64(b + 16 + 20 * s + 4, pos);
    put64(b + 16 + 20 * s + 12, 28 + cap);
    put64(b + pos, 1);
    put32(b + pos + 8, 0);
    put64(b + pos + 12, 0);
    put64(b + pos + 20, cap);
    pos += 28 + cap;
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); return 1; }
    int rc = fwrite(b, 1, pos, f) == pos ? 0 : 1;
    free(b);
    return fclose(f) == 0 ? rc : 1;
}

/* Envelope, table, an empty Schema section, a Meta section of instance 1, then N Views
 * sections ("-- view i", distinct) or N Shard sections of instance 1 (shard i, a record-less
 * ring of 64 bytes). */
static int manysections(const char *path, unsigned n, bool views)
{
    if (n > 65533) n = 65533;
    unsigned nsec = n + 2;
    size_t table = 16 + 20 * (size_t)nsec;
    size_t total = table + 4 + 16 + (size_t)n * (views ? 24 : 28 + 64);
    uint8_t *b = calloc(1, total);
    if (!b) return 1;
    memcpy(b, "BACKBEAT", 8);
    put16(b + 8, 1);
    put16(b + 10, 1);
    put16(b + 12, (uint16_t)nsec);
    size_t pos = table;
    uint8_t *t = b + 16;
    put16(t, 0); /* schema: count 0 */
    put64(t + 4, pos);
    put64(t + 12, 4);
    pos += 4;
    put16(t + 20, 3); /* meta: instance 1, host "h" */
    put64(t + 24, pos);
    put64(t + 32, 11);
    put64(b + pos, 1);
    put16(b + pos + 8, 1);
    b[pos + 10] = 'h';
    pos += 11;
    for (unsigned i = 0; i < n; i++) {
        uint8_t *e = t + 20 * (2 + (size_t)i);
        size_t len = views ? (size_t)snprintf((char *)b + pos, 24, "-- view %u\n", i) : 28 + 64;
        put16(e, views ? 4 : 2);
        put64(e + 4, pos);
        put64(e + 12, len);
        if (!views) {
            put64(b + pos, 1);
            put32(b + pos + 8, i);
            put64(b + pos + 12, 0);
            put64(b + pos + 20, 64);
        }
        pos += len;
    }
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); return 1; }
    int rc = fwrite(b, 1, pos, f) == pos ? 0 : 1;
    free(b);
    return fclose(f) == 0 ? rc : 1;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[2], "widefields") == 0)
        return widefields(argv[1], (unsigned)strtoul(argv[3], NULL, 10));
    if (argc == 5 && strcmp(argv[2], "manylabels") == 0)
        return manylabels(argv[1], (unsigned)strtoul(argv[3], NULL, 10),
                          strtoull(argv[4], NULL, 10));
    if (argc == 6 && strcmp(argv[2], "bigstrings") == 0)
        return bigstrings(argv[1], strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10),
                          strtoull(argv[5], NULL, 10));
    if (argc == 4 && strcmp(argv[2], "manymeta") == 0)
        return manymeta(argv[1], (unsigned)strtoul(argv[3], NULL, 10));
    if (argc == 4 && strcmp(argv[2], "zeroshard") == 0)
        return zeroshard(argv[1], strtoull(argv[3], NULL, 10));
    if (argc == 4 && (!strcmp(argv[2], "manyviews") || !strcmp(argv[2], "manyshards")))
        return manysections(argv[1], (unsigned)strtoul(argv[3], NULL, 10),
                            !strcmp(argv[2], "manyviews"));
    fprintf(stderr, "usage: gen_scale OUT.bb widefields N | manylabels NLABELS NREC | "
                    "bigstrings NSTR LEN NREC | manymeta N | zeroshard BYTES | manyviews N | "
                    "manyshards N\n");
    return 2;
}
