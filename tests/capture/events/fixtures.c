/* fixtures.c — the golden fixture schemas defined with the macros (fixture_events.h) are
 * exactly the reference schemas of the compat directory (NAME.expected.json).
 *
 * For each descriptor: its id equals the golden id of the same schema, and every attribute
 * (name, description, record size, phase, and per field name, description, type, repr /
 * dynamic, offset, width, role, unit, sentinel, labels) equals the expected JSON. Every golden
 * schema is covered, and all of them are in the registry without being listed anywhere.
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_events.h"
#include "json.h"

#include "check.h"

static const char *const TYPES[] = {"u8",  "u16", "u32",  "u64",   "i8",   "i16",
                                    "i32", "i64", "bool", "bytes", "enum", "interned"};
static const char *const ROLES[] = {"none", "key", "span_id", "parent_span_id"};
static const char *const PHASES[] = {"none", "enter", "exit"};

static int same_opt_str(const json_value *j, const char *s) {
    if (json_is_null(j)) return s == NULL;
    return s && strcmp(json_str(j), s) == 0;
}

static uint64_t ju64(const json_value *j) {
    uint64_t v = 0;
    if (!json_u64(j, &v)) CHECK(0, "not an integer");
    return v;
}

static void compare(const bb_event_desc *d, const json_value *s) {
    const char *n = d->name;
    CHECK(strcmp(json_str(json_get(s, "name")), n) == 0, "%s: name", n);
    CHECK(same_opt_str(json_get(s, "description"), d->description), "%s: description", n);
    CHECK(ju64(json_get(s, "record_size")) == d->record_size, "%s: record_size %u", n,
          d->record_size);
    CHECK(d->phase <= 2 && strcmp(json_str(json_get(s, "phase")), PHASES[d->phase]) == 0,
          "%s: phase", n);
    const json_value *fs = json_get(s, "fields");
    CHECK(json_len(fs) == d->field_count, "%s: field_count %u", n, d->field_count);
    CHECK((d->field_count == 0) == (d->fields == NULL), "%s: fields pointer", n);
    for (size_t i = 0; i < json_len(fs) && i < d->field_count; i++) {
        const json_value *f = json_at(fs, i);
        const bb_field_desc *g = &d->fields[i];
        const char *fn = g->name;
        CHECK(strcmp(json_str(json_get(f, "name")), fn) == 0, "%s.%s: name", n, fn);
        CHECK(same_opt_str(json_get(f, "description"), g->description), "%s.%s: desc", n, fn);
        CHECK(g->type < 12 && strcmp(json_str(json_get(f, "type")), TYPES[g->type]) == 0,
              "%s.%s: type %u", n, fn, g->type);
        if (g->type == BB_TYPE_ENUM)
            CHECK(ju64(json_get(f, "repr")) == g->type_arg, "%s.%s: repr", n, fn);
        else if (g->type == BB_TYPE_INTERNED)
            CHECK(json_bool(json_get(f, "dynamic")) == (g->type_arg == 1), "%s.%s: dyn", n, fn);
        else CHECK(g->type_arg == 0, "%s.%s: type_arg", n, fn);
        CHECK(ju64(json_get(f, "offset")) == g->offset, "%s.%s: offset %u", n, fn, g->offset);
        CHECK(ju64(json_get(f, "width")) == g->width, "%s.%s: width %u", n, fn, g->width);
        CHECK(g->role < 4 && strcmp(json_str(json_get(f, "role")), ROLES[g->role]) == 0,
              "%s.%s: role", n, fn);
        CHECK(same_opt_str(json_get(f, "unit"), g->unit), "%s.%s: unit", n, fn);
        const json_value *sent = json_get(f, "sentinel");
        if (json_is_null(sent)) CHECK(!g->has_sentinel, "%s.%s: unexpected sentinel", n, fn);
        else
            CHECK(g->has_sentinel && ju64(sent) == g->sentinel, "%s.%s: sentinel %llx", n, fn,
                  (unsigned long long)g->sentinel);
        const json_value *ls = json_get(f, "labels");
        CHECK(json_len(ls) == g->label_count, "%s.%s: label_count", n, fn);
        CHECK((g->label_count == 0) == (g->labels == NULL), "%s.%s: labels pointer", n, fn);
        for (size_t j = 0; j < json_len(ls) && j < g->label_count; j++) {
            CHECK(ju64(json_get(json_at(ls, j), "value")) == g->labels[j].value,
                  "%s.%s: label %zu value", n, fn, j);
            CHECK(strcmp(json_str(json_get(json_at(ls, j), "label")), g->labels[j].label) == 0,
                  "%s.%s: label %zu", n, fn, j);
        }
    }
}

int main(void) {
    const char *dir = getenv("BACKBEAT_COMPAT_DIR");
    static const char *const files[] = {"basic", "wrapped", "multi_a", "multi_other"};
    json_value *docs[4];
    const json_value *golden[64];
    size_t ngolden = 0;
    for (int i = 0; i < 4; i++) {
        char path[4096], err[256];
        snprintf(path, sizeof path, "%s/%s.expected.json", dir ? dir : "/work/shared/compat",
                 files[i]);
        docs[i] = json_parse_file(path, err, sizeof err);
        if (!docs[i]) {
            fprintf(stderr, "skip: %s\n", err);
            return 77;
        }
        const json_value *ss = json_get(json_at(json_get(docs[i], "instances"), 0), "schemas");
        for (size_t j = 0; j < json_len(ss); j++) {
            int dup = 0;
            for (size_t k = 0; k < ngolden; k++)
                dup |= strcmp(json_str(json_get(golden[k], "id")),
                              json_str(json_get(json_at(ss, j), "id"))) == 0;
            if (!dup && ngolden < 64) golden[ngolden++] = json_at(ss, j);
        }
    }
    CHECK(ngolden == 13, "expected 13 distinct golden schemas, found %zu", ngolden);

    bb_event_desc *mine[] = {BB_DESC(fixture_scalars),
                             BB_DESC(fixture_enums),
                             BB_DESC(fixture_blob),
                             BB_DESC(fixture_work_start),
                             BB_DESC(fixture_work_end),
                             BB_DESC(fixture_step),
                             BB_DESC(fixture_tick),
                             BB_DESC(fixture_unused),
                             BB_DESC(fixture_ring_seq),
                             BB_DESC(fixture_ring_small),
                             BB_DESC(fixture_ring_odd),
                             BB_DESC(fixture_multi_sample),
                             BB_DESC(fixture_multi_sample_other)};
    size_t nmine = sizeof mine / sizeof mine[0];
    int covered[64] = {0};
    for (size_t i = 0; i < nmine; i++) {
        uint64_t id = bb_event_id(mine[i]);
        CHECK(id == bb_event_id_compute(mine[i]), "%s: stored id differs", mine[i]->name);
        int found = 0;
        for (size_t k = 0; k < ngolden; k++) {
            uint64_t gid = 0;
            json_hex_u64(json_get(golden[k], "id"), &gid);
            if (gid == id) {
                found = 1;
                covered[k] = 1;
                compare(mine[i], golden[k]);
            }
        }
        CHECK(found, "%s: id %016llx is not a golden id", mine[i]->name, (unsigned long long)id);
    }
    /* 8 schemas of basic, 3 more of wrapped (Tick is shared), one Sample per multi build. */
    for (size_t k = 0; k < ngolden; k++)
        CHECK(covered[k], "golden schema %s (%s) not defined by fixture_events.h",
              json_str(json_get(golden[k], "name")), json_str(json_get(golden[k], "id")));

    /* Record sizes as compile-time constants; the zero-field marker records nothing. */
    CHECK(BB_RECORD_SIZE(fixture_scalars) == 40 && sizeof(fixture_scalars) == 40, "scalars size");
    CHECK(BB_RECORD_SIZE(fixture_tick) == 0, "tick record size");
    CHECK(BB_RECORD_SIZE(fixture_blob) == 24, "blob record size");

    /* All of them registered themselves (registry.h), including the never-recorded Unused. */
    const bb_event_desc *snap[64];
    size_t n = bb_registry_snapshot(snap, 64);
    CHECK(n == nmine, "snapshot has %zu events, want %zu", n, nmine);
    for (size_t i = 0; i < nmine; i++) {
        int in = 0;
        for (size_t j = 0; j < n && j < 64; j++) in |= snap[j] == mine[i];
        CHECK(in, "%s not in the registry snapshot", mine[i]->name);
    }
    /* Registration order is definition order. */
    for (size_t i = 0; i < nmine && i < n; i++)
        CHECK(snap[i] == mine[i], "snapshot[%zu] is %s", i, snap[i]->name);
    CHECK(bb_registry_generation() >= nmine, "generation");

    for (int i = 0; i < 4; i++) json_free(docs[i]);
    printf("fixtures: %zu descriptors against %zu golden schemas, %d failures\n", nmine, ngolden,
           failures);
    return failures ? 1 : 0;
}
