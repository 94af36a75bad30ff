/* crash_read.c — the crashes a dump records: its backbeat::Crash records, each with the
 * backbeat::Module records of its instance. Fields are found by name in the dump's own schema,
 * so a reader does not depend on the writer's layout beyond the names and widths. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "common/error_set.h"
#include "symbols/symbols.h"

typedef struct gather {
    const bb_dump *dump;
    const bb_rinstance *inst;
    sy_crash *crashes;
    size_t ncrash, capcrash;
    sy_module *mods; /* this instance's */
    size_t nmod, capmod;
    bool nomem;
} gather;

static bool is_named(const bb_rschema *s, const char *name) {
    return s->name.len == strlen(name) && !memcmp(s->name.ptr, name, s->name.len);
}

/* Field `name` of record `r` as an unsigned integer of its width (0 when absent). */
static uint64_t u_field(const bb_record *r, const char *name) {
    for (size_t i = 0; i < r->schema->field_count; i++) {
        const bb_rfield *f = &r->schema->fields[i];
        if (f->name.len != strlen(name) || memcmp(f->name.ptr, name, f->name.len) || f->width > 8)
            continue;
        uint64_t v = 0;
        for (unsigned k = 0; k < f->width; k++) v |= (uint64_t)r->fields[f->offset + k] << (8 * k);
        return v;
    }
    return 0;
}

/* Field `name` as bytes: its address and width (width 0 when absent). */
static const uint8_t *b_field(const bb_record *r, const char *name, size_t *width) {
    for (size_t i = 0; i < r->schema->field_count; i++) {
        const bb_rfield *f = &r->schema->fields[i];
        if (f->name.len == strlen(name) && !memcmp(f->name.ptr, name, f->name.len)) {
            *width = f->width;
            return r->fields + f->offset;
        }
    }
    *width = 0;
    return NULL;
}

/* An interned string field as a new C string ("" when unknown). */
static char *s_field(gather *g, const bb_record *r, const char *name) {
    bb_strview sv = {"", 0};
    if (!bb_rinstance_intern(g->inst, (uint32_t)u_field(r, name), &sv)) sv.len = 0;
    char *s = malloc(sv.len + 1);
    if (!s) return NULL;
    memcpy(s, sv.ptr, sv.len);
    s[sv.len] = '\0';
    return s;
}

static bool grow(void **p, size_t *cap, size_t n, size_t size) {
    if (n < *cap) return true;
    size_t c = *cap ? *cap * 2 : 8;
    void *q = realloc(*p, c * size);
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}

static void add_crash(gather *g, const bb_record *r) {
    if (!grow((void **)&g->crashes, &g->capcrash, g->ncrash, sizeof *g->crashes)) {
        g->nomem = true;
        return;
    }
    sy_crash *c = &g->crashes[g->ncrash];
    memset(c, 0, sizeof *c);
    c->instance_id = r->instance_id;
    c->ts = r->ts;
    c->sig = (int32_t)u_field(r, "signal");
    c->code = (int32_t)u_field(r, "code");
    c->addr = u_field(r, "addr");
    c->tid = (uint32_t)u_field(r, "tid");
    c->unwind_fault = u_field(r, "unwind_fault") != 0;
    size_t w;
    const uint8_t *st = b_field(r, "stack", &w);
    uint64_t n = u_field(r, "frames");
    if (n > w / 8) n = w / 8;
    if (n > SY_MAX_FRAMES) n = SY_MAX_FRAMES;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = 0;
        for (int k = 0; k < 8; k++) v |= (uint64_t)st[8 * i + k] << (8 * k);
        c->frames[i] = v;
    }
    c->nframes = (uint32_t)n;
    c->thread = s_field(g, r, "thread");
    if (!c->thread) g->nomem = true;
    g->ncrash++;
}

static void add_module(gather *g, const bb_record *r) {
    if (!grow((void **)&g->mods, &g->capmod, g->nmod, sizeof *g->mods)) {
        g->nomem = true;
        return;
    }
    sy_module *m = &g->mods[g->nmod];
    memset(m, 0, sizeof *m);
    m->bias = u_field(r, "bias");
    m->start = u_field(r, "start");
    m->end = u_field(r, "end");
    size_t w;
    const uint8_t *id = b_field(r, "build_id", &w);
    size_t len = (size_t)u_field(r, "build_id_len");
    if (len > w) len = w;
    if (len > sizeof m->build_id) len = sizeof m->build_id;
    if (len) memcpy(m->build_id, id, len);
    m->build_id_len = (uint8_t)len;
    m->path = s_field(g, r, "path");
    if (!m->path) g->nomem = true;
    else g->nmod++;
}

static int on_record(const bb_record *r, void *ctx) {
    gather *g = ctx;
    if (is_named(r->schema, "backbeat::Crash")) add_crash(g, r);
    else if (is_named(r->schema, "backbeat::Module")) add_module(g, r);
    return g->nomem;
}

static int by_ts(const void *a, const void *b) {
    uint64_t x = ((const sy_crash *)a)->ts, y = ((const sy_crash *)b)->ts;
    return x < y ? -1 : x > y;
}

/* One instance: its crashes get (a copy of) its modules. */
static void gather_instance(gather *g) {
    size_t first = g->ncrash;
    g->nmod = 0;
    for (size_t k = 0; k < g->inst->shard_count && !g->nomem; k++)
        bb_shard_walk(g->dump, &g->inst->shards[k], on_record, g, NULL);
    for (size_t i = first; i < g->ncrash && !g->nomem && g->nmod; i++) {
        sy_crash *c = &g->crashes[i];
        c->modules = calloc(g->nmod, sizeof *c->modules);
        if (!c->modules) {
            g->nomem = true;
            break;
        }
        for (size_t m = 0; m < g->nmod && !g->nomem; m++) { /* walked newest first */
            c->modules[m] = g->mods[g->nmod - 1 - m];
            c->modules[m].path = strdup(g->mods[g->nmod - 1 - m].path);
            if (!c->modules[m].path) g->nomem = true;
            else c->nmodules++;
        }
    }
    for (size_t m = 0; m < g->nmod; m++) free(g->mods[m].path);
}

/* Whether the dump registers backbeat::Crash: only then can a ring hold a crash. */
static bool registers_crash(const bb_dump *dump) {
    for (size_t k = 0; k < bb_dump_schema_count(dump); k++)
        if (is_named(bb_dump_schema(dump, k), "backbeat::Crash")) return true;
    return false;
}

bb_status sy_crashes_read(const bb_dump *dump, sy_crash **out, size_t *n, bb_error *err) {
    gather g;
    memset(&g, 0, sizeof g);
    g.dump = dump;
    /* The rings are walked (every record read: a pass over the whole dump, as long as the
     * model's) only when a crash can be found there. */
    bool any = registers_crash(dump);
    for (size_t i = 0; any && i < bb_dump_instance_count(dump) && !g.nomem; i++) {
        g.inst = bb_dump_instance(dump, i);
        gather_instance(&g);
    }
    free(g.mods);
    if (g.nomem) {
        sy_crashes_free(g.crashes, g.ncrash);
        *out = NULL;
        *n = 0;
        return bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, bb_dump_name(dump),
                           "out of memory reading its crashes");
    }
    if (g.ncrash > 1) qsort(g.crashes, g.ncrash, sizeof *g.crashes, by_ts);
    *out = g.crashes;
    *n = g.ncrash;
    return BB_OK;
}

void sy_crashes_free(sy_crash *crashes, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(crashes[i].thread);
        for (size_t m = 0; m < crashes[i].nmodules; m++) free(crashes[i].modules[m].path);
        free(crashes[i].modules);
    }
    free(crashes);
}
