/* registry.c — the registry's contract on hand-made descriptors: registration order,
 * idempotent add, de-duplication by id (first wins), capacity handling, removal from the
 * head, middle and tail, re-adding, view sets, the generation counter, lazy ids
 * (bb_event_id on a never-registered descriptor), and snapshots taken from a signal handler
 * while the registry is being modified. */
/* SPDX-License-Identifier: MIT */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "backbeat/event.h"

#include "check.h"

static const bb_field_desc F_U32 = {"x", NULL, NULL, NULL, 0, 0, 4, 0, BB_TYPE_U32, 0, 0, 0};
static const bb_field_desc F_U64 = {"x", NULL, NULL, NULL, 0, 0, 8, 0, BB_TYPE_U64, 0, 0, 0};

#define DESC(name, field) \
    { BB__ABI_LAYOUT, name, NULL, field, 1, 4, BB_PHASE_NONE, 0, NULL }
static bb_event_desc a = DESC("t::A", &F_U32);
static bb_event_desc b = DESC("t::B", &F_U32);
static bb_event_desc c = DESC("t::C", &F_U32);
static bb_event_desc a2 = DESC("t::A", &F_U32);      /* same content as a: same id */
static bb_event_desc a_other = DESC("t::A", &F_U64); /* same name, other layout */

/* Snapshot into `out`, return the count, checking that a larger array gives the same. */
static size_t snap(const bb_event_desc **out, size_t cap) { return bb_registry_snapshot(out, cap); }

static int order_is(const bb_event_desc *const *want, size_t n) {
    const bb_event_desc *got[16];
    size_t m = snap(got, 16);
    if (m != n) return 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) return 0;
    return 1;
}

static volatile sig_atomic_t handler_runs;
static volatile sig_atomic_t handler_bad;

static void on_signal(int sig) {
    (void)sig;
    const bb_event_desc *out[16];
    size_t n = bb_registry_snapshot(out, 16);
    const bb_view_desc *v[4];
    size_t nv = bb_views_snapshot(v, 4);
    (void)bb_registry_generation();
    if (n > 16 || nv > 4) handler_bad = 1;
    for (size_t i = 0; i < n && i < 16; i++)
        if (out[i]->id == 0 || out[i]->name == NULL) handler_bad = 1;
    handler_runs++;
}

int main(void) {
    /* Lazy id: a descriptor never registered gets its id on first use, once. */
    bb_event_desc lazy = DESC("t::Lazy", &F_U32);
    CHECK(lazy.id == 0, "starts at 0");
    uint64_t id = bb_event_id(&lazy);
    CHECK(id != 0 && id == bb_event_id_compute(&lazy) && lazy.id == id, "lazy id");
    CHECK(bb_event_id(&lazy) == id, "stable");

    CHECK(snap(NULL, 0) == 0, "empty registry");
    uint64_t g0 = bb_registry_generation();
    bb_registry_add(&a);
    bb_registry_add(&b);
    bb_registry_add(&c);
    CHECK(a.id == bb_event_id_compute(&a) && a.id != 0, "add fills the id");
    CHECK(bb_registry_generation() == g0 + 3, "generation counts adds");
    const bb_event_desc *abc[] = {&a, &b, &c};
    CHECK(order_is(abc, 3), "registration order");

    bb_registry_add(&b); /* idempotent */
    CHECK(order_is(abc, 3) && bb_registry_generation() == g0 + 3, "idempotent add");

    bb_registry_add(&a2); /* same id as a: listed once, a (first) wins */
    CHECK(a2.id == a.id, "same content, same id");
    CHECK(order_is(abc, 3), "duplicate id listed once, first wins");
    bb_registry_add(&a_other); /* same name, different id: listed */
    CHECK(a_other.id != a.id, "layout changes the id");
    const bb_event_desc *abco[] = {&a, &b, &c, &a_other};
    CHECK(order_is(abco, 4), "same name, other id is listed");

    /* Capacity smaller than the total: fills cap, returns the total. */
    const bb_event_desc *two[2] = {NULL, NULL};
    CHECK(snap(two, 2) == 4 && two[0] == &a && two[1] == &b, "cap 2 of 4");
    CHECK(snap(NULL, 0) == 4, "count only");
    /* De-duplication also counts right past the capacity (a2 duplicates a). */
    const bb_event_desc *one[1] = {NULL};
    CHECK(snap(one, 1) == 4 && one[0] == &a, "cap 1 of 4, a2 not counted");

    /* Removing the first registration of a duplicated id lets the second show, in its
     * registration position. */
    bb_registry_remove(&a);
    const bb_event_desc *bca2o[] = {&b, &c, &a2, &a_other};
    CHECK(order_is(bca2o, 4), "remove head: a2 takes over the id");
    bb_registry_remove(&a);  /* not linked: no-op */
    bb_registry_remove(&a2); /* middle */
    const bb_event_desc *bco[] = {&b, &c, &a_other};
    CHECK(order_is(bco, 3), "remove middle");
    bb_registry_remove(&a_other); /* tail */
    const bb_event_desc *bc[] = {&b, &c};
    CHECK(order_is(bc, 2), "remove tail");
    bb_registry_add(&a); /* re-added: now at the tail */
    const bb_event_desc *bca[] = {&b, &c, &a};
    CHECK(order_is(bca, 3), "re-add goes to the tail");
    uint64_t g1 = bb_registry_generation();
    CHECK(g1 == g0 + 3 + 2 + 3 + 1, "generation counts effective adds and removes (%llu)",
          (unsigned long long)(g1 - g0));

    /* View sets: order, idempotence, removal; copies with the same SQL text (a BB_VIEWS in a
     * header included by several files) are listed once, while any copy stays registered. */
    static bb_view_desc v1 = {BB__ABI_LAYOUT, "v1", "SELECT 1;", NULL};
    static bb_view_desc v2 = {BB__ABI_LAYOUT, "v2", "SELECT 2;", NULL};
    static bb_view_desc v1copy = {BB__ABI_LAYOUT, "v1copy", "SELECT 1;", NULL};
    CHECK(bb_views_snapshot(NULL, 0) == 0, "no views");
    bb_views_add(&v1);
    bb_views_add(&v2);
    bb_views_add(&v1);
    const bb_view_desc *vs[4];
    CHECK(bb_views_snapshot(vs, 4) == 2 && vs[0] == &v1 && vs[1] == &v2, "views order");
    CHECK(bb_registry_generation() == g1 + 2, "views bump the generation");
    bb_views_add(&v1copy);
    CHECK(bb_views_snapshot(vs, 4) == 2 && vs[0] == &v1 && vs[1] == &v2, "same text listed once");
    bb_views_remove(&v1);
    size_t nv = bb_views_snapshot(vs, 4);
    CHECK(nv == 2 && ((vs[0] == &v2 && vs[1] == &v1copy) || (vs[0] == &v1copy && vs[1] == &v2)),
          "the copy stays after the first is removed");
    bb_views_remove(&v1copy);
    CHECK(bb_views_snapshot(vs, 4) == 1 && vs[0] == &v2, "view removed");

    /* Snapshots from a signal handler, interleaved with adds and removes. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGUSR1, &sa, NULL);
    for (int i = 0; i < 2000; i++) {
        bb_registry_add(i & 1 ? &a2 : &a_other);
        raise(SIGUSR1);
        bb_registry_remove(i & 1 ? &a2 : &a_other);
        raise(SIGUSR1);
    }
    CHECK(handler_runs == 4000 && !handler_bad, "signal-handler snapshots");
    CHECK(order_is(bca, 3), "registry intact after the loop");

    bb_registry_remove(&a);
    bb_registry_remove(&b);
    bb_registry_remove(&c);
    bb_views_remove(&v2);
    CHECK(snap(NULL, 0) == 0 && bb_views_snapshot(NULL, 0) == 0, "emptied");
    printf("registry: %d failures\n", failures);
    return failures ? 1 : 0;
}
