/* pad_only_gen.c — writes a small `.bb` dump whose two events share the name gen::PadOnly and
 * hold nothing but padding (a 4-byte and an 8-byte `_pad`, so two ids): the trace then names
 * each record's version by a "backbeat.event_id" arg and no field (trace_pad_only.sh).
 *
 * Usage: pad_only_gen OUT.bb */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "backbeat/dump_writer.h"
#include "backbeat/registry.h"

static const bb_field_desc pad4[] = {
    {.name = "_pad", .offset = 0, .width = 4, .type = BB_TYPE_BYTES}};
static const bb_field_desc pad8[] = {
    {.name = "_pad", .offset = 0, .width = 8, .type = BB_TYPE_BYTES}};
static bb_event_desc ev4 = {
    .name = "gen::PadOnly", .fields = pad4, .field_count = 1, .record_size = 4};
static bb_event_desc ev8 = {
    .name = "gen::PadOnly", .fields = pad8, .field_count = 1, .record_size = 8};

enum { CAP = 4096, RECORDS = 6 };
static uint8_t ring[CAP];
static uint64_t head;

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Record k: ts 1e12 + 1000k, version 4 or 8 bytes by parity, the padding bytes zero. */
static void fill(void) {
    for (int k = 0; k < RECORDS; k++) {
        const bb_event_desc *ev = k % 2 ? &ev8 : &ev4;
        uint8_t *p = ring + head;
        put_le(p, 1000000000000ull + 1000ull * (uint64_t)k, 8);
        put_le(p + 8, ev->id, 8);
        memset(p + 16, 0, ev->record_size);
        put_le(p + 16 + ev->record_size, 16 + ev->record_size, 2);
        head += 18 + ev->record_size;
    }
}

static bb_intern_item no_intern(void *ctx, size_t i) {
    (void)ctx;
    (void)i;
    return (bb_intern_item){0, 0, ""};
}
static uint64_t capacity(void *ctx, uint32_t i) {
    (void)ctx;
    (void)i;
    return CAP;
}
static const uint8_t *region(void *ctx, uint32_t i, uint8_t *scratch, uint64_t *h) {
    (void)ctx;
    (void)i;
    (void)scratch;
    *h = head;
    return ring;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: pad_only_gen OUT.bb\n");
        return 2;
    }
    ev4.id = bb_event_id_compute(&ev4);
    ev8.id = bb_event_id_compute(&ev8);
    fill();
    const bb_event_desc *events[] = {&ev4, &ev8};
    bb_dump_input in = {.instance_id = 0xfe00000000000009ull,
                        .host = "pad-host",
                        .events = events,
                        .event_count = 2,
                        .intern_count = 0,
                        .intern_get = no_intern,
                        .shard_count = 1,
                        .shard_capacity = capacity,
                        .shard_region = region};
    FILE *f = fopen(argv[1], "wb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    int fd = fileno(f);
    bb_error err;
    bb_status st = bb_dump_write(&in, bb_sink_fd(&fd), NULL, &err);
    if (fclose(f) != 0 || st != BB_OK) {
        fprintf(stderr, "pad_only_gen: %s\n", st != BB_OK ? err.message : "close failed");
        return 1;
    }
    return 0;
}
