/* writer_errors.c — the dump writer rejects what cannot be encoded (strings past their u16
 * length, oversized records, malformed schemas or shards) with BB_ERR_INVALID and a message,
 * before writing a single byte; and a sink that fails (a too-small buffer) yields an error. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/dump_writer.h"
#include "check.h"

static char *long_str; /* 65536 'x' bytes: one too many for a str */
static char *max_str;  /* 65535 'y' bytes: the longest str */

static uint8_t ring[16];
static uint64_t cap_value = 16;
static uint64_t shard_capacity(void *ctx, uint32_t i) {
    (void)ctx;
    (void)i;
    return cap_value;
}
static const uint8_t *shard_region(void *ctx, uint32_t i, uint8_t *scratch, uint64_t *head) {
    (void)ctx;
    (void)i;
    (void)scratch;
    *head = 0;
    return ring;
}

static bb_enum_label labels[1];
static bb_field_desc field;
static bb_event_desc event;
static const bb_event_desc *events[1] = {&event};

/* A valid one-event, one-field, one-shard input; each case then breaks one thing. */
static bb_dump_input reset(void) {
    labels[0] = (bb_enum_label){1, "one"};
    field = (bb_field_desc){.name = "f",
                            .labels = labels,
                            .offset = 0,
                            .width = 1,
                            .label_count = 1,
                            .type = BB_TYPE_ENUM,
                            .type_arg = 1};
    event = (bb_event_desc){
        .name = "t::E", .fields = &field, .field_count = 1, .record_size = 1, .id = 42};
    cap_value = 16;
    bb_dump_input in = {0};
    in.instance_id = 7;
    in.host = "h";
    in.events = events;
    in.event_count = 1;
    in.shard_count = 1;
    in.shard_capacity = shard_capacity;
    in.shard_region = shard_region;
    return in;
}

/* Expect `in` to be rejected as invalid, with a message containing `needle`, nothing written,
 * and bb_dump_size 0. */
static void expect_invalid(const char *what, const bb_dump_input *in, const char *needle) {
    static uint8_t buf[1 << 18];
    bb_buffer_sink b = {buf, sizeof buf, 0};
    bb_error err;
    memset(&err, 0, sizeof err);
    bb_status st = bb_dump_write(in, bb_sink_buffer(&b), NULL, &err);
    CHECK(st == BB_ERR_INVALID, "%s: status %d, expected BB_ERR_INVALID", what, st);
    CHECK(err.status == st, "%s: err.status %d", what, err.status);
    CHECK(strstr(err.message, needle) != NULL, "%s: message '%s' lacks '%s'", what, err.message,
          needle);
    CHECK(b.len == 0, "%s: %zu bytes written before the error", what, b.len);
    CHECK(bb_dump_size(in) == 0, "%s: bb_dump_size not 0", what);
    /* A NULL err is allowed. */
    CHECK(bb_dump_write(in, bb_sink_buffer(&b), NULL, NULL) == BB_ERR_INVALID, "%s: NULL err",
          what);
}

static void expect_ok(const char *what, const bb_dump_input *in) {
    static uint8_t buf[1 << 19];
    bb_buffer_sink b = {buf, sizeof buf, 0};
    bb_error err;
    bb_status st = bb_dump_write(in, bb_sink_buffer(&b), NULL, &err);
    CHECK(st == BB_OK, "%s: status %d: %s", what, st, err.message);
    CHECK(b.len == bb_dump_size(in), "%s: wrote %zu, size says %llu", what, b.len,
          (unsigned long long)bb_dump_size(in));
}

int main(void) {
    long_str = malloc(65537);
    max_str = malloc(65536);
    if (!long_str || !max_str) return 1;
    memset(long_str, 'x', 65536);
    long_str[65536] = '\0';
    memset(max_str, 'y', 65535);
    max_str[65535] = '\0';

    bb_dump_input in = reset();
    expect_ok("baseline", &in);

    /* Strings exactly at the limit are fine. */
    in = reset();
    event.description = max_str;
    field.unit = max_str;
    expect_ok("65535-byte strings", &in);

    in = reset();
    event.name = long_str;
    expect_invalid("long event name", &in, "qualified name is longer than 65535");
    in = reset();
    event.description = long_str;
    expect_invalid("long event description", &in, "description is longer than 65535");
    in = reset();
    field.name = long_str;
    expect_invalid("long field name", &in, "name is longer than 65535");
    in = reset();
    field.description = long_str;
    expect_invalid("long field description", &in, "field 'f': description is longer");
    in = reset();
    field.unit = long_str;
    expect_invalid("long unit", &in, "unit is longer than 65535");
    in = reset();
    labels[0].label = long_str;
    expect_invalid("long label", &in, "enum label is longer than 65535");
    in = reset();
    in.host = long_str;
    expect_invalid("long host", &in, "host is longer than 65535");

    in = reset();
    event.record_size = BB_MAX_RECORD_SIZE + 1;
    expect_invalid("record too large", &in, "record_size");
    in = reset();
    event.name = NULL;
    expect_invalid("NULL event name", &in, "qualified name is NULL");
    in = reset();
    field.name = NULL;
    expect_invalid("NULL field name", &in, "name is NULL");
    in = reset();
    labels[0].label = NULL;
    expect_invalid("NULL label", &in, "enum label is NULL");
    in = reset();
    field.type = 12;
    expect_invalid("unknown type tag", &in, "unknown type tag");
    in = reset();
    field.type_arg = 3;
    expect_invalid("bad enum repr", &in, "repr");
    in = reset();
    field.width = 2;
    expect_invalid("field past record", &in, "passes the record size");
    in = reset();
    events[0] = NULL;
    expect_invalid("NULL descriptor", &in, "descriptor is NULL");
    events[0] = &event;
    in = reset();
    cap_value = 24;
    expect_invalid("capacity not a power of two", &in, "not a power of two");
    in = reset();
    cap_value = 0;
    expect_invalid("capacity 0", &in, "not a power of two");
    in = reset();
    in.view_count = 1;
    expect_invalid("NULL views", &in, "views is NULL");

    /* NULL host is written as "". */
    in = reset();
    in.host = NULL;
    expect_ok("NULL host", &in);

    /* A too-small buffer: an I/O error with a message, never past cap. */
    in = reset();
    uint64_t size = bb_dump_size(&in);
    for (uint64_t cap = 0; cap < size; cap += (cap < 40 ? 1 : 13)) {
        uint8_t *buf = malloc(cap ? cap : 1);
        bb_buffer_sink b = {buf, cap, 0};
        bb_error err;
        bb_status st = bb_dump_write(&in, bb_sink_buffer(&b), NULL, &err);
        CHECK(st == BB_ERR_IO, "cap %llu: status %d", (unsigned long long)cap, st);
        CHECK(strstr(err.message, "ENOSPC") != NULL, "cap %llu: message '%s'",
              (unsigned long long)cap, err.message);
        CHECK(b.len <= cap, "cap %llu: len %zu", (unsigned long long)cap, b.len);
        free(buf);
    }

    free(long_str);
    free(max_str);
    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    else printf("writer_errors: all cases rejected as expected\n");
    return failures ? 1 : 0;
}
