/* ctf_gen.c — writes the dumps of the CTF writer's tests that the golden vectors do not cover
 * (through dump_writer.h): field names that are TSDL keywords, start with '_' or a digit, are no
 * identifier or clash once escaped; padding; an interned field with a sentinel, a missing id,
 * invalid UTF-8 and an empty string; bool, bytes and enum fields; epoch-scale timestamps with odd
 * nanoseconds on two shards.
 *
 *   ctf_gen OUT.bb INSTANCE_HEX HOST   80 records of odd::Names and odd::Pulse
 */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backbeat/dump_writer.h"
#include "backbeat/registry.h"

static const bb_enum_label kind_labels[] = {{0, "idle"}, {7, "say \"hi\""}, {300, "big\\one"}};

/* Payload: event u32 @0, string i16 @4, _x u8 @6, 9lives u8 @7, a-b u16 @8, a_b u16 @10,
 * héllo i8 @12, flag bool @13, _pad 2 @14, tag interned @16, blob bytes[3] @20, kind enum u16
 * @23 (unaligned on purpose), span u64 @25: 33 bytes. */
static const bb_field_desc names_fields[] = {
    {.name = "event", .offset = 0, .width = 4, .type = BB_TYPE_U32, .role = BB_ROLE_KEY},
    {.name = "string", .offset = 4, .width = 2, .type = BB_TYPE_I16},
    {.name = "_x", .offset = 6, .width = 1, .type = BB_TYPE_U8},
    {.name = "9lives", .offset = 7, .width = 1, .type = BB_TYPE_U8},
    {.name = "a-b", .offset = 8, .width = 2, .type = BB_TYPE_U16},
    {.name = "a_b", .offset = 10, .width = 2, .type = BB_TYPE_U16},
    {.name = "h\xc3\xa9llo", .offset = 12, .width = 1, .type = BB_TYPE_I8},
    {.name = "flag", .offset = 13, .width = 1, .type = BB_TYPE_BOOL},
    {.name = "_pad", .offset = 14, .width = 2, .type = BB_TYPE_BYTES},
    {.name = "tag",
     .offset = 16,
     .width = 4,
     .type = BB_TYPE_INTERNED,
     .type_arg = 1,
     .has_sentinel = 1,
     .sentinel = 0},
    {.name = "blob", .offset = 20, .width = 3, .type = BB_TYPE_BYTES},
    {.name = "kind",
     .offset = 23,
     .width = 2,
     .type = BB_TYPE_ENUM,
     .type_arg = 2,
     .labels = kind_labels,
     .label_count = 3},
    {.name = "span", .offset = 25, .width = 8, .type = BB_TYPE_U64, .role = BB_ROLE_SPAN_ID},
};
static const bb_field_desc pulse_fields[] = {
    {.name = "n", .offset = 0, .width = 8, .type = BB_TYPE_I64},
};
static bb_event_desc ev_names = {
    .name = "odd::Names", .fields = names_fields, .field_count = 13, .record_size = 33};
static bb_event_desc ev_pulse = {
    .name = "odd::Pulse", .fields = pulse_fields, .field_count = 1, .record_size = 8};

static const char *const interns[] = {"tag-one", "\xff\xfex", "", "x\xe2\x82"};

enum { CAP = 8192, NSHARDS = 2, NREC = 80 };
static uint8_t rings[NSHARDS][CAP];
static uint64_t heads[NSHARDS];

static void put(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void record(uint32_t shard, uint64_t ts, const bb_event_desc *ev, const uint8_t *f) {
    uint8_t rec[16 + 64 + 2];
    put(rec, ts, 8);
    put(rec + 8, ev->id, 8);
    memcpy(rec + 16, f, ev->record_size);
    put(rec + 16 + ev->record_size, 16u + ev->record_size, 2);
    size_t n = 18u + ev->record_size;
    for (size_t i = 0; i < n; i++) rings[shard][(heads[shard] + i) % CAP] = rec[i];
    heads[shard] += n;
}

static void fill(uint64_t salt) {
    for (uint64_t k = 0; k < NREC; k++) {
        uint64_t ts = 1764680000123456789ull + salt * 7 + k * 1001;
        uint8_t f[33] = {0};
        if (k % 5 == 4) {
            put(f, (uint64_t)(-(int64_t)(k * 123456789)), 8);
            record((uint32_t)(k % NSHARDS), ts, &ev_pulse, f);
            continue;
        }
        put(f, k * 2654435761u + salt, 4);
        put(f + 4, (uint64_t)(int64_t)(k % 2 ? -(int64_t)k * 300 : (int64_t)k), 2);
        f[6] = (uint8_t)k;
        f[7] = (uint8_t)(255 - k);
        put(f + 8, k * 11, 2);
        put(f + 10, k * 13, 2);
        f[12] = (uint8_t)(int8_t)(k % 3 ? -(int)k : (int)k);
        f[13] = (uint8_t)(k % 3 == 0);
        f[14] = 0xAB;
        put(f + 16, k % 6 == 5 ? 9 : k % 6, 4); /* 0 sentinel, 1..4 interned, 9 missing */
        f[20] = (uint8_t)k, f[21] = 0, f[22] = 0xFF;
        static const uint16_t kinds[] = {0, 7, 300, 5};
        put(f + 23, kinds[k % 4], 2);
        put(f + 25, 0x8000000000000000ull + k, 8);
        record((uint32_t)(k % NSHARDS), ts, &ev_names, f);
    }
}

static bb_intern_item intern_get(void *ctx, size_t i) {
    (void)ctx;
    return (bb_intern_item){(uint32_t)i + 1, (uint32_t)strlen(interns[i]), interns[i]};
}
static uint64_t cap_of(void *ctx, uint32_t i) {
    (void)ctx, (void)i;
    return CAP;
}
static const uint8_t *region_of(void *ctx, uint32_t i, uint8_t *scratch, uint64_t *head) {
    (void)ctx, (void)scratch;
    *head = heads[i];
    return rings[i];
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: ctf_gen OUT.bb INSTANCE_HEX HOST\n");
        return 2;
    }
    uint64_t instance = strtoull(argv[2], NULL, 16);
    ev_names.id = bb_event_id_compute(&ev_names);
    ev_pulse.id = bb_event_id_compute(&ev_pulse);
    fill(instance & 0xFF);
    const bb_event_desc *const evs[] = {&ev_names, &ev_pulse};
    bb_dump_input in = {.instance_id = instance,
                        .host = argv[3],
                        .events = evs,
                        .event_count = 2,
                        .intern_count = 4,
                        .intern_get = intern_get,
                        .shard_count = NSHARDS,
                        .shard_capacity = cap_of,
                        .shard_region = region_of};
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return perror(argv[1]), 1;
    bb_error err;
    bb_status st = bb_dump_write(&in, bb_sink_fd(&fd), NULL, &err);
    close(fd);
    if (st != BB_OK) fprintf(stderr, "ctf_gen: %s\n", err.message);
    return st == BB_OK ? 0 : 1;
}
