/* writer_sections.c — the shared section encoders of dump_sections.h on their own: every
 * bb_wire_*_size equals the bytes the matching encoder writes (strings present, absent, empty,
 * 65535 bytes long; each type tag; with and without sentinel), the fixed-size pieces write
 * exactly their BB_*_SIZE, bb__sections_layout places bodies back to back after the table, and a
 * sink failing at any byte makes an encoder return that sink's code and write nothing after it.
 * Byte values themselves are checked elsewhere (writer_bytes, writer_golden, the merge tests). */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "format/sections.h"
#include "backbeat/schema.h"
#include "check.h"

/* A sink that counts bytes and fails (returning 77) once `fail_at` bytes were accepted. */
typedef struct counter {
    uint64_t n;
    uint64_t fail_at;
    int calls_after_fail;
    int failed;
} counter;

static int counter_write(void *ctx, const void *p, size_t len) {
    counter *c = ctx;
    (void)p;
    if (c->failed) c->calls_after_fail++;
    if (c->n + len > c->fail_at) {
        c->failed = 1;
        return 77;
    }
    c->n += len;
    return 0;
}

static bb__sink counting(counter *c, uint64_t fail_at) {
    memset(c, 0, sizeof *c);
    c->fail_at = fail_at;
    bb__sink s = {counter_write, c};
    return s;
}

static char big[65535];

static bb__wire_str str_of(const char *s, size_t len, int present) {
    bb__wire_str w = {s, (uint16_t)len, (uint8_t)present};
    return w;
}

/* The strings tried for every str / opt_str slot. */
static bb__wire_str sample(int k) {
    switch (k % 4) {
    case 0: return str_of("abc", 3, 1);
    case 1: return str_of(NULL, 0, 0);
    case 2: return str_of("", 0, 1);
    default: return str_of(big, sizeof big, 1);
    }
}

/* Encode with a sink that never fails, then with one failing at every byte boundary of a few
 * positions: expect `size` bytes, and the failure code with no write after the failure. */
#define EXPECT_ENCODES(what, size, call)                                                        \
    do {                                                                                        \
        counter c_;                                                                             \
        bb__sink sink = counting(&c_, UINT64_MAX);                                              \
        int rc_ = (call);                                                                       \
        CHECK(rc_ == 0 && c_.n == (size), "%s: rc %d, %llu bytes, size says %llu", what, rc_,   \
              (unsigned long long)c_.n, (unsigned long long)(size));                            \
        uint64_t total_ = c_.n;                                                                 \
        for (uint64_t at_ = 0; at_ < total_; at_ += 1 + at_ * 3) {                              \
            sink = counting(&c_, at_);                                                          \
            rc_ = (call);                                                                       \
            CHECK(rc_ == 77 && c_.n <= at_ && c_.calls_after_fail == 0,                         \
                  "%s failing at %llu: rc %d, %llu bytes, %d writes after", what,               \
                  (unsigned long long)at_, rc_, (unsigned long long)c_.n, c_.calls_after_fail); \
        }                                                                                       \
    } while (0)

int main(void) {
    memset(big, 'b', sizeof big);

    EXPECT_ENCODES("envelope", BB_DUMP_ENVELOPE_SIZE, bb__enc_envelope(sink, 3));
    EXPECT_ENCODES("table entry", BB_DUMP_TABLE_ENTRY_SIZE,
                   bb__enc_section_entry(sink, BB_SECTION_META, 1, 2));
    EXPECT_ENCODES("schema count", BB_SCHEMA_HEADER_SIZE, bb__enc_schema_count(sink, 9));
    EXPECT_ENCODES("intern header", BB_INTERN_HEADER_SIZE, bb__enc_intern_header(sink, 1, 2));
    EXPECT_ENCODES("intern entry", BB_INTERN_ENTRY_HEADER_SIZE + 5,
                   bb__enc_intern_entry(sink, 4, 5, "hello"));
    EXPECT_ENCODES("shard header", BB_SHARD_HEADER_SIZE, bb__enc_shard_header(sink, 1, 2, 3, 64));

    bb__section_ref secs[3] = {
        {BB_SECTION_SCHEMA, 10, 0}, {BB_SECTION_VIEWS, 0, 0}, {BB_SECTION_META, 7, 0}};
    uint64_t total = bb__sections_layout(secs, 3);
    CHECK(secs[0].offset == bb__dump_body_start(3) && secs[0].offset == 16 + 3 * 20,
          "first body at %llu", (unsigned long long)secs[0].offset);
    CHECK(secs[1].offset == secs[0].offset + 10 && secs[2].offset == secs[1].offset &&
              total == secs[2].offset + 7,
          "layout %llu %llu %llu total %llu", (unsigned long long)secs[0].offset,
          (unsigned long long)secs[1].offset, (unsigned long long)secs[2].offset,
          (unsigned long long)total);
    EXPECT_ENCODES("header", bb__dump_body_start(3), bb__enc_header(sink, secs, 3));

    for (int k = 0; k < 4; k++) {
        bb__wire_str h = sample(k);
        h.present = 1; /* host is a str */
        if (!h.ptr) h.ptr = "";
        EXPECT_ENCODES("meta", bb__wire_meta_size(h), bb__enc_meta(sink, 5, h));
        EXPECT_ENCODES("label", bb__wire_label_size(h), bb__enc_schema_label(sink, 7, h));
    }

    for (int k = 0; k < 16; k++) {
        bb__wire_event ev = {0x1234, sample(0), sample(k), 12, BB_PHASE_ENTER, 3};
        if (k % 4 == 3) ev.name = sample(3);
        EXPECT_ENCODES("event", bb__wire_event_size(&ev), bb__enc_schema_event(sink, &ev));
    }
    for (uint8_t type = 0; type <= BB_TYPE_INTERNED; type++)
        for (int k = 0; k < 8; k++) {
            bb__wire_field f;
            memset(&f, 0, sizeof f);
            f.name = k == 7 ? sample(3) : sample(0);
            f.description = sample(k);
            f.unit = sample(k + 1);
            f.type = type;
            f.type_arg = 1;
            f.width = 4;
            f.label_count = 2;
            f.has_sentinel = (uint8_t)(k & 1);
            f.sentinel = 0xFFFFFFFFu;
            EXPECT_ENCODES("field", bb__wire_field_size(&f), bb__enc_schema_field(sink, &f));
        }

    if (failures) fprintf(stderr, "%d check(s) failed\n", failures);
    else printf("writer_sections: sizes match encodings, sink failures propagate\n");
    return failures ? 1 : 0;
}
