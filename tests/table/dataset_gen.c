/* dataset_gen.c — dumps whose instances stress a dataset append (issue 43, findings 3-5).
 *
 *   dataset_gen OUT.bb instances N     one multi-instance dump of N small instances (ids 1..N,
 *                                      host "host-<i>", 4 records each on one shard, one
 *                                      event): the shape a merge of a fleet's dumps has
 *   dataset_gen OUT.bb host HEX [ID]   one instance (id ID, default 1) whose host is the bytes
 *                                      HEX (any bytes but NUL: invalid UTF-8, hundreds of
 *                                      bytes), 4 records
 *
 * One instance is written by the public dump writer; `instances` repeats its Meta and Shard
 * sections with the instance id and host changed (the writer writes one instance per dump).
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/dump_writer.h"
#include "backbeat/registry.h"
#include "backbeat/schema.h"

static void put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

enum { CAP = 4096, NREC = 4 };
static uint8_t g_ring[CAP];
static uint64_t g_head;

static uint64_t one_cap(void *ctx, uint32_t s) {
    (void)ctx;
    (void)s;
    return CAP;
}
static const uint8_t *one_region(void *ctx, uint32_t s, uint8_t *scratch, uint64_t *head) {
    (void)ctx;
    (void)s;
    (void)scratch;
    *head = g_head;
    return g_ring;
}

typedef struct mem {
    uint8_t *p;
    size_t n, cap;
} mem;

static int mem_write(void *ctx, const void *data, size_t len) {
    mem *m = ctx;
    if (m->n + len > m->cap) {
        size_t cap = (m->n + len) * 2;
        uint8_t *p = realloc(m->p, cap);
        if (!p) return 1;
        m->p = p;
        m->cap = cap;
    }
    memcpy(m->p + m->n, data, len);
    m->n += len;
    return 0;
}

/* One instance's dump into m: NREC records of event "fleet::Tick" {u64 n} at ts 1e18 + i s. */
static int one_dump(mem *m, uint64_t id, const char *host) {
    static const bb_field_desc fd[] = {{.name = "n", .offset = 0, .width = 8, .type = BB_TYPE_U64}};
    static bb_event_desc ev = {
        .name = "fleet::Tick", .fields = fd, .field_count = 1, .record_size = 8};
    ev.id = bb_event_id_compute(&ev);
    const bb_event_desc *evs[] = {&ev};
    g_head = 0;
    for (uint64_t i = 0; i < NREC; i++) {
        uint8_t *p = g_ring + g_head;
        put64(p, 1000000000000000000ull + i * 1000000000ull);
        put64(p + 8, ev.id);
        put64(p + 16, i);
        put16(p + 24, 24);
        g_head += 26;
    }
    bb_dump_input in = {.instance_id = id,
                        .host = host,
                        .events = evs,
                        .event_count = 1,
                        .shard_count = 1,
                        .shard_capacity = one_cap,
                        .shard_region = one_region};
    bb_error err;
    bb_sink sink = {.write = mem_write, .ctx = m};
    if (bb_dump_write(&in, sink, NULL, &err) != BB_OK) {
        fprintf(stderr, "dataset_gen: %s\n", err.message);
        return 1;
    }
    return 0;
}

static int save(const char *path, const uint8_t *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return 1;
    }
    int rc = fwrite(p, 1, n, f) == n ? 0 : 1;
    return fclose(f) == 0 ? rc : 1;
}

/* The template's section (kind k) body: its offset and length. */
static const uint8_t *section(const mem *m, uint16_t k, size_t *len) {
    unsigned ns = (unsigned)m->p[12] | (unsigned)m->p[13] << 8;
    for (unsigned i = 0; i < ns; i++) {
        const uint8_t *e = m->p + 16 + 20 * (size_t)i;
        if (((unsigned)e[0] | (unsigned)e[1] << 8) == k) {
            *len = (size_t)get64(e + 12);
            return m->p + get64(e + 4);
        }
    }
    *len = 0;
    return NULL;
}

static int instances(const char *path, unsigned n) {
    if (n < 1 || n > 32767) {
        fprintf(stderr, "dataset_gen: N must be 1..32767\n");
        return 2;
    }
    mem t = {0};
    if (one_dump(&t, 1, "host-0")) return 1;
    size_t slen, shlen, mlen;
    const uint8_t *schema = section(&t, 0, &slen), *shard = section(&t, 2, &shlen);
    section(&t, 3, &mlen);
    if (!schema || !shard) return 1;
    unsigned nsec = 1 + 2 * n;
    size_t pos = 16 + 20 * (size_t)nsec, total = pos + slen + (size_t)n * (10 + 16 + shlen);
    uint8_t *b = calloc(1, total);
    if (!b) return 1;
    memcpy(b, t.p, 16);
    put16(b + 12, (uint16_t)nsec);
    uint8_t *e = b + 16;
    put16(e, 0);
    put64(e + 4, pos);
    put64(e + 12, slen);
    memcpy(b + pos, schema, slen);
    pos += slen;
    for (unsigned i = 0; i < n; i++) {
        char host[16];
        int hl = snprintf(host, sizeof host, "host-%u", i);
        e = b + 16 + 20 * (1 + 2 * (size_t)i);
        put16(e, 3);
        put64(e + 4, pos);
        put64(e + 12, 10 + (uint64_t)hl);
        put64(b + pos, i + 1);
        put16(b + pos + 8, (uint16_t)hl);
        memcpy(b + pos + 10, host, (size_t)hl);
        pos += 10 + (size_t)hl;
        e += 20;
        put16(e, 2);
        put64(e + 4, pos);
        put64(e + 12, shlen);
        memcpy(b + pos, shard, shlen);
        put64(b + pos, i + 1); /* the shard's instance id */
        pos += shlen;
    }
    int rc = save(path, b, pos);
    free(b);
    free(t.p);
    return rc;
}

static int host(const char *path, const char *hex, uint64_t id) {
    size_t n = strlen(hex) / 2;
    char *h = calloc(1, n + 1);
    if (!h) return 1;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1 || v == 0) {
            fprintf(stderr, "dataset_gen: bad HEX (pairs of hex digits, no 00)\n");
            return 2;
        }
        h[i] = (char)v;
    }
    mem m = {0};
    int rc = one_dump(&m, id, h) || save(path, m.p, m.n);
    free(m.p);
    free(h);
    return rc;
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[2], "instances"))
        return instances(argv[1], (unsigned)strtoul(argv[3], NULL, 10));
    if ((argc == 4 || argc == 5) && !strcmp(argv[2], "host"))
        return host(argv[1], argv[3], argc == 5 ? strtoull(argv[4], NULL, 0) : 1);
    fprintf(stderr, "usage: dataset_gen OUT.bb instances N | host HEX [ID]\n");
    return 2;
}
