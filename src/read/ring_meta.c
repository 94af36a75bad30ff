/* ring_meta.c — what a ring file says besides its rings, read incrementally: the metadata log
 * (docs/RING_FILE.md "The metadata log": schemas, each checked by the reader and kept once per
 * id, and view sets, kept once per text) from where the last call stopped to the log's tail,
 * and the intern table's entries that became ready (their hash matching their bytes), per
 * generation (the file's generation table says which generation each storage of the table holds
 * and its first id; a storage recycled drops what was taken of it). What is taken is copied out
 * of the file first and checked on the copy, which is what the dumps are built from: a writer
 * (or anyone) changing the file later changes nothing already taken. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backbeat/detail/frame.h"
#include "backbeat/reader.h"
#include "format/ring_file.h"
#include "format/sections.h"
#include "format/wire.h"
#include "read/ring_priv.h"

/* The schema entry p[len] as the reader sees it: its id and record size, and in *kept a dump
 * holding only it, open over its own buffer (bb_ring_find_schema's schema; freed with
 * bb__ring_schema_free); false if the reader rejects it. */
static bool check_schema(const uint8_t *p, size_t len, uint64_t *id, uint16_t *size,
                         bb__ring_schema *kept) {
    size_t body = BB_SCHEMA_HEADER_SIZE + len, start = bb__dump_body_start(1);
    uint8_t *buf = malloc(start + body);
    if (!buf) return false;
    bb__membuf bs = bb__membuf_fixed(buf, start + body);
    bb__sink sink = bb__sink_membuf(&bs);
    bb__section_ref sec = {BB_SECTION_SCHEMA, body, 0};
    bb__sections_layout(&sec, 1);
    int rc = bb__enc_header(sink, &sec, 1) || bb__enc_schema_count(sink, 1) ||
             sink.write(sink.ctx, p, len);
    bb_dump *d = NULL;
    bool ok = !rc && bb_dump_open_memory(buf, bs.len, "entry", &d, NULL) == BB_OK &&
              bb_dump_schema_count(d) == 1;
    if (ok) {
        *id = bb_dump_schema(d, 0)->id;
        *size = bb_dump_schema(d, 0)->record_size;
        *kept = (bb__ring_schema){d, buf};
        return true;
    }
    if (d) bb_dump_close(d);
    free(buf);
    return false;
}

/* A schema kept for bb_ring_find_schema freed (bb_ring_close frees them likewise). */
static void schema_free(bb__ring_schema *s) {
    if (s->d) bb_dump_close(s->d);
    free(s->buf);
    *s = (bb__ring_schema){NULL, NULL};
}

/* Grow *v (elements of `size` bytes, *n used) to hold one more. */
static bool grow(void *v, size_t n, size_t size) {
    if (n & (n - 1) && n) return true; /* capacity is the next power of two at or above n */
    void *g = realloc(*(void **)v, (n ? 2 * n : 1) * size);
    if (!g) return false;
    *(void **)v = g;
    return true;
}

static const bb__ring_size *find_size(const bb_ring *r, uint64_t id) {
    uintptr_t at = (uintptr_t)bb__u64map_get(&r->size_ix, id);
    return at ? &r->sizes[at - 1] : NULL;
}

/* Contract: see ring_priv.h. */
int32_t bb__ring_size_of(void *ring, uint64_t id) {
    const bb__ring_size *s = find_size(ring, id);
    return s ? (int32_t)s->size : -1;
}

/* A private copy of p[len] (NULL: out of memory). */
static uint8_t *copy_of(const uint8_t *p, size_t len) {
    uint8_t *c = malloc(len ? len : 1);
    if (c) memcpy(c, p, len);
    return c;
}

/* A schema entry, copied out of the file first (it is checked, and later encoded, from the
 * copy): kept when the reader accepts it and its id is new. Lookups by id go through a hash
 * map: the log may hold any number of schemas, each costs the same. */
static bool take_event(bb_ring *r, const uint8_t *file, uint32_t len) {
    uint64_t id;
    uint16_t size;
    bb__ring_schema d = {NULL, NULL};
    uint8_t *p = copy_of(file, len);
    if (!p) return false;
    bool ok = check_schema(p, len, &id, &size, &d);
    if (!ok) r->stats.meta_skipped++;
    if (!ok || find_size(r, id)) { /* rejected, or the same schema again */
        schema_free(&d);
        free(p);
        return true;
    }
    if (!grow(&r->events, r->nevents, sizeof *r->events) ||
        !grow(&r->sizes, r->nevents, sizeof *r->sizes) ||
        !grow(&r->schemas, r->nevents, sizeof *r->schemas) ||
        !bb__u64map_put(&r->size_ix, id, (void *)(uintptr_t)(r->nevents + 1))) {
        schema_free(&d);
        free(p);
        return false;
    }
    r->sizes[r->nevents] = (bb__ring_size){id, size};
    r->schemas[r->nevents] = d;
    r->events[r->nevents++] = (bb__ring_piece){p, len};
    bb__rseq_frames_add(&r->frames, BB__FRAME_SIZE(size));
    return true;
}

/* Contract: see ring_reader.h. */
const bb_rschema *bb_ring_find_schema(const bb_ring *r, uint64_t id) {
    uintptr_t at = r ? (uintptr_t)bb__u64map_get(&r->size_ix, id) : 0;
    return at ? bb_dump_schema(r->schemas[at - 1].d, 0) : NULL;
}

/* A view set's text, once (a plugin loaded again registers it again), copied out of the file.
 * Found by hash (probed one up past a different text of the same hash), then bytes. */
static bool take_views(bb_ring *r, const uint8_t *file, uint32_t len) {
    uint8_t *p = copy_of(file, len);
    if (!p) return false;
    uint64_t h = bb__ring_fnv64(p, len);
    for (uintptr_t at; (at = (uintptr_t)bb__u64map_get(&r->view_ix, h)) != 0; h++) {
        const bb__ring_piece *v = &r->views[at - 1];
        if (v->len == len && !memcmp(v->p, p, len)) {
            free(p);
            return true;
        }
    }
    if (!grow(&r->views, r->nviews, sizeof *r->views) ||
        !bb__u64map_put(&r->view_ix, h, (void *)(uintptr_t)(r->nviews + 1))) {
        free(p);
        return false;
    }
    r->views[r->nviews++] = (bb__ring_piece){p, len};
    return true;
}

/* The log entries of 24 zero bytes (each skipped as damaged) from meta_pos on that lie wholly
 * in a hole of the file, at most `max`: a dead file's log that is a hole is stepped over by its
 * data extents (SEEK_DATA), with the result the entry-by-entry walk gives. */
static uint64_t hole_steps(const bb_ring *r, uint64_t max) {
    if (r->fd < 0 || !r->mapped) return 0;
    uint64_t at = r->g.meta + r->meta_pos;
    off_t data = lseek(r->fd, (off_t)at, SEEK_DATA);
    if (data < 0) return errno == ENXIO ? max : 0;
    uint64_t k = ((uint64_t)data - at) / BB_RME_HEAD;
    return k < max ? k : max;
}

/* Walk the log from meta_pos to its tail. */
static bool walk_meta(bb_ring *r, bool live) {
    uint64_t end =
        __atomic_load_n((const uint64_t *)(const void *)(r->d + BB_RH_META_TAIL), __ATOMIC_ACQUIRE);
    if (end > r->g.meta_len) end = r->g.meta_len;
    const uint8_t *log = r->d + r->g.meta;
    while (!r->stats.meta_stopped && end > r->meta_pos && end - r->meta_pos >= BB_RME_HEAD) {
        const uint8_t *e = log + r->meta_pos;
        uint32_t magic = __atomic_load_n((const uint32_t *)(const void *)e, __ATOMIC_ACQUIRE);
        uint32_t len = bb__ring_get32(e, BB_RME_OFF_LEN);
        uint64_t need = BB_RME_HEAD + ((uint64_t)len + 7) / 8 * 8;
        if (magic != BB_RME_MAGIC && live) return true; /* being written: a later call */
        uint64_t skip =
            magic == 0 && len == 0 ? hole_steps(r, (end - r->meta_pos) / BB_RME_HEAD) : 0;
        if (skip > 1) {
            r->stats.meta_skipped += (size_t)skip;
            r->meta_pos += skip * BB_RME_HEAD;
            continue;
        }
        if (len > BB_RME_MAX_LEN || need > end - r->meta_pos) {
            r->stats.meta_stopped = true;
            return true;
        }
        uint16_t kind;
        memcpy(&kind, e + BB_RME_OFF_KIND, 2);
        bool ok = true;
        if (magic != BB_RME_MAGIC || bb__ring_get32(e, BB_RME_OFF_CHECK) != bb__rme_check(e, len))
            r->stats.meta_skipped++;
        else if (kind == BB_RME_VIEWS) ok = take_views(r, e + BB_RME_HEAD, len);
        else if (kind == BB_RME_EVENT) ok = take_event(r, e + BB_RME_HEAD, len);
        else r->stats.meta_skipped++;
        if (!ok) return false;
        r->meta_pos += need;
    }
    return true;
}

static uint8_t taken(const bb_ring *r, uint32_t i) {
    const uint8_t *c = r->intern_taken[i / BB__RING_INTERN_CHUNK];
    return c ? c[i % BB__RING_INTERN_CHUNK] : 0;
}

static bool set_taken(bb_ring *r, uint32_t i, uint8_t v) {
    uint8_t **c = &r->intern_taken[i / BB__RING_INTERN_CHUNK];
    if (!*c && !(*c = calloc(BB__RING_INTERN_CHUNK, 1))) return false;
    (*c)[i % BB__RING_INTERN_CHUNK] = v;
    return true;
}

/* The entries and arena bytes of one storage of the table (a generation's). */
static uint32_t gen_entries(const bb_ring *r) { return r->g.entries / r->g.gens; }
static uint32_t gen_bytes(const bb_ring *r) { return r->g.bytes / r->g.gens; }

/* Contract: see ring_priv.h. A generation's ids stop below the last share of the id space
 * (intern.c starts none whose ids would reach it), and the reader takes none that does. */
uint32_t bb__ring_intern_last_id(const bb_ring *r) {
    return r->g.gens == 1 ? r->g.entries : UINT32_MAX - gen_entries(r);
}

/* What the file says storage s holds: its generation number and id base (acquire: read
 * before its entries). False when it holds none to read: never used, being emptied, or ids
 * the writer never gives. A version 2 file: generation 0, ids from 1. */
static bool gen_state(const bb_ring *r, uint32_t s, uint32_t *number, uint32_t *base) {
    if (r->g.version < 3) {
        *number = *base = 0;
        return true;
    }
    const uint8_t *e = r->d + BB_RH_GEN_TABLE + (uint64_t)s * BB_RING_GEN_STRIDE;
    *number = __atomic_load_n((const uint32_t *)(const void *)(e + BB_RG_NUMBER), __ATOMIC_ACQUIRE);
    *base = __atomic_load_n((const uint32_t *)(const void *)(e + BB_RG_ID_BASE), __ATOMIC_RELAXED);
    return *number < BB_RING_GEN_BUSY &&
           *base <= bb__ring_intern_last_id(r) - (r->g.gens == 1 ? 0 : gen_entries(r));
}

/* Forget what was taken from storage s (its generation was recycled, or changed while it was
 * read): its copies freed, its entries undecided again. */
static void drop_gen(bb_ring *r, uint32_t s) {
    size_t k = 0;
    for (size_t i = 0; i < r->ninterns; i++) {
        if (r->interns[i].gen == s) free((void *)(uintptr_t)r->interns[i].p);
        else r->interns[k++] = r->interns[i];
    }
    r->ninterns = k;
    bb__u64map_free(&r->intern_ix); /* the ids left, at their new places (a recycle is rare) */
    bb__u64map_init(&r->intern_ix);
    for (size_t i = 0; i < r->ninterns; i++)
        if (!bb__u64map_put(&r->intern_ix, r->interns[i].id, (void *)(uintptr_t)(i + 1))) {
            r->intern_ix_failed = true;
            break;
        }
    uint32_t lo = s * gen_entries(r), hi = lo + gen_entries(r);
    for (uint32_t i = lo; r->intern_taken && i < hi;) {
        uint32_t c = i / BB__RING_INTERN_CHUNK, at = i % BB__RING_INTERN_CHUNK;
        uint32_t n = BB__RING_INTERN_CHUNK - at < hi - i ? BB__RING_INTERN_CHUNK - at : hi - i;
        if (r->intern_taken[c]) memset(r->intern_taken[c] + at, 0, n);
        i += n;
    }
    r->gens[s] = (bb__ring_gen){BB_RING_GEN_FREE, 0, 0, gen_bytes(r)};
}

/* Decide intern entry i of storage s: taken (its bytes validate), rejected for good (they never
 * can), or left for a later call (not ready yet). Each string's bytes have their own place in
 * the storage's arena, so the taken lengths add up to at most its size: past that the storage
 * is inconsistent and the rest is rejected (which also keeps the hashing linear in the file's
 * size). */
static bool intern_one(bb_ring *r, uint32_t s, uint32_t i, bool *pending) {
    const uint8_t *e = r->d + r->g.intern + (uint64_t)i * BB_RING_INTERN_ENTRY;
    uint32_t ready = __atomic_load_n((const uint32_t *)(const void *)(e + 12), __ATOMIC_ACQUIRE);
    uint32_t off = bb__ring_get32(e, 0), len = bb__ring_get32(e, 4), hash = bb__ring_get32(e, 8);
    bb__ring_gen *g = &r->gens[s];
    uint32_t gb = gen_bytes(r);
    *pending = ready != 1;
    if (*pending) return true;
    if (!set_taken(r, i, 2)) return false;
    if (off > gb || len > gb - off || len > UINT16_MAX || len > g->budget) return true;
    const uint8_t *at = r->d + r->g.arena + (uint64_t)s * gb + off;
    uint8_t *p = copy_of(at, len); /* checked and encoded from the copy */
    if (!p) return false;
    if (bb__ring_fnv32(BB_RING_FNV32_INIT, p, len) != hash) {
        free(p);
        return true;
    }
    g->budget -= len;
    if (!grow(&r->interns, r->ninterns, sizeof *r->interns)) {
        free(p);
        return false;
    }
    uint32_t id = g->id_base + (i - s * gen_entries(r)) + 1;
    r->interns[r->ninterns++] = (bb__ring_intern){id, len, s, p};
    if (!bb__u64map_put(&r->intern_ix, id, (void *)(uintptr_t)r->ninterns))
        r->intern_ix_failed = true;
    return set_taken(r, i, 1);
}

/* The first entry at or after i (below hi) that the file holds bytes for (entries in a hole
 * read as zeros: never ready), and in *end the first entry past that data extent (SEEK_DATA /
 * SEEK_HOLE; hi for memory, or where the file system cannot tell). A sparse table announcing
 * 2^32 entries costs its data extents, not its length. */
static uint32_t next_present(const bb_ring *r, uint32_t i, uint32_t hi, uint32_t *end) {
    uint64_t base = r->g.intern;
    *end = hi;
    if (r->fd < 0 || !r->mapped) return i;
    off_t at = (off_t)(base + (uint64_t)i * BB_RING_INTERN_ENTRY);
    off_t data = lseek(r->fd, at, SEEK_DATA);
    if (data < 0) return errno == ENXIO ? hi : i;
    uint64_t first = ((uint64_t)data - base) / BB_RING_INTERN_ENTRY;
    if (first >= hi) return hi;
    off_t hole = lseek(r->fd, data, SEEK_HOLE);
    if (hole > data) {
        uint64_t past = ((uint64_t)hole - base + BB_RING_INTERN_ENTRY - 1) / BB_RING_INTERN_ENTRY;
        *end = (uint32_t)(past < hi ? past : hi);
    }
    return first > i ? (uint32_t)first : i;
}

/* Whether the 64 entries from `from` on (below hi) are all zero in a live writer's file (read
 * with pread: a hole reads as zeros without being filled in, and without the SEEK_DATA search,
 * whose cost is the hole's size: the table, the arena and every ring not written yet, on each
 * follow call). The scan below would then take none of them and stop. */
static bool nothing_new(const bb_ring *r, uint32_t from, uint32_t hi) {
    uint8_t probe[64 * BB_RING_INTERN_ENTRY];
    uint64_t n = hi - from;
    if (n > 64) n = 64;
    if (r->fd < 0 || !r->mapped || n == 0) return n == 0;
    size_t len = (size_t)n * BB_RING_INTERN_ENTRY;
    off_t at = (off_t)(r->g.intern + (uint64_t)from * BB_RING_INTERN_ENTRY);
    if (pread(r->fd, probe, len, at) != (ssize_t)len) return false;
    for (size_t k = 0; k < len; k++)
        if (probe[k]) return false;
    return true;
}

/* Storage s's entries from its first undecided one on, by the table's data extents. A live
 * writer fills entries nearly in order: the scan stops after 64 undecided entries in a row (a
 * hole counts as its entries; the rest is empty); a dead one's storage is scanned whole. */
static bool take_gen(bb_ring *r, uint32_t s, bool live) {
    bb__ring_gen *g = &r->gens[s];
    uint32_t lo = s * gen_entries(r), hi = lo + gen_entries(r);
    if (live && nothing_new(r, lo + g->scan, hi)) return true;
    uint32_t run = 0, end = lo + g->scan;
    for (uint32_t i = lo + g->scan; i < hi && !(live && run >= 64); i++) {
        if (i >= end) {
            uint32_t at = next_present(r, i, hi, &end);
            run = at - i > 64 ? 64 : run + (at - i);
            if ((i = at) >= hi || (live && run >= 64)) break;
        }
        if (taken(r, i)) continue;
        bool pending;
        if (!intern_one(r, s, i, &pending)) return false;
        run = pending ? run + 1 : 0;
        if (!pending && i == lo + g->scan) g->scan = i + 1 - lo;
    }
    while (lo + g->scan < hi && taken(r, lo + g->scan)) g->scan++;
    return true;
}

/* Each storage of the table that holds a generation: its entries taken, with the ids of that
 * generation. Its number is read before and after (a storage emptied for a later generation
 * meanwhile gets a new number: what was read of it is dropped, and taken again by a later call
 * if its new generation is then whole); a storage whose number changed since the last call
 * held a generation that no record still in the rings names: its copies are dropped. */
static bool take_interns(bb_ring *r, bool live) {
    if (!r->intern_taken && r->g.entries) {
        r->intern_taken = calloc(BB__RING_INTERN_CHUNKS(r->g.entries), sizeof *r->intern_taken);
        if (!r->intern_taken) return false;
    }
    for (uint32_t s = 0; s < r->g.gens; s++) {
        uint32_t number, base, again, base2;
        bool held = gen_state(r, s, &number, &base);
        if (r->gens[s].number != BB_RING_GEN_FREE && (!held || r->gens[s].number != number))
            drop_gen(r, s);
        if (!held) continue;
        r->gens[s].number = number;
        r->gens[s].id_base = base;
        if (!take_gen(r, s, live)) return false;
#if !defined(__SANITIZE_THREAD__)                /* gcc's TSan has no fences (-Wtsan) */
        __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the entries' reads before the number's */
#endif
        if (!gen_state(r, s, &again, &base2) || again != number) drop_gen(r, s);
    }
    return true;
}

/* Contract: see ring_priv.h. */
bool bb__ring_meta_update(bb_ring *r, bool live) {
    r->stats.meta_dropped = __atomic_load_n(
        (const uint32_t *)(const void *)(r->d + BB_RH_META_DROPPED), __ATOMIC_RELAXED);
    r->stats.intern_full =
        __atomic_load_n((const uint32_t *)(const void *)(r->d + BB_RH_INTERN_FULL),
                        __ATOMIC_ACQUIRE) != 0;
    bool ok = walk_meta(r, live) && take_interns(r, live);
    r->stats.events = r->nevents;
    r->stats.views = r->nviews;
    r->stats.interns = r->ninterns;
    return ok;
}

/* Contract: see ring_reader.h. An id is found only among the entries taken of the generations
 * the table holds as last read (drop_gen forgets a recycled one's). */
bool bb_ring_intern(const bb_ring *r, uint32_t id, bb_strview *out) {
    if (!r || !out) return false;
    if (id == 0 && r->stats.intern_full) { /* the placeholder a dump of the file carries */
        out->ptr = BB_INTERN_FULL_TEXT;
        out->len = sizeof BB_INTERN_FULL_TEXT - 1;
        return true;
    }
    uintptr_t at = (uintptr_t)bb__u64map_get(&r->intern_ix, id);
    if (!at && r->intern_ix_failed) /* out of memory while indexing: look it up the long way */
        for (size_t i = 0; i < r->ninterns && !at; i++)
            if (r->interns[i].id == id) at = i + 1;
    if (!at || r->interns[at - 1].id != id) return false;
    out->ptr = (const char *)r->interns[at - 1].p;
    out->len = r->interns[at - 1].len;
    return true;
}
