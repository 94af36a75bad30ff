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
 *
 * Unloaded schemas. Records of an unloaded plugin stay in the rings, so dumps must still
 * describe them: bb_registry_remove of the last linked descriptor of an id makes a deep copy
 * (descriptor, fields, labels and every string in one malloc'ed block, library-owned) and
 * appends it to a third list, `g_unloaded`. That list only grows (one copy per id, at most
 * BB_UNLOADED_MAX_BYTES in all; past it a schema is dropped as before) and is never freed, so
 * its readers need no more care than the others'. bb_registry_snapshot lists the registered
 * descriptors only; bb__registry_snapshot_dump (registry_internal.h), what dumps write, lists
 * them and then the unloaded copies whose id no registered descriptor has.
 */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/event.h"
#include "backbeat/registry.h"
#include "capture/abi_check.h"
#include "capture/registry_internal.h"
#include "capture/trigger_hook.h"

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bb_event_desc *g_events;            /* head; atomic accesses only */
static bb_view_desc *g_views;              /* head; atomic accesses only */
static uint64_t g_generation;              /* atomic accesses only */
static bb_event_desc *g_unloaded;          /* head of the unloaded copies; atomic accesses only */
static size_t g_unloaded_bytes;            /* under g_lock */
static bb__arm_fn g_arm;                   /* under g_lock (trigger_hook.h) */
uint8_t bb__armed[BB__ARMED_SLOTS];        /* recorder_inline.h; set only, never cleared */
static bb__registry_event_hook g_on_event; /* under g_lock (registry_internal.h) */
static bb__registry_views_hook g_on_views; /* under g_lock */

/* fork() while another thread is inside add/remove would leave the child's copy of the lock
 * held forever (and its exit-time destructors, which unregister, would hang). Hold the lock
 * across fork and release it on both sides. */
static void fork_prepare(void) { pthread_mutex_lock(&g_lock); }
static void fork_parent(void) { pthread_mutex_unlock(&g_lock); }
static void fork_child(void) { pthread_mutex_unlock(&g_lock); }

__attribute__((constructor)) static void registry_init(void) {
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

#define LOAD(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define STORE(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

static void bump(void) { __atomic_add_fetch(&g_generation, 1, __ATOMIC_RELEASE); }

/* ---- unloaded copies (see the file comment) ------------------------------------------------ */

static size_t str_size(const char *s) { return s ? strlen(s) + 1 : 0; }

/* Bytes of one deep copy of `d`: the descriptor, its fields, their labels, then the strings. */
static size_t copy_size(const bb_event_desc *d) {
    size_t n = sizeof *d + (size_t)d->field_count * sizeof *d->fields;
    size_t strings = str_size(d->name) + str_size(d->description);
    for (uint16_t i = 0; i < d->field_count; i++) {
        const bb_field_desc *f = &d->fields[i];
        n += (size_t)f->label_count * sizeof *f->labels;
        strings += str_size(f->name) + str_size(f->description) + str_size(f->unit);
        for (uint16_t l = 0; l < f->label_count; l++) strings += str_size(f->labels[l].label);
    }
    return n + strings;
}

/* Copy string `s` to *pool (advancing it); NULL stays NULL. */
static const char *copy_str(char **pool, const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    memcpy(*pool, s, n);
    const char *r = *pool;
    *pool += n;
    return r;
}

/* A deep copy of `d` in one block of `size` bytes (copy_size), unlinked, or NULL. */
static bb_event_desc *deep_copy(const bb_event_desc *d, size_t size) {
    bb_event_desc *c = malloc(size);
    if (!c) return NULL;
    bb_field_desc *fields = (bb_field_desc *)(c + 1);
    bb_enum_label *labels = (bb_enum_label *)(fields + d->field_count);
    size_t nlabels = 0;
    for (uint16_t i = 0; i < d->field_count; i++) nlabels += d->fields[i].label_count;
    char *pool = (char *)(labels + nlabels);
    *c = *d;
    c->name = copy_str(&pool, d->name);
    c->description = copy_str(&pool, d->description);
    c->fields = d->field_count ? fields : NULL;
    c->id = __atomic_load_n(&d->id, __ATOMIC_RELAXED);
    c->registry_next = NULL;
    for (uint16_t i = 0; i < d->field_count; i++) {
        const bb_field_desc *f = &d->fields[i];
        bb_field_desc *g = &fields[i];
        *g = *f;
        g->name = copy_str(&pool, f->name);
        g->description = copy_str(&pool, f->description);
        g->unit = copy_str(&pool, f->unit);
        g->labels = f->label_count ? labels : NULL;
        for (uint16_t l = 0; l < f->label_count; l++) {
            labels[l].value = f->labels[l].value;
            labels[l].label = copy_str(&pool, f->labels[l].label);
        }
        labels += f->label_count;
    }
    return c;
}

/* Under g_lock, after `desc` was unlinked: keep a copy of its schema unless a linked
 * descriptor or an earlier copy has its id, or the budget is spent. */
static void keep_unloaded(const bb_event_desc *desc) {
    uint64_t id = __atomic_load_n(&desc->id, __ATOMIC_RELAXED);
    for (const bb_event_desc *d = LOAD(g_events); d; d = LOAD(d->registry_next))
        if (__atomic_load_n(&d->id, __ATOMIC_RELAXED) == id) return;
    bb_event_desc *tail = NULL;
    for (bb_event_desc *d = LOAD(g_unloaded); d; d = LOAD(d->registry_next)) {
        if (d->id == id) return;
        tail = d;
    }
    size_t size = copy_size(desc);
    if (size > BB_UNLOADED_MAX_BYTES - g_unloaded_bytes) return;
    bb_event_desc *c = deep_copy(desc, size);
    if (!c) return;
    g_unloaded_bytes += size;
    if (tail) STORE(tail->registry_next, c);
    else STORE(g_unloaded, c);
}

/* Link `desc` at the tail unless it is already linked; fill its id first. */
void bb_registry_add(bb_event_desc *desc) {
    if (!desc || !bb__abi_accept(desc, "events", true)) return;
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
    if (g_arm && g_arm(desc))
        __atomic_store_n(&bb__armed[desc->id & (BB__ARMED_SLOTS - 1)], 1, __ATOMIC_RELAXED);
    if (tail) STORE(tail->registry_next, desc);
    else STORE(g_events, desc);
    bump();
    bb__registry_event_hook hook = g_on_event;
    pthread_mutex_unlock(&g_lock);
    if (hook) hook(desc); /* ring files keep their metadata current */
}

/* Unlink `desc` if it is linked. Its own link is left intact for racing readers. */
void bb_registry_remove(bb_event_desc *desc) {
    if (!desc || !bb__abi_accept(desc, "events", true)) return;
    pthread_mutex_lock(&g_lock);
    bb_event_desc *prev = NULL;
    for (bb_event_desc *d = LOAD(g_events); d; prev = d, d = LOAD(d->registry_next)) {
        if (d != desc) continue;
        bb_event_desc *next = LOAD(d->registry_next);
        if (prev) STORE(prev->registry_next, next);
        else STORE(g_events, next);
        keep_unloaded(desc);
        bump();
        break;
    }
    pthread_mutex_unlock(&g_lock);
}

/* True if a descriptor linked before `d` (walking from the head) has id `id`. */
static int seen_before(const bb_event_desc *d, uint64_t id) {
    for (const bb_event_desc *e = LOAD(g_events); e && e != d; e = LOAD(e->registry_next))
        if (__atomic_load_n(&e->id, __ATOMIC_RELAXED) == id) return 1;
    return 0;
}

/* Distinct descriptors (first registration of each id wins), registration order. Lock-free,
 * allocation-free, O(n^2): async-signal-safe. While every distinct id so far fits in `out`,
 * duplicates are found there (an array scan); past `cap`, by walking the list before the
 * descriptor. Racing adds/removes may make one snapshot miss a descriptor being added or
 * removed, or (beyond `cap`) count one twice; the entries written to `out` are always distinct
 * by id (a descriptor removed and re-added at the tail during the walk can be met twice). */
size_t bb_registry_snapshot(const bb_event_desc **out, size_t cap) {
    size_t n = 0;
    if (!out) cap = 0;
    for (const bb_event_desc *d = LOAD(g_events); d; d = LOAD(d->registry_next)) {
        uint64_t id = __atomic_load_n(&d->id, __ATOMIC_RELAXED);
        int dup = 0;
        for (size_t i = 0; i < n && i < cap && !dup; i++)
            dup = __atomic_load_n(&out[i]->id, __ATOMIC_RELAXED) == id;
        if (!dup && n >= cap) dup = seen_before(d, id);
        if (dup) continue;
        if (n < cap) out[n] = d;
        n++;
    }
    return n;
}

/* True if an unloaded copy before `d` (from the head of g_unloaded) has id `id`. */
static int unloaded_seen_before(const bb_event_desc *d, uint64_t id) {
    for (const bb_event_desc *e = LOAD(g_unloaded); e && e != d; e = LOAD(e->registry_next))
        if (e->id == id) return 1;
    return 0;
}

/* bb_registry_snapshot, then the unloaded copies whose id is not listed yet (unload order).
 * Same discipline: lock-free, allocation-free, async-signal-safe. */
size_t bb__registry_snapshot_dump(const bb_event_desc **out, size_t cap) {
    if (!out) cap = 0;
    size_t live = bb_registry_snapshot(out, cap);
    size_t n = live;
    for (const bb_event_desc *d = LOAD(g_unloaded); d; d = LOAD(d->registry_next)) {
        uint64_t id = d->id;
        int dup = 0;
        for (size_t i = 0; i < n && i < cap && !dup; i++)
            dup = __atomic_load_n(&out[i]->id, __ATOMIC_RELAXED) == id;
        if (!dup && n >= cap) dup = seen_before(NULL, id) || unloaded_seen_before(d, id);
        if (dup) continue;
        if (n < cap) out[n] = d;
        n++;
    }
    return n;
}

/* Bumped on every effective add or remove (of events or view sets). Async-signal-safe. */
uint64_t bb_registry_generation(void) { return __atomic_load_n(&g_generation, __ATOMIC_ACQUIRE); }

/* True when a view set listed before `stop` (NULL: anywhere) has the same SQL text as `v`: a
 * BB_VIEWS in a header registers once per translation unit, and its copies count as one. */
static bool views_seen(const bb_view_desc *v, const bb_view_desc *stop) {
    for (const bb_view_desc *u = LOAD(g_views); u && u != stop; u = LOAD(u->registry_next))
        if (u != v && u->sql && v->sql && strcmp(u->sql, v->sql) == 0) return true;
    return false;
}

/* View sets: the same list discipline; every copy is listed (each TU's may be unloaded on its
 * own), equal copies are one set in snapshots and ring files (de-duplicated by SQL text). */
void bb_views_add(bb_view_desc *views) {
    if (!views || !bb__abi_accept(views, "view sets", true)) return;
    pthread_mutex_lock(&g_lock);
    bb_view_desc *tail = NULL;
    for (bb_view_desc *v = LOAD(g_views); v; v = LOAD(v->registry_next)) {
        if (v == views) {
            pthread_mutex_unlock(&g_lock);
            return;
        }
        tail = v;
    }
    const bool dup = views_seen(views, NULL);
    STORE(views->registry_next, (bb_view_desc *)NULL);
    if (tail) STORE(tail->registry_next, views);
    else STORE(g_views, views);
    bump();
    bb__registry_views_hook hook = g_on_views;
    pthread_mutex_unlock(&g_lock);
    if (hook && !dup) hook(views);
}

void bb_views_remove(bb_view_desc *views) {
    if (!views || !bb__abi_accept(views, "view sets", true)) return;
    pthread_mutex_lock(&g_lock);
    bb_view_desc *prev = NULL;
    for (bb_view_desc *v = LOAD(g_views); v; prev = v, v = LOAD(v->registry_next)) {
        if (v != views) continue;
        bb_view_desc *next = LOAD(v->registry_next);
        if (prev) STORE(prev->registry_next, next);
        else STORE(g_views, next);
        bump();
        break;
    }
    pthread_mutex_unlock(&g_lock);
}

/* Contract: see trigger_hook.h. */
void bb__registry_arm(bb__arm_fn want) {
    pthread_mutex_lock(&g_lock);
    g_arm = want;
    for (bb_event_desc *d = LOAD(g_events); d; d = LOAD(d->registry_next))
        if (want && want(d))
            __atomic_store_n(&bb__armed[d->id & (BB__ARMED_SLOTS - 1)], 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&g_lock);
}

/* Contract: see registry_internal.h. */
void bb__registry_set_hooks(bb__registry_event_hook on_event, bb__registry_views_hook on_views) {
    pthread_mutex_lock(&g_lock);
    g_on_event = on_event;
    g_on_views = on_views;
    pthread_mutex_unlock(&g_lock);
}

/* Registered view sets in registration order, each SQL text once. Lock-free, allocation-free. */
size_t bb_views_snapshot(const bb_view_desc **out, size_t cap) {
    size_t n = 0;
    for (const bb_view_desc *v = LOAD(g_views); v; v = LOAD(v->registry_next)) {
        if (views_seen(v, v)) continue;
        if (out && n < cap) out[n] = v;
        n++;
    }
    return n;
}
