/* ring_meta.c — the metadata log of ring files (docs/RING_FILE.md): every open ring file gets
 * the schemas and view sets registered before it was created, then each one registered later
 * (a dlopen'ed plugin), appended as checksummed entries so that a reader after a crash takes
 * the complete ones and skips a half-written one. One lock serialises appends to all files;
 * registration is not a hot path. The schema bytes are those of a dump's Schema section,
 * produced by the dump writer itself (one event, taken out of a one-event dump). */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backbeat/dump_writer.h"
#include "capture/recorder_internal.h"
#include "capture/registry_internal.h"
#include "capture/ring_backing.h"
#include "format/ring_file.h"
#include "format/wire.h"

static pthread_mutex_t g_meta_lock = PTHREAD_MUTEX_INITIALIZER;
static bb__ring_file *g_files; /* under g_meta_lock */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* fork: never copy the lock held; the child forgets the parent's files (their metadata is the
 * parent's to keep) and closes its copies of their descriptors, so that their lock (which says
 * "the writer is alive") goes when the parent goes, even if the child lives on. The mappings
 * stay: a file-backed recorder the child still uses keeps working. */
static void fork_prepare(void) { pthread_mutex_lock(&g_meta_lock); }
static void fork_parent(void) { pthread_mutex_unlock(&g_meta_lock); }
static void fork_child(void) {
    pthread_mutex_init(&g_meta_lock, NULL);
    for (bb__ring_file *rf = g_files; rf; rf = rf->next) {
        if (rf->fd >= 0) close(rf->fd);
        rf->fd = -1;
    }
    g_files = NULL;
}
static void note_event(const bb_event_desc *desc);
static void note_views(const bb_view_desc *views);
/* Once, before the first file is linked: the fork handlers, and the registry's hooks (so that a
 * registration racing with an attach is either in its snapshot or noted, see below). */
static void install_once(void) {
    pthread_atfork(fork_prepare, fork_parent, fork_child);
    bb__registry_set_hooks(note_event, note_views);
}

/* Append one entry to rf (g_meta_lock held). Head fields and payload, checksum, magic last. */
static void append(bb__ring_file *rf, uint16_t kind, const void *payload, uint32_t len) {
    uint8_t *b = rf->base;
    uint64_t meta_off, meta_len, tail;
    memcpy(&meta_off, b + BB_RH_META_OFF, 8);
    memcpy(&meta_len, b + BB_RH_META_LEN, 8);
    tail = __atomic_load_n((uint64_t *)(void *)(b + BB_RH_META_TAIL), __ATOMIC_RELAXED);
    uint64_t need = BB_RME_HEAD + ((uint64_t)len + 7) / 8 * 8;
    if (len > BB_RME_MAX_LEN || tail > meta_len || need > meta_len - tail) {
        __atomic_fetch_add((uint32_t *)(void *)(b + BB_RH_META_DROPPED), 1, __ATOMIC_RELAXED);
        return;
    }
    uint8_t *e = b + meta_off + tail;
    /* Claim the space first: a reader after a crash sees the tail cover this entry. */
    __atomic_store_n((uint64_t *)(void *)(b + BB_RH_META_TAIL), tail + need, __ATOMIC_RELEASE);
    uint64_t seq = rf->seq++;
    memcpy(e + BB_RME_OFF_KIND, &kind, 2);
    memcpy(e + BB_RME_OFF_LEN, &len, 4);
    memcpy(e + BB_RME_OFF_SEQ, &seq, 8);
    if (len) memcpy(e + BB_RME_HEAD, payload, len);
    uint32_t check = bb__rme_check(e, len);
    memcpy(e + BB_RME_OFF_CHECK, &check, 4);
    __atomic_store_n((uint32_t *)(void *)(e + BB_RME_OFF_MAGIC), BB_RME_MAGIC, __ATOMIC_RELEASE);
}

/* Add key to rf's set; false when it was there already (or cannot be remembered: then the
 * entry is appended again, which readers de-duplicate). Keys are never 0 (0 marks a free slot:
 * a zero key is remapped). */
static bool first_time(bb__ring_file *rf, uint64_t key) {
    if (!key) key = 1;
    if (rf->seen_n * 2 >= rf->seen_cap) {
        size_t cap = rf->seen_cap ? rf->seen_cap * 2 : 256;
        uint64_t *t = calloc(cap, sizeof *t);
        if (!t) return true;
        for (size_t i = 0; i < rf->seen_cap; i++) {
            if (!rf->seen[i]) continue;
            size_t j = (size_t)(rf->seen[i] * UINT64_C(0x9E3779B97F4A7C15) >> 20) & (cap - 1);
            while (t[j]) j = (j + 1) & (cap - 1);
            t[j] = rf->seen[i];
        }
        free(rf->seen);
        rf->seen = t;
        rf->seen_cap = cap;
    }
    size_t j = (size_t)(key * UINT64_C(0x9E3779B97F4A7C15) >> 20) & (rf->seen_cap - 1);
    for (; rf->seen[j]; j = (j + 1) & (rf->seen_cap - 1))
        if (rf->seen[j] == key) return false;
    rf->seen[j] = key;
    rf->seen_n++;
    return true;
}

/* The Schema-section entry of `desc` (malloc'ed, *len bytes), or NULL (not encodable, or no
 * memory): the dump writer's bytes for a dump holding only this schema, minus the count. */
static uint8_t *encode_event(const bb_event_desc *desc, uint32_t *len, uint8_t **whole) {
    bb_dump_input in;
    memset(&in, 0, sizeof in);
    in.events = &desc;
    in.event_count = 1;
    uint64_t size = bb_dump_size(&in);
    *whole = size ? malloc((size_t)size) : NULL;
    if (!*whole) return NULL;
    bb_buffer_sink sink = {*whole, (size_t)size, 0};
    if (bb_dump_write(&in, bb_sink_buffer(&sink), NULL, NULL) != BB_OK) return NULL;
    uint16_t kind;
    uint64_t off, slen;
    memcpy(&kind, *whole + BB_DUMP_ENVELOPE_SIZE, 2);
    memcpy(&off, *whole + BB_DUMP_ENVELOPE_SIZE + 4, 8);
    memcpy(&slen, *whole + BB_DUMP_ENVELOPE_SIZE + 12, 8);
    if (kind != BB_SECTION_SCHEMA || slen < BB_SCHEMA_HEADER_SIZE || off + slen > size ||
        slen - BB_SCHEMA_HEADER_SIZE > BB_RME_MAX_LEN)
        return NULL;
    *len = (uint32_t)(slen - BB_SCHEMA_HEADER_SIZE);
    return *whole + off + BB_SCHEMA_HEADER_SIZE;
}

static void append_event(bb__ring_file *rf, const bb_event_desc *desc) {
    if (!first_time(rf, desc->id)) return; /* the id is the hash of the schema's content */
    uint8_t *whole = NULL;
    uint32_t len = 0;
    const uint8_t *p = encode_event(desc, &len, &whole);
    if (p) append(rf, BB_RME_EVENT, p, len);
    free(whole);
}

static void append_views(bb__ring_file *rf, const bb_view_desc *v) {
    if (!v->sql) return;
    uint32_t len = (uint32_t)strnlen(v->sql, BB_RME_MAX_LEN + 1);
    /* keyed apart from event ids by the top bit flipped (a collision only skips an entry) */
    if (first_time(rf, bb__ring_fnv64(v->sql, len) ^ (UINT64_C(1) << 63)))
        append(rf, BB_RME_VIEWS, v->sql, len);
}

/* Everything registered so far, into rf (g_meta_lock held). */
static bb_status append_all(bb__ring_file *rf) {
    size_t cap = 64, n;
    const bb_event_desc **ev = NULL;
    for (;;) {
        free(ev);
        ev = malloc(cap * sizeof *ev);
        if (!ev) return BB_ERR_NOMEM;
        n = bb__registry_snapshot_dump(ev, cap);
        if (n <= cap) break;
        cap = n + 64;
    }
    for (size_t i = 0; i < n; i++) append_event(rf, ev[i]);
    free(ev);
    const bb_view_desc **vs = NULL;
    for (cap = 16;;) {
        free(vs);
        vs = malloc(cap * sizeof *vs);
        if (!vs) return BB_ERR_NOMEM;
        n = bb_views_snapshot(vs, cap);
        if (n <= cap) break;
        cap = n + 16;
    }
    for (size_t i = 0; i < n; i++) append_views(rf, vs[i]);
    free(vs);
    return BB_OK;
}

/* Contract: see ring_backing.h. Linked and filled under the lock: a registration racing with
 * it either is in the snapshot (its hook waits for the lock) or was added to the registry
 * before the snapshot; either way it is appended at least once (the reader de-duplicates
 * schemas by id). */
bb_status bb__ring_meta_attach(bb__ring_file *rf) {
    pthread_once(&g_once, install_once);
    pthread_mutex_lock(&g_meta_lock);
    rf->next = g_files;
    g_files = rf;
    bb_status st = append_all(rf);
    pthread_mutex_unlock(&g_meta_lock);
    return st;
}

/* Contract: see ring_backing.h. */
void bb__ring_meta_detach(bb__ring_file *rf) {
    pthread_mutex_lock(&g_meta_lock);
    for (bb__ring_file **p = &g_files; *p; p = &(*p)->next)
        if (*p == rf) {
            *p = rf->next;
            break;
        }
    pthread_mutex_unlock(&g_meta_lock);
}

/* The registry's hook (after an effective add): append to every open file. */
static void note_event(const bb_event_desc *desc) {
    pthread_mutex_lock(&g_meta_lock);
    for (bb__ring_file *rf = g_files; rf; rf = rf->next) append_event(rf, desc);
    pthread_mutex_unlock(&g_meta_lock);
}

/* The registry's hook for view sets. */
static void note_views(const bb_view_desc *views) {
    pthread_mutex_lock(&g_meta_lock);
    for (bb__ring_file *rf = g_files; rf; rf = rf->next) append_views(rf, views);
    pthread_mutex_unlock(&g_meta_lock);
}
