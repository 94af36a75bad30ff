/* forward_patch.c — rewrites a valid dump into what a newer writer might produce, for the
 * forward-compatibility test (cli_forward.sh): FORMAT.md says a reader skips section kinds it
 * does not know and reads an unknown span phase or field role as "none", and that any non-zero
 * presence byte means present.
 *
 *   forward_patch kind  IN OUT K   insert a section of kind K (first in the section table, its
 *                                  body after the others'), every other offset moved to match
 *   forward_patch phase IN OUT P   every event whose phase is not 0 gets phase byte P
 *   forward_patch role  IN OUT R   every field whose role is not 0 gets role byte R
 *   forward_patch presence IN OUT V  every presence byte of the schema's opt_str and opt_u64
 *                                  values that is not 0 gets V ("anything else = present")
 *
 * The format has no checksums; event ids stay as written (a reader takes them from the file).
 * Prints how many places it patched; exits 1 when none (or on a dump it cannot walk).
 */
/* SPDX-License-Identifier: MIT */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    uint8_t *p;
    size_t len;
} buf;

static void die(const char *what) {
    fprintf(stderr, "forward_patch: %s\n", what);
    exit(1);
}

static uint64_t get(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static void put(uint8_t *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static buf slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open the input");
    buf b = {NULL, 0};
    uint8_t chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        b.p = realloc(b.p, b.len + n);
        if (!b.p) die("out of memory");
        memcpy(b.p + b.len, chunk, n);
        b.len += n;
    }
    fclose(f);
    if (b.len < 16 || memcmp(b.p, "BACKBEAT", 8)) die("not a dump");
    return b;
}

static void spill(const char *path, const uint8_t *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f)) die("cannot write the output");
}

/* A cursor over the schema section: each step checks it stays inside. */
typedef struct cur {
    uint8_t *p;
    size_t at, end;
} cur;

static uint8_t *take(cur *c, size_t n) {
    if (n > c->end - c->at) die("schema section ends early");
    uint8_t *r = c->p + c->at;
    c->at += n;
    return r;
}

static int presence = -1; /* the presence byte to write, or -1 */
static int presence_patched;

/* A presence byte: patched when asked; returns whether the value is present. */
static int present(cur *c) {
    uint8_t *p = take(c, 1);
    if (!*p) return 0;
    if (presence >= 0) {
        *p = (uint8_t)presence;
        presence_patched++;
    }
    return 1;
}

static void skip_str(cur *c) { take(c, get(take(c, 2), 2)); }
static void skip_opt_str(cur *c) {
    if (present(c)) skip_str(c);
}

/* Walk one field; patch its role when `role` >= 0. Returns 1 when patched. */
static int walk_field(cur *c, int role) {
    skip_str(c);
    skip_opt_str(c);
    uint8_t tag = *take(c, 1);
    if (tag == 10 || tag == 11) take(c, 1);
    take(c, 4); /* offset, width */
    uint8_t *r = take(c, 1);
    skip_opt_str(c);
    if (present(c)) take(c, 8);
    for (uint64_t k = get(take(c, 2), 2); k > 0; k--) {
        take(c, 8);
        skip_str(c);
    }
    if (role < 0 || *r == 0) return 0;
    *r = (uint8_t)role;
    return 1;
}

/* Walk the schema section at [at, at+len); patch phases or roles. Returns the count patched. */
static int walk_schema(uint8_t *p, size_t at, size_t len, int phase, int role) {
    cur c = {p, at, at + len};
    int n = 0;
    for (uint64_t e = get(take(&c, 4), 4); e > 0; e--) {
        take(&c, 8);
        skip_str(&c);
        skip_opt_str(&c);
        take(&c, 2);
        uint8_t *ph = take(&c, 1);
        if (phase >= 0 && *ph) {
            *ph = (uint8_t)phase;
            n++;
        }
        for (uint64_t f = get(take(&c, 2), 2); f > 0; f--) n += walk_field(&c, role);
    }
    return n;
}

/* Patch the first schema section's phases or roles in place. */
static int patch_schema(buf *b, int phase, int role) {
    size_t count = (size_t)get(b->p + 12, 2);
    if (b->len < 16 + 20 * count) die("section table ends early");
    for (size_t i = 0; i < count; i++) {
        const uint8_t *e = b->p + 16 + 20 * i;
        uint64_t off = get(e + 4, 8), len = get(e + 12, 8);
        if (get(e, 2) != 0) continue;
        if (off > b->len || len > b->len - off) die("schema section out of the file");
        return walk_schema(b->p, (size_t)off, (size_t)len, phase, role);
    }
    die("no schema section");
    return 0;
}

/* A copy of `in` with a section of kind `kind` first in the table, its body at the end. */
static buf add_section(const buf *in, uint16_t kind) {
    static const char body[] = "a section of a kind this reader does not know";
    size_t count = (size_t)get(in->p + 12, 2), old_table = 16 + 20 * count;
    if (count == 0xFFFF || in->len < old_table) die("cannot add a section");
    buf out = {malloc(in->len + 20 + sizeof body), in->len + 20 + sizeof body};
    if (!out.p) die("out of memory");
    memcpy(out.p, in->p, 16);
    put(out.p + 12, count + 1, 2);
    uint8_t *e = out.p + 16;
    put(e, kind, 2);
    put(e + 2, 0, 2);
    put(e + 4, in->len + 20, 8);
    put(e + 12, sizeof body, 8);
    for (size_t i = 0; i < count; i++) {
        memcpy(e + 20 * (i + 1), in->p + 16 + 20 * i, 20);
        put(e + 20 * (i + 1) + 4, get(in->p + 16 + 20 * i + 4, 8) + 20, 8);
    }
    memcpy(out.p + old_table + 20, in->p + old_table, in->len - old_table);
    memcpy(out.p + in->len + 20, body, sizeof body);
    return out;
}

int main(int argc, char **argv) {
    if (argc != 5) die("usage: forward_patch kind|phase|role IN OUT VALUE");
    buf b = slurp(argv[2]);
    long v = strtol(argv[4], NULL, 0);
    int n;
    if (!strcmp(argv[1], "kind")) {
        buf o = add_section(&b, (uint16_t)v);
        spill(argv[3], o.p, o.len);
        free(o.p);
        n = 1;
    } else {
        bool is_phase = !strcmp(argv[1], "phase"), is_role = !strcmp(argv[1], "role");
        if (!strcmp(argv[1], "presence")) presence = (int)v;
        else if (!is_phase && !is_role) die("unknown patch");
        n = patch_schema(&b, is_phase ? (int)v : -1, is_role ? (int)v : -1) + presence_patched;
        spill(argv[3], b.p, b.len);
    }
    free(b.p);
    printf("%d\n", n);
    return n > 0 ? 0 : 1;
}
