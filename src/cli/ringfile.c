/* ringfile.c — a ring file (docs/RING_FILE.md, layout in src/format/ring_file.h) turned into a
 * `.bb` dump: the header is validated (checksum, geometry, every region inside the file), the
 * metadata log yields the schema entries and view sets whose checksum holds (each schema also
 * checked by the reader, de-duplicated by id), the intern table the entries that are ready and
 * whose hash matches their bytes, and each ring is copied with its head, cut below the mark a
 * lapped writer left, as a live dump cuts it. Nothing in the file is trusted: a value that does
 * not validate is skipped or rejected with a reason, never followed. */
/* SPDX-License-Identifier: MIT */
#include "cli/ringfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backbeat/detail/frame.h"
#include "backbeat/reader.h"
#include "cli/cli_util.h"
#include "cli/ring_inflight.h"
#include "read/u64map.h"
#include "format/ring_file.h"
#include "format/sections.h"
#include "format/wire.h"

static bool fail(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *why, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return false;
}

static uint32_t get32(const uint8_t *d, size_t off) {
    uint32_t v;
    memcpy(&v, d + off, 4);
    return v;
}
static uint64_t get64(const uint8_t *d, size_t off) {
    uint64_t v;
    memcpy(&v, d + off, 8);
    return v;
}

bool cli_ring_is(const void *data, size_t len) {
    return len >= BB_RING_MAGIC_SIZE && memcmp(data, BB_RING_MAGIC, BB_RING_MAGIC_SIZE) == 0;
}

/* The regions of a validated header. */
typedef struct regions {
    uint64_t cursors, slots, meta, meta_len, intern, arena, rings;
    uint32_t entries, bytes, slot_count, tag_base;
} regions;

/* a + b <= limit without overflow, and a aligned. */
static bool region_ok(uint64_t a, uint64_t n, uint64_t limit) {
    return a % BB_RING_ALIGN == 0 && a <= limit && n <= limit - a;
}

static bool read_regions(const uint8_t *d, const cli_ring_info *in, regions *r, char *why,
                         size_t cap) {
    r->cursors = get64(d, BB_RH_CURSORS_OFF);
    r->slots = get64(d, BB_RH_SLOTS_OFF);
    r->slot_count = get32(d, BB_RH_SLOT_COUNT);
    r->tag_base = get32(d, BB_RH_TAG_BASE);
    r->meta = get64(d, BB_RH_META_OFF);
    r->meta_len = get64(d, BB_RH_META_LEN);
    r->intern = get64(d, BB_RH_INTERN_OFF);
    r->arena = get64(d, BB_RH_ARENA_OFF);
    r->rings = get64(d, BB_RH_RINGS_OFF);
    r->entries = get32(d, BB_RH_INTERN_ENTRIES);
    r->bytes = get32(d, BB_RH_INTERN_BYTES);
    uint64_t fs = in->file_size;
    if (r->slot_count == 0 || r->slot_count > BB_RING_SLOT_MAX ||
        get32(d, BB_RH_SLOT_STRIDE) != BB_RING_SLOT_STRIDE)
        return fail(why, cap, "header has an invalid announcement table (%u entries of %u bytes)",
                    r->slot_count, get32(d, BB_RH_SLOT_STRIDE));
    bool ok = r->cursors >= BB_RING_HEADER_SIZE &&
              region_ok(r->cursors, (uint64_t)in->shards * BB_RING_CURSOR_STRIDE, r->slots) &&
              region_ok(r->slots, (uint64_t)r->slot_count * BB_RING_SLOT_STRIDE, r->meta) &&
              region_ok(r->meta, r->meta_len, r->intern) &&
              region_ok(r->intern, (uint64_t)r->entries * BB_RING_INTERN_ENTRY, r->arena) &&
              region_ok(r->arena, r->bytes, r->rings) &&
              region_ok(r->rings, in->capacity * in->shards, fs) &&
              r->rings + in->capacity * in->shards == fs;
    return ok ? true : fail(why, cap, "header describes regions that overlap or pass its end");
}

bool cli_ring_header(const uint8_t *d, size_t len, uint64_t size, cli_ring_info *info, char *why,
                     size_t cap) {
    memset(info, 0, sizeof *info);
    if (len >= BB_RING_MAGIC_SIZE && !cli_ring_is(d, len))
        return fail(why, cap, "not a ring file (wrong magic)");
    if (len < BB_RING_HEADER_SIZE)
        return fail(why, cap, "truncated: %zu bytes, shorter than the %u-byte header", len,
                    BB_RING_HEADER_SIZE);
    uint32_t v = get32(d, BB_RH_VERSION);
    if (v != BB_RING_VERSION)
        return fail(why, cap, "ring file version %u is not supported (this backbeat reads %u)", v,
                    BB_RING_VERSION);
    if (get64(d, BB_RH_CHECK) != bb_ring_fnv64(d, BB_RING_CHECKED))
        return fail(why, cap, "header checksum mismatch (the header is damaged)");
    info->shards = get32(d, BB_RH_SHARDS);
    info->capacity = get64(d, BB_RH_CAPACITY);
    info->instance_id = get64(d, BB_RH_INSTANCE);
    info->pid = get64(d, BB_RH_PID);
    info->start_ns = get64(d, BB_RH_START_NS);
    info->file_size = get64(d, BB_RH_FILE_SIZE);
    info->state = get32(d, BB_RH_STATE);
    info->meta_dropped = get32(d, BB_RH_META_DROPPED);
    info->intern_full = get32(d, BB_RH_INTERN_FULL) != 0;
    uint64_t c = info->capacity;
    if (get32(d, BB_RH_HEADER_SIZE) != BB_RING_HEADER_SIZE ||
        get32(d, BB_RH_CURSOR_STRIDE) != BB_RING_CURSOR_STRIDE || info->shards == 0 ||
        info->shards > 4096 || c < 4096 || c > (UINT64_C(1) << 40) || (c & (c - 1)) != 0)
        return fail(why, cap, "header has an invalid geometry (%u shards of %llu bytes)",
                    info->shards, (unsigned long long)c);
    info->proc_start = get64(d, BB_RH_PROC_START);
    memcpy(info->boot_id, d + BB_RH_BOOT_ID, sizeof info->boot_id);
    info->boot_id[sizeof info->boot_id - 1] = 0;
    const char *host = (const char *)d + BB_RH_HOST;
    size_t hl = strnlen(host, BB_RING_HOST_MAX);
    if (hl == BB_RING_HOST_MAX) return fail(why, cap, "header host is not terminated");
    memcpy(info->host, host, hl + 1);
    regions r;
    if (!read_regions(d, info, &r, why, cap)) return false;
    if (size < info->file_size)
        return fail(why, cap, "truncated: %llu of the %llu bytes its header announces",
                    (unsigned long long)size, (unsigned long long)info->file_size);
    return true;
}

/* ---- what is recovered ----------------------------------------------------------------- */

typedef struct piece {
    const uint8_t *p;
    size_t len;
} piece;

typedef struct recovered {
    piece *events; /* schema entries, first of each id */
    size_t nevents;
    piece *views;
    size_t nviews;
    struct intern_ok { uint32_t index, off, len; } *interns; /* id = index + 1; validated */
    size_t ninterns;
    u64map sizes; /* event id -> record_size + 1 */
    u64map view_texts; /* FNV-1a 64 of a view text -> its piece + 1 (index), de-duplication */
} recovered;

static void recovered_free(recovered *r) {
    free(r->events);
    free(r->views);
    free(r->interns);
    u64map_free(&r->sizes);
    u64map_free(&r->view_texts);
}

/* The schema entry p[len] as the reader sees it: its id and record size; false if the reader
 * rejects a dump holding only it. */
static bool check_schema(const uint8_t *p, size_t len, uint64_t *id, uint16_t *size) {
    size_t body = BB_SCHEMA_HEADER_SIZE + len, start = bb_dump_body_start(1);
    uint8_t *buf = malloc(start + body);
    if (!buf) return false;
    bb_buffer_sink bs = {buf, start + body, 0};
    bb_sink sink = bb_sink_buffer(&bs);
    bb_section_ref sec = {BB_SECTION_SCHEMA, body, 0};
    bb_sections_layout(&sec, 1);
    int rc = bb_enc_header(sink, &sec, 1) || bb_enc_schema_count(sink, 1) ||
             sink.write(sink.ctx, p, len);
    bb_dump *d = NULL;
    bool ok = !rc && bb_dump_open_memory(buf, bs.len, "entry", &d, NULL) == BB_OK &&
              bb_dump_schema_count(d) == 1;
    if (ok) {
        *id = bb_dump_schema(d, 0)->id;
        *size = bb_dump_schema(d, 0)->record_size;
    }
    if (d) bb_dump_close(d);
    free(buf);
    return ok;
}

static bool push(piece **v, size_t *n, const uint8_t *p, size_t len) {
    if ((*n & (*n + 1)) == 0 || *n == 0) { /* grow at 0, 1, 3, 7, ... */
        piece *g = realloc(*v, (*n * 2 + 2) * sizeof *g);
        if (!g) return false;
        *v = g;
    }
    (*v)[(*n)++] = (piece){p, len};
    return true;
}

/* A view set's text, once: a plugin loaded again registers its view set again. (A hash
 * collision between different texts keeps both.) */
static bool take_views(recovered *r, const uint8_t *p, uint32_t len) {
    uint64_t h = bb_ring_fnv64(p, len);
    uintptr_t at = (uintptr_t)u64map_get(&r->view_texts, h);
    if (at && r->views[at - 1].len == len && !memcmp(r->views[at - 1].p, p, len)) return true;
    if (!at && !u64map_put(&r->view_texts, h, (void *)(uintptr_t)(r->nviews + 1))) return false;
    return push(&r->views, &r->nviews, p, len);
}

/* One accepted metadata entry. */
static bool take_entry(recovered *r, uint16_t kind, const uint8_t *p, uint32_t len,
                       cli_ring_info *info) {
    if (kind == BB_RME_VIEWS) return take_views(r, p, len);
    uint64_t id;
    uint16_t size;
    if (kind != BB_RME_EVENT || !check_schema(p, len, &id, &size)) {
        info->meta_skipped++;
        return true;
    }
    if (u64map_get(&r->sizes, id)) return true; /* the same schema again */
    return u64map_put(&r->sizes, id, (void *)(uintptr_t)(size + 1u)) &&
           push(&r->events, &r->nevents, p, len);
}

/* Walk the metadata log (docs/RING_FILE.md "The metadata log"). */
static bool walk_meta(const uint8_t *d, const regions *g, recovered *r, cli_ring_info *info) {
    uint64_t end = get64(d, BB_RH_META_TAIL);
    if (end > g->meta_len) end = g->meta_len;
    const uint8_t *log = d + g->meta;
    uint64_t p = 0;
    while (end - p >= BB_RME_HEAD) {
        const uint8_t *e = log + p;
        uint32_t len = get32(e, BB_RME_OFF_LEN);
        uint64_t need = BB_RME_HEAD + ((uint64_t)len + 7) / 8 * 8;
        if (len > BB_RME_MAX_LEN || need > end - p) {
            info->meta_stopped = true;
            return true;
        }
        uint16_t kind;
        memcpy(&kind, e + BB_RME_OFF_KIND, 2);
        if (get32(e, BB_RME_OFF_MAGIC) != BB_RME_MAGIC ||
            get32(e, BB_RME_OFF_CHECK) != bb_rme_check(e, len))
            info->meta_skipped++;
        else if (!take_entry(r, kind, e + BB_RME_HEAD, len, info))
            return false;
        p += need;
    }
    return true;
}

/* The intern entries that are complete and whose hash matches their bytes. Each string's bytes
 * have their own place in the arena, so the ready entries' lengths add up to at most its size:
 * past that the table is inconsistent and the rest is left out (which also keeps the hashing
 * linear in the file's size). */
static bool take_interns(const uint8_t *d, const regions *g, recovered *r) {
    r->interns = malloc(((size_t)g->entries + 1) * sizeof *r->interns);
    if (!r->interns) return false;
    uint64_t budget = g->bytes;
    for (uint32_t i = 0; i < g->entries; i++) {
        const uint8_t *e = d + g->intern + (uint64_t)i * BB_RING_INTERN_ENTRY;
        uint32_t off = get32(e, 0), len = get32(e, 4), hash = get32(e, 8), ready = get32(e, 12);
        if (ready != 1 || off > g->bytes || len > g->bytes - off || len > UINT16_MAX) continue;
        if (len > budget) break;
        budget -= len;
        if (bb_ring_fnv32(BB_RING_FNV32_INIT, d + g->arena + off, len) != hash) continue;
        r->interns[r->ninterns++] = (struct intern_ok){i, off, len};
    }
    return true;
}

/* ---- the lapped-writer cut (as recorder_dump.c's drop_lapped, over the recovered schemas) */

/* The position where the reader's walk down from the head first accepts a record starting
 * below `end` (FORMAT.md "Records and rings"); zeroing [low, there) drops every record below
 * it. */
static uint64_t cut_below(const cli_ring_view *v, uint64_t end) {
    uint64_t pos = v->head;
    while (pos - v->low >= BB__FRAME_TRAILER) {
        uint64_t start = cli_ring_frame_end(v, pos);
        if (start == UINT64_MAX) {
            pos--;
            continue;
        }
        if (start < end) return pos;
        pos = start;
    }
    return pos;
}

/* Cut the window below `damaged` (a position in it) like a live dump. */
static void cut_lapped(cli_ring_view *v, uint64_t damaged) {
    if (damaged <= v->low || damaged > v->head) return;
    uint64_t to = cut_below(v, damaged);
    for (uint64_t a = v->low; a < to; a++) v->ring[a & (v->cap - 1)] = 0;
}

/* ---- the dump ---------------------------------------------------------------------------- */

typedef struct plan {
    bb_section_ref *secs;
    size_t n;
    uint64_t total;
} plan;

static bool plan_sections(const cli_ring_info *info, const recovered *r, plan *pl, char *why,
                          size_t cap) {
    pl->n = 3 + r->nviews + info->shards;
    if (pl->n > UINT16_MAX) return fail(why, cap, "too many view sets and shards for one dump");
    pl->secs = calloc(pl->n, sizeof *pl->secs);
    if (!pl->secs) return fail(why, cap, "out of memory");
    uint64_t schema = BB_SCHEMA_HEADER_SIZE, intern = BB_INTERN_HEADER_SIZE;
    for (size_t i = 0; i < r->nevents; i++) schema += r->events[i].len;
    for (size_t i = 0; i < r->ninterns; i++) intern += BB_INTERN_ENTRY_HEADER_SIZE + r->interns[i].len;
    if (info->intern_full) intern += BB_INTERN_ENTRY_HEADER_SIZE + sizeof BB_INTERN_FULL_TEXT - 1;
    size_t k = 0;
    pl->secs[k++] = (bb_section_ref){BB_SECTION_SCHEMA, schema, 0};
    pl->secs[k++] = (bb_section_ref){BB_SECTION_INTERN, intern, 0};
    for (size_t i = 0; i < r->nviews; i++)
        pl->secs[k++] = (bb_section_ref){BB_SECTION_VIEWS, r->views[i].len, 0};
    for (uint32_t i = 0; i < info->shards; i++)
        pl->secs[k++] = (bb_section_ref){BB_SECTION_SHARD, BB_SHARD_HEADER_SIZE + info->capacity, 0};
    bb_wire_str host = {info->host, (uint16_t)strlen(info->host), 1};
    pl->secs[k++] = (bb_section_ref){BB_SECTION_META, bb_wire_meta_size(host), 0};
    pl->total = bb_sections_layout(pl->secs, pl->n);
    return true;
}

static int write_bodies(bb_sink s, const cli_ring_info *info, const recovered *r,
                        const uint8_t *d, const regions *g) {
    int rc = bb_enc_schema_count(s, (uint32_t)r->nevents);
    for (size_t i = 0; !rc && i < r->nevents; i++) rc = s.write(s.ctx, r->events[i].p, r->events[i].len);
    uint32_t full = info->intern_full ? 1u : 0u; /* the placeholder first, as a live dump */
    if (!rc) rc = bb_enc_intern_header(s, info->instance_id, (uint32_t)r->ninterns + full);
    if (!rc && full)
        rc = bb_enc_intern_entry(s, 0, (uint32_t)(sizeof BB_INTERN_FULL_TEXT - 1), BB_INTERN_FULL_TEXT);
    for (size_t i = 0; !rc && i < r->ninterns; i++) {
        const struct intern_ok *e = &r->interns[i]; /* validated once: the file may change */
        rc = bb_enc_intern_entry(s, e->index + 1, e->len, d + g->arena + e->off);
    }
    for (size_t i = 0; !rc && i < r->nviews; i++) rc = s.write(s.ctx, r->views[i].p, r->views[i].len);
    for (uint32_t i = 0; !rc && i < info->shards; i++) {
        const uint8_t *c = d + g->cursors + (uint64_t)i * BB_RING_CURSOR_STRIDE;
        rc = bb_enc_shard_header(s, info->instance_id, i, get64(c, 0), info->capacity);
        if (!rc) rc = s.write(s.ctx, d + g->rings + (uint64_t)i * info->capacity, info->capacity);
    }
    bb_wire_str host = {info->host, (uint16_t)strlen(info->host), 1};
    if (!rc) rc = bb_enc_meta(s, info->instance_id, host);
    return rc;
}

/* The bytes just above a cursor that a record not yet committed on the rseq commit path may
 * have written (recorder_dump.c's rseq_margin: two of the largest frames, rounded to words).
 * The file does not say which path the process used, so recovery always assumes it may have
 * been rseq: the oldest records of a full ring within that margin are dropped. */
static uint64_t rseq_margin(const u64map *sizes) {
    uint64_t big = 0;
    for (size_t k = 0; k < sizes->cap; k++)
        if (sizes->used[k] && (uintptr_t)sizes->vals[k] - 1 > big)
            big = (uintptr_t)sizes->vals[k] - 1;
    return 2 * ((BB__FRAME_SIZE(big) + 7) / 8 * 8) + 8;
}

/* Cut each copied ring as a live dump would: blank the records its writers left in flight
 * (the file's announcement table, ring_inflight.c), then cut below a lapped writer's mark in its
 * cursor, below the late bytes of a writer in flight below the window, and the rseq margin
 * above the head. */
static void cut_rings(uint8_t *out, const plan *pl, cli_ring_info *info,
                      const recovered *r, const uint8_t *d, const regions *g) {
    size_t first = 2 + r->nviews;
    uint64_t margin = rseq_margin(&r->sizes), cap = info->capacity;
    for (uint32_t i = 0; i < info->shards; i++) {
        const uint8_t *c = d + g->cursors + (uint64_t)i * BB_RING_CURSOR_STRIDE;
        uint64_t head = get64(c, 0), damaged = get64(c, 8);
        cli_ring_view v = {out + pl->secs[first + i].offset + BB_SHARD_HEADER_SIZE, cap, head,
                           head > cap ? head - cap : 0, &r->sizes};
        uint64_t late = cli_ring_inflight(&v, d + g->slots, g->slot_count, g->tag_base + i);
        uint64_t top = head + margin, from = head > cap ? head : cap;
        uint64_t mark = top > from ? top - cap : 0;
        bool lapped = (damaged > v.low && damaged <= head) || late > v.low; /* cut_shards */
        if (mark > head) mark = head;
        if (late > head) late = head;
        if (late > mark) mark = late;
        cut_lapped(&v, damaged > mark ? damaged : mark);
        info->cut_shards += lapped;
    }
}

static bool assemble(const uint8_t *d, const regions *g, cli_ring_info *info, recovered *r,
                     uint8_t **out, size_t *out_len, char *why, size_t cap) {
    plan pl = {NULL, 0, 0};
    if (!plan_sections(info, r, &pl, why, cap)) return false;
    uint8_t *buf = pl.total <= SIZE_MAX ? malloc((size_t)pl.total) : NULL;
    if (!buf) {
        free(pl.secs);
        return fail(why, cap, "cannot allocate %llu bytes for the dump",
                    (unsigned long long)pl.total);
    }
    bb_buffer_sink bs = {buf, (size_t)pl.total, 0};
    bb_sink s = bb_sink_buffer(&bs);
    int rc = bb_enc_header(s, pl.secs, pl.n) || write_bodies(s, info, r, d, g);
    if (!rc) cut_rings(buf, &pl, info, r, d, g);
    free(pl.secs);
    bb_dump *dump = NULL;
    bb_error err;
    memset(&err, 0, sizeof err);
    if (rc || bs.len != pl.total ||
        bb_dump_open_memory(buf, bs.len, "recovered", &dump, &err) != BB_OK) {
        free(buf);
        return fail(why, cap, "the recovered dump does not validate: %s",
                    rc ? "encoding failed" : err.message);
    }
    bb_dump_close(dump);
    *out = buf;
    *out_len = bs.len;
    return true;
}

bool cli_ring_to_dump(const uint8_t *d, size_t len, uint8_t **out, size_t *out_len,
                      cli_ring_info *info, char *why, size_t cap) {
    *out = NULL;
    *out_len = 0;
    if (!cli_ring_header(d, len, len, info, why, cap)) return false;
    regions g;
    read_regions(d, info, &g, why, cap);
    recovered r;
    memset(&r, 0, sizeof r);
    u64map_init(&r.sizes);
    u64map_init(&r.view_texts);
    bool ok = walk_meta(d, &g, &r, info) && take_interns(d, &g, &r);
    if (!ok) {
        recovered_free(&r);
        return fail(why, cap, "out of memory");
    }
    info->events = r.nevents;
    info->views = r.nviews;
    info->interns = r.ninterns;
    info->written = false;
    for (uint32_t i = 0; i < info->shards; i++)
        info->written |= get64(d + g.cursors + (uint64_t)i * BB_RING_CURSOR_STRIDE, 0) != 0;
    ok = assemble(d, &g, info, &r, out, out_len, why, cap);
    recovered_free(&r);
    return ok;
}

const char *cli_ring_warning(const cli_ring_info *info) {
    if (info->written && info->events == 0)
        return "its rings hold records but no schema could be recovered (the metadata log is "
               "damaged or lost): none of them can be decoded";
    return NULL;
}

int cli_ring_alive(int fd, const cli_ring_info *info, char *why, size_t cap) {
    if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
        flock(fd, LOCK_UN);
        return CLI_RING_GONE;
    }
    if (errno != EWOULDBLOCK) {
        fail(why, cap, "cannot test its lock: %s", strerror(errno));
        return CLI_RING_UNKNOWN;
    }
    char boot[BB_RING_BOOT_ID_MAX];
    bb_ring_boot_id(boot);
    if (!info->proc_start || !boot[0] || strcmp(boot, info->boot_id) != 0)
        return CLI_RING_RUNNING; /* cannot tell: take the lock's word */
    uint64_t now = info->pid <= (uint64_t)INT32_MAX ? bb_ring_proc_start((long)info->pid) : 0;
    return now == info->proc_start ? CLI_RING_RUNNING : CLI_RING_ORPHAN;
}

bool cli_ring_path_is(const char *path) {
    uint8_t magic[BB_RING_MAGIC_SIZE];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    bool is = read(fd, magic, sizeof magic) == (ssize_t)sizeof magic && cli_ring_is(magic, sizeof magic);
    close(fd);
    return is;
}

bool cli_ring_load(const char *path, uint8_t **out, size_t *out_len, cli_ring_info *info,
                   int *alive) {
    char why[512];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        cli_error("%s: cannot open: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return false;
    }
    size_t len = (size_t)sb.st_size;
    void *map = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    if (map == MAP_FAILED) {
        cli_error("%s: cannot map %zu bytes: %s", path, len, strerror(errno));
        close(fd);
        return false;
    }
    static const uint8_t none[1];
    bool ok = cli_ring_to_dump(map ? map : none, len, out, out_len, info, why, sizeof why);
    char lwhy[256];
    *alive = ok ? cli_ring_alive(fd, info, lwhy, sizeof lwhy) : CLI_RING_UNKNOWN;
    close(fd);
    if (map) munmap(map, len);
    if (!ok) cli_error("%s: %s", path, why);
    return ok;
}
