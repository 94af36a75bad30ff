/* registry.c — the process-wide registry of event schemas and view sets.
 *
 * Two intrusive singly linked lists in registration order, linked through the descriptors'
 * own `registry_next` fields (descriptors are static data of the object that defines them, so
 * nothing is allocated). Writers (add/remove, called from constructors and destructors) are
 * serialised by a mutex. Readers (snapshots, generation) take no lock and do not allocate, so
 * they are async-signal-safe: every link is published with a release store and followed with
 * an acquire load, and a descriptor's id is stored before it is linked.
 *
 * A removed descriptor keeps its `registry_next`, so a reader standing on it still reaches the
 * rest of the list. Its memory belongs to the object being unloaded: a reader that races a
 * dlclose of that object may touch unmapped memory. That is a documented limitation (dumping
 * while unloading a plugin); nothing here frees a descriptor.
 */
#include <pthread.h>
#include <stddef.h>

#include "backbeat/event.h"
#include "backbeat/registry.h"
#include "capture/abi_check.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bb_event_desc *g_events; /* head; atomic accesses only */
static bb_view_desc *g_views;   /* head; atomic accesses only */
static uint64_t g_generation;   /* atomic accesses only */

/* fork() while another thread is inside add/remove would leave the child's copy of the lock
 * held forever (and its exit-time destructors, which unregister, would hang). Hold the lock
 * across fork and release it on both sides. */
static void fork_prepare(void) { pthread_mutex_lock(&g_lock); }
static void fork_parent(void) { pthread_mutex_unlock(&g_lock); }
static void fork_child(void) { pthread_mutex_unlock(&g_lock); }

__attribute__((constructor)) static void registry_init(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

#define LOAD(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define STORE(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

static void bump(void) { __atomic_add_fetch(&g_generation, 1, __ATOMIC_RELEASE); }

/* Link `desc` at the tail unless it is already linked; fill its id first. */
void bb_registry_add(bb_event_desc *desc)
{
    if (!desc || !bb__abi_accept(desc, "events", true))
        return;
    bb_event_id_resolve(desc);
    pthread_mutex_lock(&g_lock);
    bb_event_desc *tail = NULL;
    for (bb_event_desc *d = LOAD(g_events); d; d = LOAD(d->registry_next)) {
        if (d == desc) {
            pthread_mutex_unlock(&g_lock);
            return;
        }
        tail = d;
    }
    STORE(desc->registry_next, (bb_event_desc *)NULL);
    if (tail)
        STORE(tail->registry_next, desc);
    else
        STORE(g_events, desc);
    bump();
    pthread_mutex_unlock(&g_lock);
}

/* Unlink `desc` if it is linked. Its own link is left intact for racing readers. */
void bb_registry_remove(bb_event_desc *desc)
{
    if (!desc || !bb__abi_accept(desc, "events", true))
        return;
    pthread_mutex_lock(&g_lock);
    bb_event_desc *prev = NULL;
    for (bb_event_desc *d = LOAD(g_events); d; prev = d, d = LOAD(d->registry_next)) {
        if (d != desc)
            continue;
        bb_event_desc *next = LOAD(d->registry_next);
        if (prev)
            STORE(prev->registry_next, next);
        else
            STORE(g_events, next);
        bump();
        break;
    }
    pthread_mutex_unlock(&g_lock);
}

/* True if a descriptor linked before `d` (walking from the head) has id `id`. */
static int seen_before(const bb_event_desc *d, uint64_t id)
{
    for (const bb_event_desc *e = LOAD(g_events); e && e != d; e = LOAD(e->registry_next))
        if (__atomic_load_n(&e->id, __ATOMIC_RELAXED) == id)
            return 1;
    return 0;
}

/* Distinct descriptors (first registration of each id wins), registration order. Lock-free,
 * allocation-free, O(n^2): async-signal-safe. While every distinct id so far fits in `out`,
 * duplicates are found there (an array scan); past `cap`, by walking the list before the
 * descriptor. Racing adds/removes may make one snapshot miss a descriptor being added or
 * removed, or (beyond `cap`) count one twice; the entries written to `out` are always distinct
 * by id (a descriptor removed and re-added at the tail during the walk can be met twice). */
size_t bb_registry_snapshot(const bb_event_desc **out, size_t cap)
{
    size_t n = 0;
    if (!out)
        cap = 0;
    for (const bb_event_desc *d = LOAD(g_events); d; d = LOAD(d->registry_next)) {
        uint64_t id = __atomic_load_n(&d->id, __ATOMIC_RELAXED);
        int dup = 0;
        for (size_t i = 0; i < n && i < cap && !dup; i++)
            dup = __atomic_load_n(&out[i]->id, __ATOMIC_RELAXED) == id;
        if (!dup && n >= cap)
            dup = seen_before(d, id);
        if (dup)
            continue;
        if (n < cap)
            out[n] = d;
        n++;
    }
    return n;
}

/* Bumped on every effective add or remove (of events or view sets). Async-signal-safe. */
uint64_t bb_registry_generation(void) { return __atomic_load_n(&g_generation, __ATOMIC_ACQUIRE); }

/* View sets: the same list discipline, no de-duplication. */
void bb_views_add(bb_view_desc *views)
{
    if (!views || !bb__abi_accept(views, "view sets", true))
        return;
    pthread_mutex_lock(&g_lock);
    bb_view_desc *tail = NULL;
    for (bb_view_desc *v = LOAD(g_views); v; v = LOAD(v->registry_next)) {
        if (v == views) {
            pthread_mutex_unlock(&g_lock);
            return;
        }
        tail = v;
    }
    STORE(views->registry_next, (bb_view_desc *)NULL);
    if (tail)
        STORE(tail->registry_next, views);
    else
        STORE(g_views, views);
    bump();
    pthread_mutex_unlock(&g_lock);
}

void bb_views_remove(bb_view_desc *views)
{
    if (!views || !bb__abi_accept(views, "view sets", true))
        return;
    pthread_mutex_lock(&g_lock);
    bb_view_desc *prev = NULL;
    for (bb_view_desc *v = LOAD(g_views); v; prev = v, v = LOAD(v->registry_next)) {
        if (v != views)
            continue;
        bb_view_desc *next = LOAD(v->registry_next);
        if (prev)
            STORE(prev->registry_next, next);
        else
            STORE(g_views, next);
        bump();
        break;
    }
    pthread_mutex_unlock(&g_lock);
}

/* Registered view sets in registration order. Lock-free, allocation-free. */
size_t bb_views_snapshot(const bb_view_desc **out, size_t cap)
{
    size_t n = 0;
    for (const bb_view_desc *v = LOAD(g_views); v; v = LOAD(v->registry_next)) {
        if (out && n < cap)
            out[n] = v;
        n++;
    }
    return n;
}
