/* writer_bytes.c — the dump writer's output, byte for byte, against bytes this test builds
 * itself from FORMAT.md (its own little-endian appends, none of the writer's code), for a small
 * fixed input: fixed instance id, host, 2 events, 1 intern entry, 1 view, 2 small shards.
 * Written through the fd sink (a pipe and a temp file) and the buffer sink; bb_dump_size must
 * equal the bytes written; a buffer sink one byte too small must fail without overflowing. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backbeat/dump_writer.h"
#include "check.h"
#include "read_fd.h"

/* ---- the expected bytes, built independently ---- */
static uint8_t exp_buf[4096];
static size_t exp_len;

static void e_u8(unsigned v) { exp_buf[exp_len++] = (uint8_t)v; }
static void e_le(uint64_t v, int n) {
    for (int i = 0; i < n; i++) e_u8((unsigned)((v >> (8 * i)) & 0xff));
}
static void e_u16(uint64_t v) { e_le(v, 2); }
static void e_u32(uint64_t v) { e_le(v, 4); }
static void e_u64(uint64_t v) { e_le(v, 8); }
static void e_raw(const void *p, size_t n) {
    memcpy(exp_buf + exp_len, p, n);
    exp_len += n;
}
static void e_str(const char *s) {
    e_u16(strlen(s));
    e_raw(s, strlen(s));
}
/* Patch a u64 at a given offset (for the section table). */
static void e_patch_u64(size_t at, uint64_t v) {
    for (int i = 0; i < 8; i++) exp_buf[at + i] = (uint8_t)(v >> (8 * i));
}

/* ---- the fixed input ---- */
#define INSTANCE 0xA1B2C3D4E5F60718ull
#define ID_ALPHA 0x1122334455667788ull
#define ID_MARK 0x99AABBCCDDEEFF00ull

static const bb_enum_label mode_labels[] = {{0, "off"}, {0xFFFFFFFFFFFFFFFFull, "max"}};
static const bb_field_desc alpha_fields[] = {
    {.name = "key",
     .description = "The key.",
     .offset = 0,
     .width = 8,
     .type = BB_TYPE_U64,
     .role = BB_ROLE_KEY},
    {.name = "mode",
     .unit = "m",
     .labels = mode_labels,
     .offset = 8,
     .width = 2,
     .label_count = 2,
     .type = BB_TYPE_ENUM,
     .type_arg = 2},
    {.name = "code",
     .description = "",
     .unit = "ms",
     .sentinel = 0xFFFF,
     .offset = 10,
     .width = 2,
     .type = BB_TYPE_I16,
     .has_sentinel = 1},
};
static const bb_field_desc mark_fields[] = {
    {.name = "tag",
     .offset = 0,
     .width = 4,
     .type = BB_TYPE_INTERNED,
     .type_arg = 1,
     .role = BB_ROLE_NONE},
    {.name = "span_id", .offset = 4, .width = 8, .type = BB_TYPE_U64, .role = BB_ROLE_SPAN_ID},
};
static const bb_event_desc ev_alpha = {.name = "test::Alpha",
                                       .description = "An alpha.\nTwo.",
                                       .fields = alpha_fields,
                                       .field_count = 3,
                                       .record_size = 12,
                                       .phase = BB_PHASE_NONE,
                                       .id = ID_ALPHA};
static const bb_event_desc ev_mark = {.name = "test::Mark",
                                      .fields = mark_fields,
                                      .field_count = 2,
                                      .record_size = 12,
                                      .phase = BB_PHASE_ENTER,
                                      .id = ID_MARK};
static const bb_event_desc *const events[] = {&ev_alpha, &ev_mark};
static const char *const views[] = {"CREATE VIEW v AS SELECT 1;\n"};

static uint8_t ring0[64], ring1[32];
static const uint64_t heads[2] = {40, 100};

static bb_intern_item intern_get(void *ctx, size_t i) {
    (void)ctx;
    (void)i;
    bb_intern_item it = {5, 5, "hello"};
    return it;
}
static uint64_t shard_capacity(void *ctx, uint32_t i) {
    (void)ctx;
    return i == 0 ? sizeof ring0 : sizeof ring1;
}
/* Shard 0 goes through the scratch buffer (snapshot path), shard 1 is the live ring. */
static const uint8_t *shard_region(void *ctx, uint32_t i, uint8_t *scratch, uint64_t *head) {
    (void)ctx;
    *head = heads[i];
    if (i == 0) {
        memcpy(scratch, ring0, sizeof ring0);
        return scratch;
    }
    return ring1;
}

static bb_dump_input make_input(void) {
    bb_dump_input in = {0};
    in.instance_id = INSTANCE;
    in.host = "test-host";
    in.events = events;
    in.event_count = 2;
    in.intern_count = 1;
    in.intern_get = intern_get;
    in.views = views;
    in.view_count = 1;
    in.shard_count = 2;
    in.shard_capacity = shard_capacity;
    in.shard_region = shard_region;
    return in;
}

static void build_expected(void) {
    for (size_t i = 0; i < sizeof ring0; i++) ring0[i] = (uint8_t)(i * 7 + 1);
    for (size_t i = 0; i < sizeof ring1; i++) ring1[i] = (uint8_t)(0xF0 ^ i);

    /* Envelope: 6 sections = schema, intern, 1 views, 2 shards, meta. */
    e_raw("BACKBEAT", 8);
    e_u16(1);
    e_u16(1);
    e_u16(6);
    e_u16(0);
    static const unsigned kinds[6] = {0, 1, 4, 2, 2, 3};
    size_t table = exp_len;
    for (int i = 0; i < 6; i++) {
        e_u16(kinds[i]);
        e_u16(0);
        e_u64(0); /* offset, patched */
        e_u64(0); /* len, patched */
    }
    size_t starts[7];
    CHECK(exp_len == 16 + 6 * 20, "table end %zu", exp_len);

    /* Schema. */
    starts[0] = exp_len;
    e_u32(2);
    e_u64(ID_ALPHA);
    e_str("test::Alpha");
    e_u8(1);
    e_str("An alpha.\nTwo.");
    e_u16(12);
    e_u8(0);
    e_u16(3);
    /* key */
    e_str("key");
    e_u8(1);
    e_str("The key.");
    e_u8(3);
    e_u16(0);
    e_u16(8);
    e_u8(1);
    e_u8(0);  /* unit absent */
    e_u8(0);  /* sentinel absent */
    e_u16(0); /* labels */
    /* mode */
    e_str("mode");
    e_u8(0);
    e_u8(10);
    e_u8(2);
    e_u16(8);
    e_u16(2);
    e_u8(0);
    e_u8(1);
    e_str("m");
    e_u8(0);
    e_u16(2);
    e_u64(0);
    e_str("off");
    e_u64(0xFFFFFFFFFFFFFFFFull);
    e_str("max");
    /* code */
    e_str("code");
    e_u8(1);
    e_u16(0); /* present, empty description */
    e_u8(5);
    e_u16(10);
    e_u16(2);
    e_u8(0);
    e_u8(1);
    e_str("ms");
    e_u8(1);
    e_u64(0xFFFF);
    e_u16(0);
    /* Mark */
    e_u64(ID_MARK);
    e_str("test::Mark");
    e_u8(0);
    e_u16(12);
    e_u8(1);
    e_u16(2);
    e_str("tag");
    e_u8(0);
    e_u8(11);
    e_u8(1);
    e_u16(0);
    e_u16(4);
    e_u8(0);
    e_u8(0);
    e_u8(0);
    e_u16(0);
    e_str("span_id");
    e_u8(0);
    e_u8(3);
    e_u16(4);
    e_u16(8);
    e_u8(2);
    e_u8(0);
    e_u8(0);
    e_u16(0);

    /* Intern. */
    starts[1] = exp_len;
    e_u64(INSTANCE);
    e_u32(1);
    e_u32(5);
    e_u32(5);
    e_raw("hello", 5);

    /* Views. */
    starts[2] = exp_len;
    e_raw(views[0], strlen(views[0]));

    /* Shards. */
    starts[3] = exp_len;
    e_u64(INSTANCE);
    e_u32(0);
    e_u64(40);
    e_u64(64);
    e_raw(ring0, sizeof ring0);
    starts[4] = exp_len;
    e_u64(INSTANCE);
    e_u32(1);
    e_u64(100);
    e_u64(32);
    e_raw(ring1, sizeof ring1);

    /* Meta. */
    starts[5] = exp_len;
    e_u64(INSTANCE);
    e_str("test-host");
    starts[6] = exp_len;

    for (int i = 0; i < 6; i++) {
        e_patch_u64(table + 20 * (size_t)i + 4, starts[i]);
        e_patch_u64(table + 20 * (size_t)i + 12, starts[i + 1] - starts[i]);
    }
}

static void compare(const char *what, const uint8_t *got, size_t got_len) {
    size_t n = got_len < exp_len ? got_len : exp_len;
    size_t i = 0;
    while (i < n && got[i] == exp_buf[i]) i++;
    CHECK(got_len == exp_len && i == n,
          "%s: %zu bytes written, %zu expected, first difference "
          "at offset %zu",
          what, got_len, exp_len, i);
}

int main(void) {
    build_expected();
    bb_dump_input in = make_input();
    uint8_t scratch[64];
    bb_error err;

    CHECK(bb_dump_size(&in) == exp_len, "bb_dump_size %llu, expected %zu",
          (unsigned long long)bb_dump_size(&in), exp_len);

    /* Buffer sink, exact capacity. */
    static uint8_t out[4096];
    bb_buffer_sink b = {out, exp_len, 0};
    bb_status st = bb_dump_write(&in, bb_sink_buffer(&b), scratch, &err);
    CHECK(st == BB_OK, "buffer sink: status %d: %s", st, err.message);
    compare("buffer sink", out, b.len);

    /* fd sink into a pipe (the dump is far below the pipe buffer). */
    int p[2];
    CHECK(pipe(p) == 0, "pipe");
    int wfd = p[1];
    st = bb_dump_write(&in, bb_sink_fd(&wfd), scratch, &err);
    CHECK(st == BB_OK, "pipe sink: status %d: %s", st, err.message);
    close(p[1]);
    static uint8_t piped[8192];
    size_t plen = test_read_fd(p[0], piped, sizeof piped);
    close(p[0]);
    compare("fd sink (pipe)", piped, plen);

    /* fd sink into a temp file. */
    char path[] = "/tmp/bb_writer_bytes_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd >= 0) {
        unlink(path);
        st = bb_dump_write(&in, bb_sink_fd(&fd), scratch, &err);
        CHECK(st == BB_OK, "file sink: status %d: %s", st, err.message);
        CHECK(lseek(fd, 0, SEEK_SET) == 0, "lseek");
        static uint8_t filed[8192];
        size_t flen = test_read_fd(fd, filed, sizeof filed);
        close(fd);
        compare("fd sink (file)", filed, flen);
    }

    /* Buffer one byte too small: an error, and not a byte written past cap. The buffer is a
     * heap block of exactly cap bytes so ASan would flag any overflow; a canary copy checks
     * the same without ASan. */
    size_t cap = exp_len - 1;
    uint8_t *small = malloc(cap);
    static uint8_t canary[4097];
    memset(canary, 0xA5, sizeof canary);
    bb_buffer_sink sb = {canary, cap, 0};
    st = bb_dump_write(&in, bb_sink_buffer(&sb), scratch, &err);
    CHECK(st != BB_OK, "too-small buffer accepted");
    CHECK(err.message[0] != '\0', "no message for a too-small buffer");
    CHECK(sb.len <= cap, "buffer len %zu past cap %zu", sb.len, cap);
    for (size_t i = cap; i < sizeof canary; i++)
        if (canary[i] != 0xA5) {
            CHECK(0, "byte %zu past cap was written", i);
            break;
        }
    CHECK(memcmp(canary, exp_buf, sb.len) == 0, "the prefix written is not the dump's prefix");
    if (small) {
        bb_buffer_sink hb = {small, cap, 0};
        CHECK(bb_dump_write(&in, bb_sink_buffer(&hb), scratch, NULL) != BB_OK,
              "too-small heap buffer accepted");
        free(small);
    }

    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    else printf("writer_bytes: %zu-byte dump matches the hand-built bytes\n", exp_len);
    return failures ? 1 : 0;
}
