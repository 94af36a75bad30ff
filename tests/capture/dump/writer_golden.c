/* writer_golden.c — rebuild every golden dump NAME.bb of the compat dir from NAME.input.json
 * and NAME.expected.json (as compat/README.md prescribes: zeroed rings, each write appended as
 * [ts][event_id][fields][u16 len] at the head wrapping at the capacity, the after_snapshot
 * edits, schemas in registry_order) with bb_dump_write, and compare byte for byte with NAME.bb.
 * Exits 77 when the compat dir is absent. */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backbeat/dump_writer.h"
#include "json.h"

static int failures;
#define FAIL(...)                     \
    do {                              \
        fprintf(stderr, __VA_ARGS__); \
        fputc('\n', stderr);          \
        failures++;                   \
    } while (0)

/* ---- small helpers ---- */

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Decode a hex string into a fresh buffer; *len gets its byte count. NULL on bad input. */
static uint8_t *unhex(const json_value *v, size_t *len) {
    const char *s = json_str(v);
    if (!s) return NULL;
    size_t n = strlen(s);
    if (n % 2) return NULL;
    uint8_t *out = xcalloc(n / 2 + 1, 1);
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(out);
            return NULL;
        }
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    *len = n / 2;
    return out;
}

static uint64_t get_u64(const json_value *v, const char *what, int *ok) {
    uint64_t x = 0;
    if (!json_u64(v, &x)) {
        FAIL("  bad or missing integer: %s", what);
        *ok = 0;
    }
    return x;
}

static uint64_t get_hex(const json_value *v, const char *what, int *ok) {
    uint64_t x = 0;
    if (!json_hex_u64(v, &x)) {
        FAIL("  bad or missing hex id: %s", what);
        *ok = 0;
    }
    return x;
}

/* A JSON string or null as a NUL-terminated string (NULL for null). Rejects embedded NULs,
 * which a bb_event_desc string cannot carry. */
static const char *get_opt_str(const json_value *v, const char *what, int *ok) {
    if (json_is_null(v)) return NULL;
    const char *s = json_str(v);
    if (!s || strlen(s) != json_str_len(v)) {
        FAIL("  bad string: %s", what);
        *ok = 0;
        return NULL;
    }
    return s;
}

static const char *get_str(const json_value *v, const char *what, int *ok) {
    const char *s = get_opt_str(v, what, ok);
    if (!s && *ok) {
        FAIL("  missing string: %s", what);
        *ok = 0;
    }
    return s;
}

/* Index of `s` in a NULL-terminated list of names, or -1. */
static int name_index(const char *s, const char *const *names) {
    for (int i = 0; s && names[i]; i++)
        if (strcmp(s, names[i]) == 0) return i;
    return -1;
}

static const char *const type_names[] = {"u8",  "u16",  "u32",   "u64",  "i8",       "i16", "i32",
                                         "i64", "bool", "bytes", "enum", "interned", NULL};
static const char *const role_names[] = {"none", "key", "span_id", "parent_span_id", NULL};
static const char *const phase_names[] = {"none", "enter", "exit", NULL};

/* ---- the rebuilt fixture ---- */

typedef struct fixture {
    uint64_t instance_id;
    const char *host;
    const bb_event_desc **events;
    size_t event_count;
    bb_intern_item *intern;
    size_t intern_count;
    const char **views;
    size_t view_count;
    uint8_t **rings;
    uint64_t *caps;
    uint64_t *heads;
    uint32_t shard_count;
    size_t schema_count; /* entries of desc_store / field_store / label_store */
    /* Owned allocations to free. */
    bb_event_desc *desc_store;
    bb_field_desc **field_store;
    bb_enum_label ***label_store;
} fixture;

static bb_intern_item fx_intern_get(void *ctx, size_t i) { return ((fixture *)ctx)->intern[i]; }
static uint64_t fx_capacity(void *ctx, uint32_t i) { return ((fixture *)ctx)->caps[i]; }
/* Even shards take the snapshot path (copied into scratch), odd ones the live-ring path. */
static const uint8_t *fx_region(void *ctx, uint32_t i, uint8_t *scratch, uint64_t *head) {
    fixture *fx = ctx;
    *head = fx->heads[i];
    if (i % 2 == 0) {
        memcpy(scratch, fx->rings[i], fx->caps[i]);
        return scratch;
    }
    return fx->rings[i];
}

/* Fill fx->desc_store[k] from the schema object s. */
static int load_schema(fixture *fx, size_t k, const json_value *s, int *ok) {
    bb_event_desc *d = &fx->desc_store[k];
    d->id = get_hex(json_get(s, "id"), "schema id", ok);
    d->name = get_str(json_get(s, "name"), "schema name", ok);
    d->description = get_opt_str(json_get(s, "description"), "schema description", ok);
    d->record_size = (uint16_t)get_u64(json_get(s, "record_size"), "record_size", ok);
    int ph = name_index(json_str(json_get(s, "phase")), phase_names);
    if (ph < 0) {
        FAIL("  bad phase in %s", d->name ? d->name : "?");
        *ok = 0;
    }
    d->phase = (uint8_t)(ph < 0 ? 0 : ph);
    const json_value *fields = json_get(s, "fields");
    size_t nf = json_len(fields);
    d->field_count = (uint16_t)nf;
    bb_field_desc *fs = xcalloc(nf, sizeof *fs);
    fx->field_store[k] = fs;
    fx->label_store[k] = xcalloc(nf, sizeof(bb_enum_label *));
    d->fields = fs;
    for (size_t j = 0; j < nf; j++) {
        const json_value *f = json_at(fields, j);
        bb_field_desc *fd = &fs[j];
        fd->name = get_str(json_get(f, "name"), "field name", ok);
        fd->description = get_opt_str(json_get(f, "description"), "field description", ok);
        fd->unit = get_opt_str(json_get(f, "unit"), "field unit", ok);
        int t = name_index(json_str(json_get(f, "type")), type_names);
        int r = name_index(json_str(json_get(f, "role")), role_names);
        if (t < 0 || r < 0) {
            FAIL("  bad type or role in %s.%s", d->name ? d->name : "?", fd->name ? fd->name : "?");
            *ok = 0;
            t = t < 0 ? 0 : t;
            r = r < 0 ? 0 : r;
        }
        fd->type = (uint8_t)t;
        fd->role = (uint8_t)r;
        if (t == BB_TYPE_ENUM) fd->type_arg = (uint8_t)get_u64(json_get(f, "repr"), "repr", ok);
        if (t == BB_TYPE_INTERNED) {
            const json_value *dyn = json_get(f, "dynamic");
            if (json_kind_of(dyn) != JSON_BOOL) {
                FAIL("  interned field without 'dynamic'");
                *ok = 0;
            }
            fd->type_arg = json_bool(dyn) ? 1 : 0;
        }
        fd->offset = (uint16_t)get_u64(json_get(f, "offset"), "offset", ok);
        fd->width = (uint16_t)get_u64(json_get(f, "width"), "width", ok);
        const json_value *sent = json_get(f, "sentinel");
        if (!json_is_null(sent)) {
            fd->has_sentinel = 1;
            fd->sentinel = get_u64(sent, "sentinel", ok);
        }
        const json_value *labels = json_get(f, "labels");
        size_t nl = json_len(labels);
        fd->label_count = (uint16_t)nl;
        if (nl) {
            bb_enum_label *ls = xcalloc(nl, sizeof *ls);
            fx->label_store[k][j] = ls;
            for (size_t l = 0; l < nl; l++) {
                const json_value *lab = json_at(labels, l);
                ls[l].value = get_u64(json_get(lab, "value"), "label value", ok);
                ls[l].label = get_str(json_get(lab, "label"), "label", ok);
            }
            fd->labels = ls;
        }
    }
    return *ok;
}

/* Apply one write to its ring: [ts u64][event_id u64][fields][u16 16+len] at the head. */
static void ring_append(fixture *fx, uint32_t shard, const uint8_t *rec, size_t len) {
    uint64_t mask = fx->caps[shard] - 1;
    for (size_t i = 0; i < len; i++) fx->rings[shard][(fx->heads[shard] + i) & mask] = rec[i];
    fx->heads[shard] += len;
}

static void put_le(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Build the fixture from the two JSON documents. Returns 0 (after FAILing) on bad input. */
static int load_fixture(fixture *fx, const json_value *input, const json_value *expected) {
    int ok = 1;
    memset(fx, 0, sizeof *fx);
    fx->instance_id = get_hex(json_get(input, "instance_id"), "instance_id", &ok);
    fx->host = get_str(json_get(input, "host"), "host", &ok);

    /* Schemas: from expected.json (first instance; every instance of a single-dump fixture
     * carries the same registry), in registry_order. */
    const json_value *schemas = json_get(json_at(json_get(expected, "instances"), 0), "schemas");
    const json_value *order = json_get(input, "registry_order");
    size_t ns = json_len(schemas), no = json_len(order);
    fx->desc_store = xcalloc(ns, sizeof *fx->desc_store);
    fx->field_store = xcalloc(ns, sizeof *fx->field_store);
    fx->label_store = xcalloc(ns, sizeof *fx->label_store);
    fx->schema_count = ns;
    for (size_t k = 0; k < ns; k++) load_schema(fx, k, json_at(schemas, k), &ok);
    fx->events = xcalloc(no, sizeof *fx->events);
    fx->event_count = no;
    for (size_t i = 0; i < no; i++) {
        uint64_t id = get_hex(json_at(order, i), "registry_order entry", &ok);
        for (size_t k = 0; k < ns; k++)
            if (fx->desc_store[k].id == id) fx->events[i] = &fx->desc_store[k];
        if (!fx->events[i]) {
            FAIL("  registry_order id %016llx has no schema in expected.json",
                 (unsigned long long)id);
            ok = 0;
        }
    }

    const json_value *intern = json_get(input, "intern");
    fx->intern_count = json_len(intern);
    fx->intern = xcalloc(fx->intern_count, sizeof *fx->intern);
    for (size_t i = 0; i < fx->intern_count; i++) {
        const json_value *e = json_at(intern, i);
        size_t len = 0;
        uint8_t *bytes = unhex(json_get(e, "bytes_hex"), &len);
        if (!bytes) {
            FAIL("  bad intern bytes_hex");
            ok = 0;
        }
        fx->intern[i].id = (uint32_t)get_u64(json_get(e, "id"), "intern id", &ok);
        fx->intern[i].len = (uint32_t)len;
        fx->intern[i].bytes = bytes;
    }

    const json_value *views = json_get(input, "views");
    fx->view_count = json_len(views);
    fx->views = xcalloc(fx->view_count, sizeof *fx->views);
    for (size_t i = 0; i < fx->view_count; i++)
        fx->views[i] = get_str(json_at(views, i), "view text", &ok);

    const json_value *shards = json_get(input, "shards");
    fx->shard_count = (uint32_t)json_len(shards);
    fx->rings = xcalloc(fx->shard_count, sizeof *fx->rings);
    fx->caps = xcalloc(fx->shard_count, sizeof *fx->caps);
    fx->heads = xcalloc(fx->shard_count, sizeof *fx->heads);
    for (uint32_t i = 0; i < fx->shard_count; i++) {
        fx->caps[i] = get_u64(json_get(json_at(shards, i), "capacity"), "capacity", &ok);
        if (fx->caps[i] == 0 || (fx->caps[i] & (fx->caps[i] - 1)) || fx->caps[i] > (1u << 24)) {
            FAIL("  unexpected capacity %llu", (unsigned long long)fx->caps[i]);
            return 0;
        }
        fx->rings[i] = xcalloc(fx->caps[i], 1);
    }
    if (!ok) return 0;

    const json_value *writes = json_get(input, "writes");
    for (size_t w = 0; w < json_len(writes); w++) {
        const json_value *wr = json_at(writes, w);
        uint64_t shard = get_u64(json_get(wr, "shard"), "write shard", &ok);
        uint64_t ts = get_u64(json_get(wr, "ts"), "write ts", &ok);
        uint64_t id = get_hex(json_get(wr, "event_id"), "write event_id", &ok);
        size_t flen = 0;
        uint8_t *fields = unhex(json_get(wr, "fields_hex"), &flen);
        if (!ok || !fields || shard >= fx->shard_count || flen > 65535 - 16) {
            FAIL("  bad write #%zu", w);
            free(fields);
            return 0;
        }
        size_t len = 16 + flen + 2;
        uint8_t *rec = xcalloc(len, 1);
        put_le(rec, ts, 8);
        put_le(rec + 8, id, 8);
        memcpy(rec + 16, fields, flen);
        put_le(rec + 16 + flen, 16 + flen, 2);
        ring_append(fx, (uint32_t)shard, rec, len);
        free(rec);
        free(fields);
    }

    const json_value *edits = json_get(input, "after_snapshot");
    for (size_t e = 0; e < json_len(edits); e++) {
        const json_value *ed = json_at(edits, e);
        uint64_t shard = get_u64(json_get(ed, "shard"), "edit shard", &ok);
        const char *op = json_str(json_get(ed, "op"));
        if (!ok || shard >= fx->shard_count || !op) {
            FAIL("  bad after_snapshot edit #%zu", e);
            return 0;
        }
        uint64_t mask = fx->caps[shard] - 1;
        if (strcmp(op, "fill") == 0) {
            uint64_t from = get_u64(json_get(ed, "from_abs"), "from_abs", &ok);
            uint64_t to = get_u64(json_get(ed, "to_abs"), "to_abs", &ok);
            size_t bl = 0;
            uint8_t *b = unhex(json_get(ed, "byte_hex"), &bl);
            if (!ok || !b || bl != 1 || to < from) {
                FAIL("  bad fill edit");
                free(b);
                return 0;
            }
            for (uint64_t a = from; a < to; a++) fx->rings[shard][a & mask] = b[0];
            free(b);
        } else if (strcmp(op, "write") == 0) {
            uint64_t at = get_u64(json_get(ed, "at_abs"), "at_abs", &ok);
            size_t bl = 0;
            uint8_t *b = unhex(json_get(ed, "bytes_hex"), &bl);
            if (!ok || !b) {
                FAIL("  bad write edit");
                free(b);
                return 0;
            }
            for (size_t i = 0; i < bl; i++) fx->rings[shard][(at + i) & mask] = b[i];
            free(b);
        } else if (strcmp(op, "set_head") == 0) {
            fx->heads[shard] = get_u64(json_get(ed, "head"), "head", &ok);
        } else {
            FAIL("  unknown after_snapshot op '%s'", op);
            return 0;
        }
    }
    return ok;
}

static void free_fixture(fixture *fx) {
    /* label_store[k] has one slot per field of schema k. */
    for (size_t k = 0; k < fx->schema_count; k++) {
        for (size_t j = 0; fx->label_store[k] && j < fx->desc_store[k].field_count; j++)
            free(fx->label_store[k][j]);
        free(fx->label_store[k]);
        free(fx->field_store[k]);
    }
    free(fx->desc_store);
    free(fx->field_store);
    free(fx->label_store);
    free((void *)fx->events);
    for (size_t i = 0; i < fx->intern_count; i++) free((void *)fx->intern[i].bytes);
    free(fx->intern);
    free((void *)fx->views);
    for (uint32_t i = 0; i < fx->shard_count; i++) free(fx->rings[i]);
    free(fx->rings);
    free(fx->caps);
    free(fx->heads);
}

static uint8_t *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = xcalloc(cap, 1);
    size_t r;
    while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) exit(1);
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

/* Rebuild one fixture and compare. Returns 1 if it matched. */
static int check_fixture(const char *dir, const char *name) {
    char p_in[4096], p_exp[4096], p_bb[4096];
    snprintf(p_in, sizeof p_in, "%s/%s.input.json", dir, name);
    snprintf(p_exp, sizeof p_exp, "%s/%s.expected.json", dir, name);
    snprintf(p_bb, sizeof p_bb, "%s/%s.bb", dir, name);
    char jerr[256];
    json_value *input = json_parse_file(p_in, jerr, sizeof jerr);
    if (!input) {
        FAIL("%s: %s", name, jerr);
        return 0;
    }
    json_value *expected = json_parse_file(p_exp, jerr, sizeof jerr);
    if (!expected) {
        FAIL("%s: %s", name, jerr);
        json_free(input);
        return 0;
    }
    size_t golden_len = 0;
    uint8_t *golden = read_file(p_bb, &golden_len);
    int matched = 0;
    fixture fx;
    if (!golden) {
        FAIL("%s: cannot read %s", name, p_bb);
    } else if (!load_fixture(&fx, input, expected)) {
        FAIL("%s: could not rebuild the input", name);
        free_fixture(&fx);
    } else {
        bb_dump_input in = {0};
        in.instance_id = fx.instance_id;
        in.host = fx.host;
        in.events = fx.events;
        in.event_count = fx.event_count;
        in.intern_count = fx.intern_count;
        in.intern_get = fx_intern_get;
        in.views = fx.views;
        in.view_count = fx.view_count;
        in.shard_count = fx.shard_count;
        in.shard_capacity = fx_capacity;
        in.shard_region = fx_region;
        in.ctx = &fx;
        uint64_t maxcap = 0;
        for (uint32_t i = 0; i < fx.shard_count; i++)
            if (fx.caps[i] > maxcap) maxcap = fx.caps[i];
        uint8_t *scratch = xcalloc(maxcap, 1);
        uint64_t size = bb_dump_size(&in);
        size_t cap = (size_t)size + 64;
        uint8_t *out = xcalloc(cap, 1);
        bb_buffer_sink b = {out, cap, 0};
        bb_error err;
        bb_status st = bb_dump_write(&in, bb_sink_buffer(&b), scratch, &err);
        if (st != BB_OK) {
            FAIL("%s: bb_dump_write failed (%d): %s", name, st, err.message);
        } else {
            size_t n = b.len < golden_len ? b.len : golden_len, i = 0;
            while (i < n && out[i] == golden[i]) i++;
            if (b.len != size)
                FAIL("%s: bb_dump_size %llu but %zu bytes written", name, (unsigned long long)size,
                     b.len);
            if (i < n || b.len != golden_len) {
                FAIL("%s: rebuilt dump differs from %s.bb: first difference at offset %zu "
                     "(rebuilt %zu bytes, golden %zu)",
                     name, name, i, b.len, golden_len);
                if (i < n) fprintf(stderr, "  rebuilt 0x%02x, golden 0x%02x\n", out[i], golden[i]);
            } else {
                matched = 1;
                printf("%s: %zu bytes, identical\n", name, golden_len);
            }
        }
        free(out);
        free(scratch);
        free_fixture(&fx);
    }
    free(golden);
    json_free(input);
    json_free(expected);
    return matched;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(void) {
    const char *dir = getenv("BACKBEAT_COMPAT_DIR");
    if (!dir || !*dir) dir = "/work/shared/compat";
    DIR *d = opendir(dir);
    if (!d) {
        printf("compat dir %s absent: skipped\n", dir);
        return 77;
    }
    char *names[256];
    size_t count = 0;
    struct dirent *de;
    const char *suffix = ".input.json";
    size_t sl = strlen(suffix);
    while ((de = readdir(d)) != NULL && count < 256) {
        size_t n = strlen(de->d_name);
        if (n > sl && strcmp(de->d_name + n - sl, suffix) == 0) {
            names[count] = xcalloc(n - sl + 1, 1);
            memcpy(names[count], de->d_name, n - sl);
            count++;
        }
    }
    closedir(d);
    qsort(names, count, sizeof *names, cmp_str);

    /* The fixtures compat/README.md documents must all be there. */
    static const char *const known[] = {"basic", "torn",    "wrapped", "wrapped_suffix",
                                        "empty", "multi_a", "multi_b", "multi_other"};
    for (size_t k = 0; k < sizeof known / sizeof *known; k++) {
        int found = 0;
        for (size_t i = 0; i < count; i++) found |= strcmp(names[i], known[k]) == 0;
        if (!found) FAIL("fixture %s.input.json missing from %s", known[k], dir);
    }

    size_t matched = 0;
    for (size_t i = 0; i < count; i++) {
        matched += (size_t)check_fixture(dir, names[i]);
        free(names[i]);
    }
    printf("%zu of %zu golden dumps rebuilt byte for byte\n", matched, count);
    return failures ? 1 : 0;
}
