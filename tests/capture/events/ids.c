/* ids.c — every vector of compat/ids.json gives its id, and the exact hash input bytes.
 *
 * `name` vectors: the plain FNV-1a 64 of the name. `schema` vectors: a bb_event_desc is built
 * from the JSON and both bb_event_id_input (the byte stream) and bb_event_id_compute (the id)
 * are compared with the vector.
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/registry.h"
#include "json.h"

#include "check.h"

static size_t unhex(const char *hex, uint8_t *out, size_t cap) {
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n && i < cap; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (uint8_t)v;
    }
    return n;
}

static uint8_t type_tag(const char *t) {
    static const char *names[] = {"u8",  "u16", "u32",  "u64",   "i8",   "i16",
                                  "i32", "i64", "bool", "bytes", "enum", "interned"};
    for (uint8_t i = 0; i < 12; i++)
        if (strcmp(t, names[i]) == 0) return i;
    return 255;
}

static uint8_t role_of(const char *r) {
    if (strcmp(r, "key") == 0) return BB_ROLE_KEY;
    if (strcmp(r, "span_id") == 0) return BB_ROLE_SPAN_ID;
    if (strcmp(r, "parent_span_id") == 0) return BB_ROLE_PARENT_SPAN_ID;
    return BB_ROLE_NONE;
}

static uint8_t phase_of(const char *p) {
    if (strcmp(p, "enter") == 0) return BB_PHASE_ENTER;
    if (strcmp(p, "exit") == 0) return BB_PHASE_EXIT;
    return BB_PHASE_NONE;
}

/* JSON string or null -> C string or NULL. */
static const char *opt(const json_value *v) { return json_is_null(v) ? NULL : json_str(v); }

static void check_schema(const json_value *vec, const char *label) {
    const json_value *jf = json_get(vec, "fields");
    size_t nf = json_len(jf);
    bb_field_desc fields[64];
    bb_enum_label labels[64][16];
    memset(fields, 0, sizeof fields);
    CHECK(nf <= 64, "%s: too many fields", label);
    for (size_t i = 0; i < nf && i < 64; i++) {
        const json_value *f = json_at(jf, i);
        bb_field_desc *d = &fields[i];
        uint64_t u;
        d->name = json_str(json_get(f, "name"));
        d->description = opt(json_get(f, "description"));
        d->unit = opt(json_get(f, "unit"));
        d->type = type_tag(json_str(json_get(f, "type")));
        if (d->type == BB_TYPE_ENUM && json_u64(json_get(f, "repr"), &u)) d->type_arg = (uint8_t)u;
        if (d->type == BB_TYPE_INTERNED) d->type_arg = json_bool(json_get(f, "dynamic")) ? 1 : 0;
        json_u64(json_get(f, "offset"), &u);
        d->offset = (uint16_t)u;
        json_u64(json_get(f, "width"), &u);
        d->width = (uint16_t)u;
        d->role = role_of(json_str(json_get(f, "role")));
        if (!json_is_null(json_get(f, "sentinel"))) {
            d->has_sentinel = 1;
            CHECK(json_u64(json_get(f, "sentinel"), &d->sentinel), "%s: sentinel", label);
        }
        const json_value *jl = json_get(f, "labels");
        CHECK(json_len(jl) <= 16, "%s: too many labels", label);
        for (size_t j = 0; j < json_len(jl) && j < 16; j++) {
            CHECK(json_u64(json_get(json_at(jl, j), "value"), &labels[i][j].value), "%s: label",
                  label);
            labels[i][j].label = json_str(json_get(json_at(jl, j), "label"));
        }
        d->label_count = (uint16_t)json_len(jl);
        d->labels = d->label_count ? labels[i] : NULL;
    }
    bb_event_desc desc = {0};
    desc.name = json_str(json_get(vec, "qualified_name"));
    desc.phase = phase_of(json_str(json_get(vec, "phase")));
    desc.fields = nf ? fields : NULL;
    desc.field_count = (uint16_t)nf;

    uint8_t want[4096], got[4096];
    size_t want_len = unhex(json_str(json_get(vec, "hash_input_hex")), want, sizeof want);
    size_t got_len = bb_event_id_input(&desc, got, sizeof got);
    CHECK(want_len == got_len && want_len <= sizeof want && memcmp(want, got, want_len) == 0,
          "%s: hash input differs (want %zu bytes, got %zu)", label, want_len, got_len);
    CHECK(bb_event_id_input(&desc, NULL, 0) == got_len, "%s: length-only call", label);
    uint64_t id = 0;
    json_hex_u64(json_get(vec, "id"), &id);
    CHECK(bb_event_id_compute(&desc) == id, "%s: id %016llx, want %016llx", label,
          (unsigned long long)bb_event_id_compute(&desc), (unsigned long long)id);
    CHECK(bb_fnv1a64(got, got_len) == id, "%s: fnv of the stream", label);
}

int main(void) {
    const char *dir = getenv("BACKBEAT_COMPAT_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/ids.json", dir ? dir : "/work/shared/compat");
    char err[256];
    json_value *doc = json_parse_file(path, err, sizeof err);
    if (!doc) {
        fprintf(stderr, "skip: %s\n", err);
        return 77;
    }
    const json_value *vecs = json_get(doc, "vectors");
    size_t names = 0, schemas = 0;
    for (size_t i = 0; i < json_len(vecs); i++) {
        const json_value *v = json_at(vecs, i);
        const char *label = json_str(json_get(v, "label"));
        const char *kind = json_str(json_get(v, "kind"));
        uint64_t id = 0;
        CHECK(json_hex_u64(json_get(v, "id"), &id), "%s: id", label);
        if (strcmp(kind, "name") == 0) {
            const json_value *n = json_get(v, "name");
            uint8_t want[256];
            size_t wl = unhex(json_str(json_get(v, "hash_input_hex")), want, sizeof want);
            CHECK(wl == json_str_len(n) && memcmp(want, json_str(n), wl) == 0, "%s: name bytes",
                  label);
            CHECK(bb_fnv1a64(json_str(n), json_str_len(n)) == id, "%s: fnv", label);
            names++;
        } else if (strcmp(kind, "schema") == 0) {
            check_schema(v, label);
            schemas++;
        } else {
            CHECK(0, "%s: unknown kind %s", label, kind);
        }
    }
    CHECK(names >= 3 && schemas >= 20, "too few vectors: %zu names, %zu schemas", names, schemas);
    json_free(doc);
    printf("ids: %zu name vectors, %zu schema vectors, %d failures\n", names, schemas, failures);
    return failures ? 1 : 0;
}
