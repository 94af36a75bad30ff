/* objects.c — registration from every kind of object: this executable, a shared library it
 * links, a static library it links, and a plugin it dlopens and dlcloses. No list of events
 * exists anywhere; each object's constructors register its events and its destructors
 * unregister them. An event with no records (everything here: nothing is recorded) is still
 * in the registry. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "backbeat/event.h"

BB_EVENT(exe_event, "exe", "Event", NULL, BB_FIELD(uint8_t, b, NULL));
BB_EVENT(fixture_tick, "fixture", "Tick", "A heartbeat marker.");
BB_VIEWS(exe_views, "CREATE VIEW exe AS SELECT 0;");

bb_event_desc *shlib_hello_desc(void);
bb_event_desc *static_lib_desc(void);

static int failures;
#define CHECK(cond, ...)                                                                       \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            failures++;                                                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                               \
            fprintf(stderr, __VA_ARGS__);                                                      \
            fputc('\n', stderr);                                                               \
        }                                                                                      \
    } while (0)

/* Number of snapshot entries named `name`. */
static int count_named(const char *name)
{
    const bb_event_desc *snap[64];
    size_t n = bb_registry_snapshot(snap, 64);
    int c = 0;
    for (size_t i = 0; i < n && i < 64; i++)
        c += strcmp(snap[i]->name, name) == 0;
    return c;
}

static int count_views(const char *sql)
{
    const bb_view_desc *v[16];
    size_t n = bb_views_snapshot(v, 16);
    int c = 0;
    for (size_t i = 0; i < n && i < 16; i++)
        c += strcmp(v[i]->sql, sql) == 0;
    return c;
}

int main(void)
{
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
        if (!h)
            break;
        CHECK(count_named("plugin::A") == 1 && count_named("plugin::Span") == 1 &&
                  count_named("plugin::Marker") == 1,
              "plugin events registered (round %d)", round);
        CHECK(bb_registry_snapshot(NULL, 0) == before + 3, "three more events");
        CHECK(count_views("CREATE VIEW plugin AS SELECT 2;") == 1, "plugin views");
        CHECK(bb_views_snapshot(NULL, 0) == views_before + 1, "one more view set");
        CHECK(bb_registry_generation() >= gen0 + 4, "generation bumped by the load");
        const bb_event_desc *const *pa = (const bb_event_desc *const *)dlsym(h, "plugin_a_desc");
        CHECK(pa && (*pa)->id == bb_event_id_compute(*pa), "plugin id stored");
        uint64_t gen1 = bb_registry_generation();
        CHECK(dlclose(h) == 0, "dlclose");
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
