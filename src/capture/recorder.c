/* recorder.c — the bb_recorder object: creation (rings, cursors, clock, CPU hint, intern table,
 * instance id, host), enable/disable, accessors, the function forms of recording and the slow
 * paths of the inline fast path (wrap at the ring end, record too large). Dumps are in
 * recorder_dump.c, clocks (and the clock accessors) in clock.c, the CPU hint in cpu.c,
 * interning in intern.c. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "backbeat/event.h"
#include "capture/abi_check.h"
#include "capture/recorder_internal.h"
#include "capture/ring_backing.h"
#include "capture/trigger_hook.h"
#include "common/error_set.h"
#include "format/rseq_margin.h"

/* Contract: zero every option (each field's default). */
void bb_recorder_options_init(bb_recorder_options *opts) {
    if (opts) memset(opts, 0, sizeof *opts);
}

static uint64_t random_u64(void) {
    uint64_t v = 0;
    while (v == 0) {
        if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
            /* No entropy source: mix the clock, the pid and an address. */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            v = ((uint64_t)ts.tv_nsec << 32) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 48) ^
                (uint64_t)(uintptr_t)&v;
            v *= UINT64_C(0x9E3779B97F4A7C15);
        }
    }
    return v;
}

/* Ring geometry from the options: shards and a power-of-two capacity (log2). */
static bb_status geometry(const bb_recorder_options *opts, uint32_t *shards_out,
                          uint32_t *log2_out) {
    uint32_t shards = opts->shards;
    if (shards == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        shards = n < 1 ? 1u : n > 64 ? 64u : (uint32_t)n;
    }
    if (shards > 4096) return BB_ERR_INVALID;
    uint64_t want = opts->bytes_per_shard ? opts->bytes_per_shard : (UINT64_C(1) << 20);
    if (want > (UINT64_C(1) << 40)) return BB_ERR_INVALID;
    uint32_t log2 = 12; /* at least 4096: a record of <= 4096 bytes always fits */
    while ((UINT64_C(1) << log2) < want) log2++;
    uint64_t cap = UINT64_C(1) << log2;
    if (cap * shards / shards != cap || cap * shards > (UINT64_C(1) << 46)) return BB_ERR_INVALID;
    *shards_out = shards;
    *log2_out = log2;
    return BB_OK;
}

/* Instance id and host label (before the storage: a ring file's header carries them). */
static void identity(bb_recorder *rec, const bb_recorder_options *opts) {
    rec->instance_id = opts->instance_id ? opts->instance_id : random_u64();
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    rec->start_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    if (opts->host) {
        strncpy(rec->host, opts->host, sizeof rec->host - 1);
    } else if (gethostname(rec->host, sizeof rec->host - 1) != 0) {
        rec->host[0] = 0;
    }
    rec->host[sizeof rec->host - 1] = 0;
}

/* Anonymous storage: rings, cursors and the intern table in private memory. */
static bb_status anon_storage(bb_recorder *rec, uint32_t entries, uint32_t bytes) {
    struct bb__recorder_hot *h = &rec->hot;
    rec->rings_len = (size_t)(h->capacity * h->shard_count);
    void *rings =
        mmap(NULL, rec->rings_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    h->rings = rings == MAP_FAILED ? NULL : rings;
    h->slot_base = bb__inflight_global_base();
    h->cursors = aligned_alloc(128, sizeof(struct bb__cursor) * h->shard_count);
    if (h->cursors) memset(h->cursors, 0, sizeof(struct bb__cursor) * h->shard_count);
    if (!h->cursors) return BB_ERR_NOMEM;
    bb_status st = bb__intern_table_init(&rec->intern, entries, bytes, h);
    if (st != BB_OK) return st;
    return h->rings && h->cursors ? BB_OK : BB_ERR_NOMEM;
}

/* Start keeping each shard's largest out-of-line rseq frame (src/format/rseq_margin.h); a kept
 * ring file's values stay. */
static void keep_frames(struct bb__recorder_hot *h) {
    for (uint32_t i = 0; i < h->shard_count; i++)
        if (h->cursors[i].big_frame == 0) h->cursors[i].big_frame = BB_RSEQ_FRAME_KEPT;
}

/* Create a recorder; with `dir`, its storage is a ring file there (ring_backing.c). */
/* The intern table's size where the options leave it 0 (recorder.h): 16384 strings and 1 MiB,
 * or for rings of `rings` bytes in all (0: a ring file's, one generation) one string per 20
 * bytes of them, 48 bytes each: the table then keeps every string that rings full of records
 * of 26 bytes or more, each naming its own string of up to ~40 bytes, hold, plus the two
 * generations of slack recycling needs (docs/guide/instrument.md, "Generations").
 * That reserves ~4 bytes per ring byte, so the default stops at BB__INTERN_DEFAULT_MAX strings
 * (4 Mi: 192 MiB of string bytes, 320 MiB in all with entries and hash slots): rings past
 * 80 MiB are rarely all distinct strings, 1 GiB of them would otherwise reserve 4 GiB more
 * (refused under vm.overcommit_memory=2), and a program that does need more says so
 * (BACKBEAT_INTERN_LIMIT). */
#define BB__INTERN_DEFAULT_MAX (1u << 22)
static void intern_defaults(uint32_t *entries, uint32_t *bytes, uint64_t rings) {
    uint64_t e = rings / 20;
    if (e > BB__INTERN_DEFAULT_MAX) e = BB__INTERN_DEFAULT_MAX;
    if (!*entries) *entries = e > 16384 ? (uint32_t)e : 16384;
    uint64_t b = rings ? (uint64_t)*entries * 48 : 0;
    if (b > (1ull << 31)) b = 1ull << 31;
    if (!*bytes) *bytes = b > (1u << 20) ? (uint32_t)b : (1u << 20);
}

static bb_status build(const bb_recorder_options *opts_in, const char *dir, bool keep,
                       bb_recorder **out, bb_error *err) {
    if (!out) return bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "recorder: out is NULL");
    *out = NULL;
    bb_recorder_options opts;
    if (opts_in) opts = *opts_in;
    else bb_recorder_options_init(&opts);
    uint32_t shards, log2;
    bb_status st = geometry(&opts, &shards, &log2);
    if (st != BB_OK)
        return bb__err_set(err, st, UINT64_MAX, NULL, "recorder: invalid shard count or size");
    uint64_t cap = UINT64_C(1) << log2;

    bb_recorder *rec = aligned_alloc(128, (sizeof *rec + 127) / 128 * 128);
    if (!rec) return bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "recorder: out of memory");
    memset(rec, 0, sizeof *rec);
    struct bb__recorder_hot *h = &rec->hot;

    const char *why = NULL;
    st = bb__clock_setup(h, &opts, &rec->clock_kind, &why);
    if (st != BB_OK) {
        free(rec);
        return bb__err_set(err, st, UINT64_MAX, NULL, "recorder: %s", why ? why : "clock");
    }
    bb__cpu_setup(h);
    h->shard_count = shards;
    h->capacity = cap;
    h->cap_log2 = log2;
    h->mask = cap - 1;
    h->fastmod_m = UINT64_MAX / shards + 1;
    h->serial = bb__serial_next();
    h->tag_base = ((h->serial & 0xFFFFu) << 16) + 1;
    identity(rec, &opts);
    bb__commit_setup(h);

    uint32_t entries = opts.intern_entries, bytes = opts.intern_bytes;
    intern_defaults(&entries, &bytes, dir ? 0 : (uint64_t)shards * cap);
    rec->sig_events = calloc(BB_SIG_MAX_EVENTS, sizeof *rec->sig_events);
    rec->sig_views = calloc(BB_SIG_MAX_VIEWS, sizeof *rec->sig_views);
    rec->sig_view_sql = calloc(BB_SIG_MAX_VIEWS, sizeof *rec->sig_view_sql);
    h->ring_of = malloc(sizeof *h->ring_of * shards);
    if (dir) st = bb__ring_backing_create(rec, dir, keep, entries, bytes, err);
    else st = anon_storage(rec, entries, bytes);
    if (st == BB_OK) keep_frames(&rec->hot);
    if (st == BB_OK)
        rec->sig_marks = calloc(((size_t)rec->intern.cap_entries + 63) / 64, sizeof(uint64_t));
    if (st != BB_OK || !h->ring_of || !rec->sig_events || !rec->sig_views || !rec->sig_view_sql ||
        !rec->sig_marks) {
        bb_recorder_free(rec);
        if (st == BB_OK || !dir) {
            st = st == BB_ERR_INVALID ? st : BB_ERR_NOMEM;
            bb__err_set(err, st, UINT64_MAX, NULL, "recorder: %s", bb_strerror(st));
        }
        return st;
    }
    for (uint32_t i = 0; i < shards; i++) h->ring_of[i] = h->rings + ((uint64_t)i << log2);
    *out = rec;
    return BB_OK;
}

/* Contract: see recorder.h. */
bb_status bb_recorder_create(const bb_recorder_options *opts, bb_recorder **out) {
    return build(opts, NULL, false, out, NULL);
}

/* Contract: see recorder.h. */
bb_status bb_recorder_create_ring(const bb_recorder_options *opts, const char *dir, bool keep,
                                  bb_recorder **out, bb_error *err) {
    if (!dir || !*dir) {
        if (out) *out = NULL;
        return bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "recorder: no ring directory");
    }
    return build(opts, dir, keep, out, err);
}

/* Contract: see recorder.h. */
const char *bb_recorder_ring_path(const bb_recorder *rec) {
    return rec && rec->ring ? rec->ring->path : NULL;
}

/* Contract: see recorder.h. */
bb_recorder *bb_recorder_new(uint32_t shards, uint64_t bytes_per_shard) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = shards;
    o.bytes_per_shard = bytes_per_shard;
    bb_recorder *rec = NULL;
    return bb_recorder_create(&o, &rec) == BB_OK ? rec : NULL;
}

/* Contract: see recorder.h. */
void bb_recorder_free(bb_recorder *rec) {
    if (!rec) return;
    if (rec->trigger_drop) rec->trigger_drop(rec->trigger_ctx); /* stops the trigger thread */
    bb__intern_table_destroy(&rec->intern);
    if (rec->ring) {
        bb__ring_backing_close(rec); /* rings, cursors and intern memory live in the file */
    } else {
        if (rec->hot.rings) munmap(rec->hot.rings, rec->rings_len);
        free(rec->hot.cursors);
    }
    if (rec->scratch) munmap(rec->scratch, (size_t)rec->hot.capacity); /* recorder_dump.c's */
    free(rec->hot.ring_of);
    free(rec->sig_events);
    free(rec->sig_views);
    free(rec->sig_view_sql);
    free(rec->sig_marks);
    free(rec);
}

void bb_recorder_enable(bb_recorder *rec, bool on) {
    /* The layout tag as the "on" value: inline code of another layout sees it off (abi.h). */
    if (rec) __atomic_store_n(&rec->hot.enabled, on ? BB__ABI_LAYOUT : 0u, __ATOMIC_RELAXED);
}

bool bb_recorder_enabled(const bb_recorder *rec) { return bb__recorder_on(rec); }

bb_clock_kind bb_recorder_clock_kind(const bb_recorder *rec) {
    return rec ? rec->clock_kind : BB_CLOCK_DEFAULT;
}

const char *bb_recorder_clock_name(const bb_recorder *rec) {
    switch (bb_recorder_clock_kind(rec)) {
    case BB_CLOCK_TSC: return "tsc";
    case BB_CLOCK_MONOTONIC: return "monotonic";
    case BB_CLOCK_MANUAL: return "manual";
    case BB_CLOCK_USER: return "user";
    default: return "none";
    }
}

const char *bb_recorder_cpu_hint_name(const bb_recorder *rec) {
    if (!rec) return "none";
    return rec->hot.cpu_mode == BB__CPU_RSEQ     ? "rseq"
           : rec->hot.cpu_mode == BB__CPU_THREAD ? "thread"
                                                 : "getcpu";
}

uint32_t bb_recorder_shard_count(const bb_recorder *rec) { return rec ? rec->hot.shard_count : 0; }
uint64_t bb_recorder_shard_capacity(const bb_recorder *rec) { return rec ? rec->hot.capacity : 0; }
uint64_t bb_recorder_instance_id(const bb_recorder *rec) { return rec ? rec->instance_id : 0; }
const char *bb_recorder_host(const bb_recorder *rec) { return rec ? rec->host : ""; }

void bb_recorder_stats_get(const bb_recorder *rec, bb_recorder_stats *out) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!rec) return;
    out->too_large = __atomic_load_n(&rec->too_large, __ATOMIC_RELAXED);
    out->intern_full = __atomic_load_n(&rec->intern.full_count, __ATOMIC_RELAXED);
    out->intern_count = bb__intern_table_count(&rec->intern);
}

/* Copy n bytes to absolute position `pos` of a ring of `cap` bytes, wrapping at its end. */
static void ring_put(uint8_t *ring, uint64_t cap, uint64_t pos, const void *src, size_t n) {
    uint64_t off = pos & (cap - 1);
    uint64_t first = cap - off < n ? cap - off : n;
    memcpy(ring + off, src, (size_t)first);
    if (first < n) memcpy(ring, (const uint8_t *)src + first, n - (size_t)first);
}

/* Contract: write the record reserved at `pos` of `shard` when it crosses the physical end of
 * the ring (the fast path's rarely taken branch). */
void bb__record_wrap(bb_recorder *rec, uint32_t shard, uint64_t pos, uint64_t ts, uint64_t id,
                     const void *fields, size_t size) {
    struct bb__recorder_hot *h = &rec->hot;
    uint8_t *ring = h->rings + ((uint64_t)shard << h->cap_log2);
    uint8_t head[BB__FRAME_HEAD];
    uint16_t len = BB__FRAME_LEN(size);
    bb__frame_head(head, ts, id);
    ring_put(ring, h->capacity, pos, head, BB__FRAME_HEAD);
    if (size) ring_put(ring, h->capacity, pos + BB__FRAME_HEAD, fields, size);
    ring_put(ring, h->capacity, pos + BB__FRAME_HEAD + size, &len, BB__FRAME_TRAILER);
}

/* Contract: a record reserved at `pos` was found lapped once written (`head` - pos > capacity):
 * mark the ring so that dumps drop every record that its bytes may have overlapped, those older
 * than the end of its last occurrence below `head` (recorder_dump.c, drop_lapped). */
void bb__record_lapped(bb_recorder *rec, uint32_t shard, uint64_t pos, size_t total,
                       uint64_t head) {
    uint64_t *mark = &rec->hot.cursors[shard].damaged_below;
    uint64_t end = bb__ring_last_lap(pos, head, rec->hot.capacity) + total;
    uint64_t cur = __atomic_load_n(mark, __ATOMIC_RELAXED);
    while (cur < end && !__atomic_compare_exchange_n(mark, &cur, end, true, __ATOMIC_RELEASE,
                                                     __ATOMIC_RELAXED)) {}
    __atomic_fetch_add(&rec->lapped, 1, __ATOMIC_RELAXED);
}

/* Contract: count a record refused for being larger than the ring. */
void bb__record_too_large(bb_recorder *rec) {
    __atomic_fetch_add(&rec->too_large, 1, __ATOMIC_RELAXED);
}

/* The descriptor's id; computed and stored once if it was never registered (the descriptor is
 * mutable in `id` only, see schema.h). */
static uint64_t desc_id(const bb_event_desc *desc) {
    uint64_t id = __atomic_load_n(&desc->id, __ATOMIC_RELAXED);
    return id ? id : bb_event_id_resolve((bb_event_desc *)(uintptr_t)desc);
}

static bb_status check(bb_recorder *rec, const bb_event_desc *desc, const void *fields,
                       size_t size) {
    if (!rec || !desc || !bb__abi_accept(desc, "events", false) || (size && !fields) ||
        size != desc->record_size || size > BB_MAX_RECORD_SIZE)
        return BB_ERR_INVALID;
    if (BB__FRAME_SIZE(size) > rec->hot.capacity) {
        bb__record_too_large(rec);
        return BB_ERR_TOO_LARGE;
    }
    if (!bb__recorder_on(rec)) return BB_ERR_DISABLED;
    return BB_OK;
}

/* Contract: see recorder.h. */
bb_status bb_record_event(bb_recorder *rec, const bb_event_desc *desc, const void *fields,
                          size_t size) {
    bb_status st = check(rec, desc, fields, size);
    if (st == BB_OK)
        bb__record_armed(rec, desc, desc_id(desc), fields,
                         bb__record_inline(rec, desc_id(desc), fields, size));
    return st;
}

/* Contract: see recorder.h. */
bb_status bb_record_event_at(bb_recorder *rec, const bb_event_desc *desc, uint64_t ts_nanos,
                             const void *fields, size_t size) {
    bb_status st = check(rec, desc, fields, size);
    if (st == BB_OK)
        bb__record_armed(rec, desc, desc_id(desc), fields,
                         bb__record_ts(rec, desc_id(desc), ts_nanos, fields, size));
    return st;
}

/* Contract: see recorder_inline.h. */
void bb__trigger_hit(bb_recorder *rec, const bb_event_desc *d, const void *fields, uint64_t ts) {
    bb__trigger_fn fn = __atomic_load_n(&rec->trigger_fn, __ATOMIC_ACQUIRE);
    if (fn) fn(rec->trigger_ctx, d, fields, ts);
}

/* Contract: see trigger_hook.h. */
void *bb__recorder_trigger_ctx(const bb_recorder *rec) { return rec->trigger_ctx; }

/* Contract: see trigger_hook.h. */
bool bb__recorder_took_record(const bb_recorder *rec) {
    const struct bb__recorder_hot *h = (const struct bb__recorder_hot *)(const void *)rec;
    for (uint32_t i = 0; i < h->shard_count; i++)
        if (__atomic_load_n(&h->cursors[i].head, __ATOMIC_RELAXED) != 0) return true;
    return false;
}

/* Contract: see trigger_hook.h. */
void bb__recorder_set_trigger(bb_recorder *rec, bb__trigger_fn fn, void *ctx,
                              void (*drop)(void *)) {
    __atomic_store_n(&rec->trigger_fn, NULL, __ATOMIC_RELEASE);
    rec->trigger_ctx = ctx;
    rec->trigger_drop = drop;
    __atomic_store_n(&rec->trigger_fn, fn, __ATOMIC_RELEASE);
}

/* Contract: see recorder.h. */
uint32_t bb_intern(bb_recorder *rec, const void *bytes, size_t len) {
    if (!rec) return BB_INTERN_FULL_ID;
    return bb__intern_table_put(&rec->intern, bytes, len);
}

uint32_t bb_intern_str(bb_recorder *rec, const char *s) {
    return bb_intern(rec, s, s ? strlen(s) : 0);
}

/* Contract: intern a literal and remember (serial, id) in the call site's cache; the serial
 * changes with each intern generation (intern.c). */
uint32_t bb__intern_static_slow(bb_recorder *rec, uint64_t *cache, const char *s, size_t len) {
    if (!rec) return BB_INTERN_FULL_ID;
    /* the key is read before interning: a generation that starts meanwhile changes it, so the
     * cached id (of the generation before) is looked up again at the next call */
    uint64_t key = __atomic_load_n(&rec->hot.serial, __ATOMIC_ACQUIRE);
    uint32_t id = bb_intern(rec, s, len);
    if (id != BB_INTERN_FULL_ID) __atomic_store_n(cache, (key << 32) | id, __ATOMIC_RELAXED);
    return id;
}
