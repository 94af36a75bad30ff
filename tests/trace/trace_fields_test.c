/* trace_fields_test.c — the trace's fast field rendering (trace/trace_fields.c) and the
 * in-place number writers (emit/obuf.c) against the generic paths they replace: a record's
 * fields by tr_write_open must be byte for byte what em_obuf_json_field gives field by field
 * (every type and width, sentinels, signed extremes, enums with and without a label, short and
 * indexed, interned strings found, missing, needing escapes, padding left out), and em_obuf_u64 /
 * em_obuf_usec / em_obuf_json_u64 / em_obuf_json_i64 what printf gives, at every power of ten and on
 * random values, into a memory buffer and into a file buffer at its end (the slow path). */
/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emit/obuf.h"
#include "trace/trace_fields.h"

#define NF 20
#define NL_LONG 20 /* labels of the indexed enum (past the reader's linear scan) */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static bb_rlabel short_labels[3] = {{1, {"one", 3}}, {2, {"tw\"o", 4}}, {1, {"dup", 3}}};
static bb_rlabel long_labels[NL_LONG + 1];
static uint16_t long_index[NL_LONG];
static char long_names[NL_LONG][8];
static const bb_rintern interns[] = {
    {1, {"alpha", 5}}, {5, {"caf\xc3\xa9", 5}}, {7, {"bad\xff\"\n", 6}}, {9, {"", 0}}};

static bb_rfield F(const char *name, uint8_t type, uint16_t off, uint16_t width) {
    bb_rfield f;
    memset(&f, 0, sizeof f);
    f.name = (bb_strview){name, strlen(name)};
    f.type = type;
    f.offset = off;
    f.width = width;
    return f;
}

/* A schema of every kind of field, record_size bytes of fields. */
static void make_schema(bb_rschema *s, bb_rfield *f) {
    uint16_t o = 0;
    size_t n = 0;
    static const uint16_t w[8] = {1, 2, 4, 8, 1, 2, 4, 8};
    static const char *names[8] = {"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64"};
    for (uint8_t t = BB_TYPE_U8; t <= BB_TYPE_I64; t++) {
        f[n++] = F(names[t], t, o, w[t]);
        o += w[t];
    }
    f[n] = F("u32_sentinel", BB_TYPE_U32, o, 4), f[n].has_sentinel = true, f[n++].sentinel = 7,
    o += 4;
    f[n] = F("i64_sentinel", BB_TYPE_I64, o, 8), f[n].has_sentinel = true,
    f[n++].sentinel = UINT64_MAX, o += 8;
    f[n++] = F("_pad", BB_TYPE_U8, o, 1), o += 1;
    f[n++] = F("flag", BB_TYPE_BOOL, o, 1), o += 1;
    f[n++] = F("flag4", BB_TYPE_BOOL, o, 4), o += 4;
    f[n] = F("short_enum", BB_TYPE_ENUM, o, 1), f[n].label_count = 3, f[n++].labels = short_labels,
    o += 1;
    f[n] = F("long_enum", BB_TYPE_ENUM, o, 2), f[n].label_count = NL_LONG,
    f[n++].labels = long_labels, o += 2;
    f[n++] = F("str", BB_TYPE_INTERNED, o, 4), o += 4;
    f[n] = F("str_sentinel", BB_TYPE_INTERNED, o, 4), f[n].has_sentinel = true, f[n++].sentinel = 0,
    o += 4;
    f[n++] = F("bytes", BB_TYPE_BYTES, o, 3), o += 3;
    f[n++] = F("u24", BB_TYPE_U32, o, 3), o += 3;
    f[n++] = F("key \"quoted\"", BB_TYPE_U16, o, 2), o += 2;
    memset(s, 0, sizeof *s);
    s->fields = f;
    s->field_count = n;
    s->record_size = o;
}

static void make_long_labels(void) {
    for (int k = 0; k < NL_LONG; k++) { /* values 3k, stored in reverse; index sorted by value */
        snprintf(long_names[k], sizeof long_names[k], "L%d", NL_LONG - 1 - k);
        long_labels[k] =
            (bb_rlabel){(uint64_t)(3 * (NL_LONG - 1 - k)), {long_names[k], strlen(long_names[k])}};
        long_index[NL_LONG - 1 - k] = (uint16_t)k;
    }
    long_labels[NL_LONG].label.ptr = (const char *)long_index;
}

/* The reference: what trace.c wrote before the plan (generic decode per field). */
static void reference(em_obuf *b, const bb_rschema *s, const uint8_t *rec, const bb_rinstance *in) {
    em_obuf_putc(b, '{');
    size_t n = 0;
    for (size_t i = 0; i < s->field_count; i++) {
        if (bb_rfield_is_padding(&s->fields[i])) continue;
        if (n++) em_obuf_putc(b, ',');
        em_obuf_json_str(b, s->fields[i].name.ptr, s->fields[i].name.len);
        em_obuf_putc(b, ':');
        em_obuf_json_field(b, s, i, rec, in);
    }
}

/* Random field bytes, biased to the interesting values (0, all ones, signs, labels, ids). */
static void fill(uint8_t *rec, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t r = next_rand();
        rec[i] = (uint8_t)((r & 3) == 0   ? 0
                           : (r & 3) == 1 ? 0xff
                           : (r & 3) == 2 ? r >> 8 & 15
                                          : r >> 8);
    }
}

static int check_fields(void) {
    bb_rfield f[NF];
    bb_rschema s;
    make_long_labels();
    make_schema(&s, f);
    bb_rinstance inst;
    memset(&inst, 0, sizeof inst);
    inst.intern = interns;
    inst.intern_count = sizeof interns / sizeof interns[0];
    tr_plan p;
    if (!tr_plan_make(&p, &s)) return 1;
    int bad = 0;
    uint8_t rec[128];
    for (int round = 0; round < 200000 && !bad; round++) {
        fill(rec, s.record_size);
        em_obuf a, b;
        if (!em_obuf_init(&a, -1, 64) || !em_obuf_init(&b, -1, 64)) return 1;
        const bb_rinstance *in = round % 7 == 0 ? NULL : &inst;
        size_t n = tr_write_open(&a, &p, &s, rec, in);
        reference(&b, &s, rec, in);
        if (n != s.field_count - 1 || a.len != b.len || memcmp(a.data, b.data, a.len)) {
            fprintf(stderr, "fields differ (round %d):\n  plan: %.*s\n  want: %.*s\n", round,
                    (int)a.len, a.data, (int)b.len, b.data);
            bad = 1;
        }
        em_obuf_finish(&a);
        em_obuf_finish(&b);
    }
    tr_plan_free(&p);
    return bad;
}

/* One number through every writer, into memory and at the end of a full file buffer. */
static int check_number(em_obuf *fb, FILE *mirror, uint64_t v) {
    char want[200];
    int64_t sv = (int64_t)v;
    uint64_t mag = sv < 0 ? 0 - v : v;
    int wl =
        snprintf(want, sizeof want, "%" PRIu64 "|%" PRIu64 ".%03u|%s%" PRIu64 "%s|%s%" PRId64 "%s",
                 v, v / 1000, (unsigned)(v % 1000), v > (1ull << 53) ? "\"" : "", v,
                 v > (1ull << 53) ? "\"" : "", mag > (1ull << 53) ? "\"" : "", sv,
                 mag > (1ull << 53) ? "\"" : "");
    em_obuf m;
    if (!em_obuf_init(&m, -1, 1)) return 1;
    em_obuf *bufs[2] = {&m, fb};
    for (int k = 0; k < 2; k++) {
        em_obuf_u64(bufs[k], v);
        em_obuf_putc(bufs[k], '|');
        em_obuf_usec(bufs[k], v);
        em_obuf_putc(bufs[k], '|');
        em_obuf_json_u64(bufs[k], v);
        em_obuf_putc(bufs[k], '|');
        em_obuf_json_i64(bufs[k], sv);
    }
    int bad = m.len != (size_t)wl || memcmp(m.data, want, m.len);
    if (bad) fprintf(stderr, "number %" PRIu64 ": got %.*s want %s\n", v, (int)m.len, m.data, want);
    fputs(want, mirror);
    em_obuf_finish(&m);
    return bad;
}

static int check_numbers(void) {
    char fpath[] = "/tmp/bb_trace_fields_XXXXXX";
    int fd = mkstemp(fpath);
    if (fd < 0) return 1;
    unlink(fpath);
    em_obuf fb;
    FILE *mirror = tmpfile();
    if (!mirror || !em_obuf_init(&fb, fd, 37)) return 1; /* a small odd capacity: the slow paths */
    int bad = 0;
    for (int d = 0; d < 20; d++) {
        uint64_t p = 1;
        for (int k = 0; k < d; k++) p *= 10;
        bad |= check_number(&fb, mirror, p) | check_number(&fb, mirror, p - 1) |
               check_number(&fb, mirror, p + 1);
    }
    bad |= check_number(&fb, mirror, UINT64_MAX) | check_number(&fb, mirror, 1ull << 53) |
           check_number(&fb, mirror, (1ull << 53) + 1) | check_number(&fb, mirror, 1ull << 63);
    for (int i = 0; i < 200000; i++)
        bad |= check_number(&fb, mirror, next_rand() >> (next_rand() & 63));
    if (em_obuf_finish(&fb)) return 1;
    long fl = ftell(mirror), ol = (long)lseek(fd, 0, SEEK_END);
    char *x = malloc((size_t)fl), *y = malloc((size_t)fl);
    if (!x || !y || fl != ol || pread(fd, y, (size_t)fl, 0) != fl) bad = 1;
    rewind(mirror);
    if (!bad && (fread(x, 1, (size_t)fl, mirror) != (size_t)fl || memcmp(x, y, (size_t)fl)))
        bad = 1;
    if (bad) fprintf(stderr, "numbers through a file buffer differ\n");
    free(x);
    free(y);
    fclose(mirror);
    close(fd);
    return bad;
}

int main(void) {
    int bad = check_fields();
    bad |= check_numbers();
    if (!bad) printf("trace_fields: plan and number writers agree with the generic paths\n");
    return bad;
}
