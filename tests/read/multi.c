/* multi.c — the model over several dumps gives exactly multi_ab.expected.json and
 * multi_abo.expected.json (union, global order, de-duplication with the first input winning,
 * display names); over each single golden dump it yields exactly that dump's expected records in
 * order; without dedup it yields every copy; record_count always equals what iteration yields.
 * Exits 77 when the golden vectors are absent.
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump_json.h"
#include "json.h"

static const char *compat_dir(void) {
    const char *d = getenv("BACKBEAT_COMPAT_DIR");
    return d && *d ? d : "/work/shared/compat";
}

#include "check.h"

static bb_dump *open_fixture(const char *file) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", compat_dir(), file);
    bb_dump *d = NULL;
    bb_error err;
    if (bb_dump_open(path, &d, &err) != BB_OK) {
        CHECK(0, "open %s: %s", file, err.message);
        return NULL;
    }
    return d;
}

static json_value *load_expected(const char *file) {
    char path[4096], perr[256] = "";
    snprintf(path, sizeof path, "%s/%s", compat_dir(), file);
    json_value *v = json_parse_file(path, perr, sizeof perr);
    CHECK(v, "%s: %s", file, perr);
    return v;
}

static uint64_t count_iter(const bb_model *m) {
    bb_model_iter *it = NULL;
    if (bb_model_iter_new(m, &it) != BB_OK) return UINT64_MAX;
    bb_mrecord r;
    uint64_t n = 0;
    while (bb_model_next(it, &r)) n++;
    bb_model_iter_free(it);
    return n;
}

/* The model over `files` must render exactly `expected`. */
static void check_union(const char *const *files, size_t n, const char *expected) {
    bb_dump *dumps[8] = {0};
    bb_model *m = NULL;
    for (size_t i = 0; i < n; i++)
        if (!(dumps[i] = open_fixture(files[i]))) goto out;
    bb_error err;
    if (bb_model_open(dumps, n, true, &m, &err) != BB_OK) {
        CHECK(0, "model over %s: %s", expected, err.message);
        goto out;
    }
    sbuf b = {0};
    model_to_json(&b, m, files, n);
    char perr[256] = "", where[512] = "";
    json_value *want = load_expected(expected);
    json_value *got = json_parse(b.p, b.len, perr, sizeof perr);
    CHECK(got, "our JSON for %s: %s", expected, perr);
    if (want && got) {
        bool eq = json_equal(got, want, where, sizeof where);
        CHECK(eq, "%s differs at %s", expected, where);
        if (eq) printf("ok %s\n", expected);
    }
    CHECK(count_iter(m) == bb_model_record_count(m), "%s: record_count disagrees", expected);
    json_free(want);
    json_free(got);
    sb_free(&b);
out:
    bb_model_close(m);
    for (size_t i = 0; i < n; i++) bb_dump_close(dumps[i]);
}

/* The records of a model over one dump, in the per-instance shape of NAME.expected.json. */
static void records_json(sbuf *b, const bb_model *m) {
    bb_model_iter *it = NULL;
    if (bb_model_iter_new(m, &it) != BB_OK) abort();
    bb_mrecord r;
    size_t k = 0;
    char t[64];
    sb_puts(b, "[");
    while (bb_model_next(it, &r)) {
        if (k++) sb_puts(b, ",");
        snprintf(t, sizeof t, "{\"shard\":%u,\"ts\":", r.rec.shard_id);
        sb_puts(b, t);
        sb_ju64(b, r.rec.ts);
        sb_puts(b, ",\"event\":");
        sb_jstr(b, r.rec.schema->name.ptr, r.rec.schema->name.len);
        sb_puts(b, ",\"event_id\":");
        sb_hex16(b, r.rec.event_id);
        sb_puts(b, ",\"fields\":");
        sb_fields(b, r.rec.schema, r.rec.fields, r.instance);
        sb_puts(b, "}");
    }
    sb_puts(b, "]");
    bb_model_iter_free(it);
}

static void check_single(const char *name) {
    char file[256];
    snprintf(file, sizeof file, "%s.bb", name);
    bb_dump *d = open_fixture(file);
    if (!d) return;
    bb_model *m = NULL;
    bb_error err;
    if (bb_model_open(&d, 1, true, &m, &err) != BB_OK) {
        CHECK(0, "model over %s: %s", name, err.message);
        bb_dump_close(d);
        return;
    }
    snprintf(file, sizeof file, "%s.expected.json", name);
    json_value *want = load_expected(file);
    const json_value *inst = json_at(json_get(want, "instances"), 0);
    sbuf b = {0};
    records_json(&b, m);
    char perr[256] = "", where[512] = "";
    json_value *got = json_parse(b.p, b.len, perr, sizeof perr);
    CHECK(got, "our JSON for %s: %s", name, perr);
    if (got && inst) {
        bool eq = json_equal(got, json_get(inst, "records"), where, sizeof where);
        CHECK(eq, "model over %s differs at %s", name, where);
        uint64_t rc = 0;
        CHECK(json_u64(json_get(inst, "record_count"), &rc) && rc == bb_model_record_count(m),
              "%s: record_count %llu", name, (unsigned long long)bb_model_record_count(m));
        if (eq) printf("ok model over %s\n", name);
    }
    CHECK(bb_model_instance_count(m) == 1, "%s: instances", name);
    CHECK(bb_model_schema_count(m) == bb_dump_schema_count(d), "%s: schemas", name);
    CHECK(bb_model_view_count(m) == bb_dump_view_count(d), "%s: views", name);
    json_free(got);
    json_free(want);
    sb_free(&b);
    bb_model_close(m);
    bb_dump_close(d);
}

/* Without dedup every copy is yielded; two iterators interleaved see identical sequences. */
static void check_nodedup_and_iterators(void) {
    bb_dump *d[2] = {open_fixture("multi_a.bb"), open_fixture("multi_b.bb")};
    if (!d[0] || !d[1]) goto out;
    bb_model *m = NULL;
    bb_error err;
    CHECK(bb_model_open(d, 2, false, &m, &err) == BB_OK, "%s", err.message);
    if (m) {
        CHECK(bb_model_record_count(m) == 24 + 28, "no-dedup count %llu",
              (unsigned long long)bb_model_record_count(m));
        CHECK(count_iter(m) == 24 + 28, "no-dedup iteration");
        bb_model_close(m);
    }
    CHECK(bb_model_open(d, 2, true, &m, &err) == BB_OK, "%s", err.message);
    if (m) {
        CHECK(bb_model_record_count(m) == 38, "dedup count");
        bb_model_iter *a = NULL, *b = NULL;
        CHECK(bb_model_iter_new(m, &a) == BB_OK && bb_model_iter_new(m, &b) == BB_OK, "iters");
        bb_mrecord ra, rb;
        size_t n = 0;
        for (;;) {
            bool ha = bb_model_next(a, &ra), hb = bb_model_next(b, &rb);
            CHECK(ha == hb, "iterators disagree on length");
            if (!ha || !hb) break;
            CHECK(ra.rec.ts == rb.rec.ts && ra.rec.offset == rb.rec.offset &&
                      ra.input == rb.input &&
                      memcmp(ra.rec.fields, rb.rec.fields, ra.rec.schema->record_size) == 0,
                  "iterators disagree at %zu", n);
            n++;
        }
        CHECK(n == 38, "iterated %zu", n);
        /* Duplicates come from the first input. */
        bb_model_iter_free(a);
        bb_model_iter_free(b);
        CHECK(strcmp(bb_model_display_name(m, 0xacca22e01934c2f0ull), "fixture::Tick") == 0,
              "display name of Tick");
        CHECK(bb_model_find_schema(m, 0x202398eea575fc30ull) != NULL, "find schema");
        CHECK(bb_model_find_schema(m, 1) == NULL, "find missing schema");
        /* The union instance comes from the first input: multi_a's table, without tag-two. */
        const bb_rinstance *in = bb_model_find_instance(m, 0xa1a2a3a4a5a6a7a8ull);
        CHECK(in && bb_model_instance_count(m) == 1 && in == bb_dump_instance(d[0], 0) &&
                  in->intern_count == 1 && !bb_rinstance_intern(in, 2, NULL),
              "union instance");
        CHECK(bb_model_find_instance(m, 42) == NULL, "missing instance");
        bb_model_close(m);
    }
    /* Zero inputs: an empty model. */
    CHECK(bb_model_open(NULL, 0, true, &m, &err) == BB_OK && bb_model_record_count(m) == 0 &&
              count_iter(m) == 0,
          "empty model");
    bb_model_close(m);
out:
    bb_dump_close(d[0]);
    bb_dump_close(d[1]);
}

int main(void) {
    char path[4096];
    snprintf(path, sizeof path, "%s/multi_a.bb", compat_dir());
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "golden vectors absent (%s): skipped\n", path);
        return 77;
    }
    static const char *const ab[] = {"multi_a.bb", "multi_b.bb"};
    static const char *const abo[] = {"multi_a.bb", "multi_b.bb", "multi_other.bb"};
    check_union(ab, 2, "multi_ab.expected.json");
    check_union(abo, 3, "multi_abo.expected.json");
    static const char *const singles[] = {"basic", "torn",    "wrapped", "wrapped_suffix",
                                          "empty", "multi_a", "multi_b", "multi_other"};
    for (size_t i = 0; i < sizeof singles / sizeof *singles; i++) check_single(singles[i]);
    check_nodedup_and_iterators();
    return failures ? 1 : 0;
}
