/* robust_gen.c — the crafted dumps of the CLI robustness tests (cli_robust.sh), through the
 * public dump writer (backbeat/dump_writer.h):
 *
 *   robust_gen noshards OUT.bb   one instance with a host and two intern entries, no Shard
 *                                section (merge's re-pack then has no bucket to sort)
 *   robust_gen orphan OUT.bb     a Schema and an Intern section of an instance no Meta or Shard
 *                                section names (so the reader lists no instance at all)
 *   robust_gen shards OUT.bb N   one instance, no intern entries, N shards of 64 bytes, one record
 *                                in every 1000th shard; the writer puts an Intern section (empty)
 *                                and a Meta beside the shards, so past 65532 shards the empty
 *                                Intern section is dropped from the written dump and the
 *                                remaining shards appended (at most 65533: 65535 sections)
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/dump_writer.h"
#include "backbeat/registry.h"

static const bb_field_desc tick_fields[] = {
    {.name = "n", .offset = 0, .width = 4, .type = BB_TYPE_U32, .role = BB_ROLE_KEY},
};
static bb_event_desc ev_tick = {
    .name = "robust::Tick", .fields = tick_fields, .field_count = 1, .record_size = 4};

#define CAP 64u
#define INSTANCE 0x0123456789abcdefull

static void put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint64_t get64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static const char *names[] = {"alpha", "beta"};
static bb_intern_item intern_get(void *ctx, size_t i) {
    (void)ctx;
    return (bb_intern_item){(uint32_t)i + 1, (uint32_t)strlen(names[i]), names[i]};
}
static uint64_t shard_capacity(void *ctx, uint32_t i) {
    (void)ctx;
    (void)i;
    return CAP;
}
/* Shard i: one Tick {n = i} at ts 1000 + i when i % 1000 == 0, else empty. */
static void shard_bytes(uint32_t i, uint8_t *region, uint64_t *head) {
    memset(region, 0, CAP);
    *head = 0;
    if (i % 1000) return;
    put64(region, 1000 + (uint64_t)i);
    put64(region + 8, ev_tick.id);
    put32(region + 16, i);
    put16(region + 20, 16 + 4);
    *head = 22;
}
static const uint8_t *shard_region(void *ctx, uint32_t i, uint8_t *scratch, uint64_t *head) {
    (void)ctx;
    shard_bytes(i, scratch, head);
    return scratch;
}

static int write_file(const char *path, const uint8_t *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        perror(path);
        return 1;
    }
    return 0;
}

/* Write `in` into a malloc'ed buffer. */
static uint8_t *write_dump(const bb_dump_input *in, size_t *len) {
    uint64_t size = bb_dump_size(in);
    bb_buffer_sink b = {malloc(size ? (size_t)size : 1), (size_t)size, 0};
    uint8_t scratch[CAP];
    bb_error err;
    if (!size || !b.data || bb_dump_write(in, bb_sink_buffer(&b), scratch, &err) != BB_OK) {
        fprintf(stderr, "robust_gen: cannot write the dump\n");
        free(b.data);
        return NULL;
    }
    *len = b.len;
    return b.data;
}

/* The writer's dump (Schema, Intern, shards 0..k-1, Meta) without its empty Intern section and
 * with shards k..n-1 appended after shard k-1. */
static uint8_t *extend(const uint8_t *d, size_t len, uint32_t k, uint32_t n, size_t *out_len) {
    size_t ns = get16(d + 12);
    if (ns != (size_t)k + 3 || get16(d + 16 + 20) != 1 /* Intern */) return NULL;
    size_t nns = ns - 1 + (n - k);
    if (nns > 65535) return NULL;
    size_t shard_len = 32 + CAP;
    size_t total = len - 12 /* empty Intern */ + (n - k) * shard_len + (nns - ns) * 20;
    uint8_t *o = calloc(1, total);
    if (!o) return NULL;
    memcpy(o, d, 16);
    put16(o + 12, (uint16_t)nns);
    size_t off = 16 + 20 * nns, e = 0;
    /* append entry: kind, body */
#define ENTRY(kind, body, blen)         \
    do {                                \
        uint8_t *t = o + 16 + 20 * e++; \
        put16(t, kind);                 \
        put64(t + 4, off);              \
        put64(t + 12, blen);            \
        memcpy(o + off, body, blen);    \
        off += blen;                    \
    } while (0)
    for (size_t i = 0; i < ns; i++) {
        const uint8_t *t = d + 16 + 20 * i;
        uint16_t kind = get16(t);
        size_t so = (size_t)get64(t + 4), sl = (size_t)get64(t + 12);
        if (kind == 1) continue;
        if (kind == 3) /* Meta last: the missing shards first */
            for (uint32_t s = k; s < n; s++) {
                uint8_t body[32 + CAP];
                uint64_t head;
                shard_bytes(s, body + 32, &head);
                put64(body, INSTANCE);
                put32(body + 8, s);
                put64(body + 12, head);
                put64(body + 20, CAP);
                ENTRY(2, body, sizeof body);
            }
        ENTRY(kind, d + so, sl);
    }
#undef ENTRY
    *out_len = off;
    return off == total ? o : (free(o), NULL);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: robust_gen noshards|orphan|shards OUT.bb [N]\n");
        return 2;
    }
    const char *scen = argv[1], *out = argv[2];
    ev_tick.id = bb_event_id_compute(&ev_tick);
    const bb_event_desc *events[] = {&ev_tick};
    bb_dump_input in;
    memset(&in, 0, sizeof in);
    in.instance_id = INSTANCE;
    in.host = "robust-host";
    in.events = events;
    in.event_count = 1;
    in.shard_capacity = shard_capacity;
    in.shard_region = shard_region;
    size_t len = 0;
    uint8_t *d;
    if (!strcmp(scen, "noshards") || !strcmp(scen, "orphan")) {
        in.intern_count = 2;
        in.intern_get = intern_get;
        if (!(d = write_dump(&in, &len))) return 1;
        if (!strcmp(scen, "orphan")) {
            /* Schema, Intern, Meta: keep the first two (the Meta body is last). */
            if (get16(d + 12) != 3) return 1;
            size_t meta_off = (size_t)get64(d + 16 + 40 + 4);
            size_t body = 16 + 60, nb = meta_off - body;
            memmove(d + 16 + 40, d + body, nb);
            put16(d + 12, 2);
            for (int i = 0; i < 2; i++) put64(d + 16 + 20 * i + 4, get64(d + 16 + 20 * i + 4) - 20);
            len = 16 + 40 + nb;
        }
    } else if (!strcmp(scen, "shards") && argc == 4) {
        uint32_t n = (uint32_t)strtoul(argv[3], NULL, 10), k = n < 65532 ? n : 65532;
        in.shard_count = k;
        if (!(d = write_dump(&in, &len))) return 1;
        if (n > k) {
            size_t nl;
            uint8_t *e = extend(d, len, k, n, &nl);
            free(d);
            if (!e) {
                fprintf(stderr, "robust_gen: %u shards do not fit\n", n);
                return 1;
            }
            d = e;
            len = nl;
        }
    } else {
        return 2;
    }
    int st = write_file(out, d, len);
    free(d);
    return st;
}
