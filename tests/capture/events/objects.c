/* objects.c — registration from every kind of object: this executable, a shared library it
 * links, a static library it links, and a plugin it dlopens and dlcloses. No list of events
 * exists anywhere; each object's constructors register its events and its destructors
 * unregister them. An event with no records is still in the registry. The plugin's events,
 * recorded through this executable's recorder, are in a dump taken while it is loaded, with
 * their values. After dlclose its schemas leave the registry (bb_registry_snapshot), but the
 * library keeps a copy of each (registry.c, "unloaded schemas"): a later dump still describes
 * the plugin's records still in the rings, once per id across load/unload rounds, and decodes
 * them with their values. */
/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/backbeat.h"
#include "backbeat/reader.h"

BB_EVENT(exe_event, "exe", "Event", NULL, BB_FIELD(uint8_t, b, NULL));
BB_EVENT(fixture_tick, "fixture", "Tick", "A heartbeat marker.");
BB_VIEWS(exe_views, "CREATE VIEW exe AS SELECT 0;");

bb_event_desc *shlib_hello_desc(void);
bb_event_desc *static_lib_desc(void);

#include "check.h"

/* Number of snapshot entries named `name`. */
static int count_named(const char *name) {
    const bb_event_desc *snap[64];
    size_t n = bb_registry_snapshot(snap, 64);
    int c = 0;
    for (size_t i = 0; i < n && i < 64; i++) c += strcmp(snap[i]->name, name) == 0;
    return c;
}

static int count_views(const char *sql) {
    const bb_view_desc *v[16];
    size_t n = bb_views_snapshot(v, 16);
    int c = 0;
    for (size_t i = 0; i < n && i < 16; i++) c += strcmp(v[i]->sql, sql) == 0;
    return c;
}

struct plugin_api {
    const bb_event_desc *a;
    void (*record)(bb_recorder *rec, uint64_t ts);
};

/* Records of the event called `name` in a dump; k = the single field of the last one seen. */
typedef struct found {
    const char *name;
    int n;
    uint64_t k;
} found;

static int on_record(const bb_record *r, void *ctx) {
    found *f = ctx;
    if (r->schema->name.len == strlen(f->name) &&
        memcmp(r->schema->name.ptr, f->name, r->schema->name.len) == 0) {
        f->n++;
        if (r->schema->field_count == 1) {
            bb_value v = bb_decode_field(r->schema, 0, r->fields, NULL);
            f->k = v.u;
        }
    }
    return 0;
}

/* Dump `rec`, read it back, count the records named `name`; *schema_present counts the
 * schemas of that name in the dump's registry. */
static found dump_count(bb_recorder *rec, const char *name, int *schema_present) {
    found f = {name, 0, 0};
    void *buf = NULL;
    size_t len = 0;
    bb_error err;
    bb_dump *d = NULL;
    *schema_present = 0;
    if (bb_recorder_dump_buffer(rec, &buf, &len, &err) != BB_OK ||
        bb_dump_open_memory(buf, len, "objects", &d, &err) != BB_OK) {
        CHECK(0, "dump: %s", err.message);
        free(buf);
        return f;
    }
    for (size_t i = 0; i < bb_dump_schema_count(d); i++) {
        const bb_rschema *s = bb_dump_schema(d, i);
        *schema_present +=
            s->name.len == strlen(name) && memcmp(s->name.ptr, name, s->name.len) == 0;
    }
    for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
        const bb_rinstance *inst = bb_dump_instance(d, i);
        for (size_t s = 0; s < inst->shard_count; s++)
            bb_shard_walk(d, &inst->shards[s], on_record, &f, NULL);
    }
    bb_dump_close(d);
    free(buf);
    return f;
}

int main(void) {
    CHECK(count_named("exe::Event") == 1, "executable event");
    CHECK(count_named("shlib::Hello") == 1, "shared-library event");
    CHECK(count_named("staticlib::Event") == 1, "static-library event");
    CHECK(static_lib_desc()->id != 0 && shlib_hello_desc()->id != 0, "ids filled at load");
    /* fixture::Tick is defined in the executable and the shared library: one id, listed once,
     * and the id is the golden one. */
    CHECK(count_named("fixture::Tick") == 1, "duplicate id listed once");
    CHECK(bb_event_id(BB_DESC(fixture_tick)) == 0xacca22e01934c2f0ull, "tick id");
    CHECK(count_views("CREATE VIEW exe AS SELECT 0;") == 1, "exe views");
    CHECK(count_views("CREATE VIEW shlib AS SELECT 1;") == 1, "shlib views");
    size_t before = bb_registry_snapshot(NULL, 0);
    size_t views_before = bb_views_snapshot(NULL, 0);
    CHECK(before == 4, "4 distinct events before the plugin, got %zu", before);

    for (int round = 0; round < 2; round++) {
        uint64_t gen0 = bb_registry_generation();
        void *h = dlopen(BB_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
        CHECK(h != NULL, "dlopen: %s", dlerror());
        if (!h) break;
        CHECK(count_named("plugin::A") == 1 && count_named("plugin::Span") == 1 &&
                  count_named("plugin::Marker") == 1,
              "plugin events registered (round %d)", round);
        CHECK(bb_registry_snapshot(NULL, 0) == before + 3, "three more events");
        CHECK(count_views("CREATE VIEW plugin AS SELECT 2;") == 1, "plugin views");
        CHECK(bb_views_snapshot(NULL, 0) == views_before + 1, "one more view set");
        CHECK(bb_registry_generation() >= gen0 + 4, "generation bumped by the load");
        const struct plugin_api *api = (const struct plugin_api *)dlsym(h, "plugin_api");
        CHECK(api && api->a->id == bb_event_id_compute(api->a), "plugin id stored");

        /* Record from the plugin through our recorder; a dump holds its schemas and records. */
        bb_recorder_options o;
        bb_recorder_options_init(&o);
        o.shards = 1;
        o.bytes_per_shard = 4096;
        o.clock = BB_CLOCK_MANUAL;
        bb_recorder *rec = NULL;
        CHECK(bb_recorder_create(&o, &rec) == BB_OK, "recorder");
        bb_recorder_enable(rec, true);
        if (api) api->record(rec, 100);
        int present = 0;
        found f = dump_count(rec, "plugin::A", &present);
        CHECK(present == 1 && f.n == 1 && f.k == 0xABCDEF, "plugin::A in the dump (%d records)",
              f.n);
        f = dump_count(rec, "plugin::Marker", &present);
        CHECK(present == 1 && f.n == 1, "plugin::Marker in the dump");
        f = dump_count(rec, "plugin::Span", &present);
        CHECK(present == 1 && f.n == 1, "plugin::Span in the dump");

        uint64_t gen1 = bb_registry_generation();
        CHECK(dlclose(h) == 0, "dlclose");
        /* The records are still in the ring, and the kept schemas decode them. */
        f = dump_count(rec, "plugin::A", &present);
        CHECK(present == 1 && f.n == 1 && f.k == 0xABCDEF,
              "plugin::A decoded from a dump after dlclose (round %d: %d schemas, %d records)",
              round, present, f.n);
        f = dump_count(rec, "plugin::Marker", &present);
        CHECK(present == 1 && f.n == 1, "plugin::Marker decoded after dlclose");
        f = dump_count(rec, "plugin::Span", &present);
        CHECK(present == 1 && f.n == 1, "plugin::Span decoded after dlclose");
        f = dump_count(rec, "exe::Event", &present);
        CHECK(present == 1, "exe::Event still listed once");
        bb_recorder_free(rec);
        CHECK(count_named("plugin::A") == 0 && count_named("plugin::Span") == 0 &&
                  count_named("plugin::Marker") == 0,
              "plugin events gone after dlclose (round %d)", round);
        CHECK(count_views("CREATE VIEW plugin AS SELECT 2;") == 0, "plugin views gone");
        CHECK(bb_registry_snapshot(NULL, 0) == before, "back to the executable's events");
        CHECK(bb_registry_generation() >= gen1 + 4, "generation bumped by the unload");
    }
    CHECK(count_named("exe::Event") == 1 && count_named("shlib::Hello") == 1, "others intact");
    printf("objects: %d failures\n", failures);
    return failures ? 1 : 0;
}
