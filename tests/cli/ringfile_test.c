/* ringfile_test.c — recovering damaged ring files (src/cli/ringfile.c): a ring file written by
 * a real file-backed recorder of this process, then, on copies of its bytes, a half-written
 * and a corrupted metadata entry (skipped, the others kept, the records of the lost schema not
 * decoded), a metadata length that runs off the log (the walk stops), an intern entry whose
 * bytes no longer match its hash (dropped), a garbage ring and cursor (only records that
 * validate), records left in flight by killed writers over bytes of an older lap (blanked from
 * the announcement table, with a known position or not), and a truncated, zeroed, foreign or
 * inconsistent file (a clear error). */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../support/check.h"
#include "backbeat/backbeat.h"
#include "backbeat/detail/frame.h"
#include "backbeat/reader.h"
#include "cli/ringfile.h"
#include "format/ring_file.h"

BB_EVENT(rf_early, "rf_test", "Early", "registered before the recorder",
         BB_FIELD(uint64_t, n, "a number"), BB_INTERN_DYN_F(s, "a string"),
         BB_FIELD(uint32_t, _pad, NULL));

/* Registered by hand after the recorder exists: the last schema entry of the log. */
static const bb_field_desc late_field = {"v", NULL, NULL, NULL, 0, 0, 8, 0, BB_TYPE_U64, 0, 0, 0};
static bb_event_desc late = {
    BB__ABI_LAYOUT, "rf_test::Late", NULL, &late_field, 1, 8, BB_PHASE_NONE, 0, NULL};

typedef struct counts {
    size_t early, late;
} counts;

static int count(const bb_record *r, void *ctx) {
    counts *c = ctx;
    if (r->schema->name.len == 13 && !memcmp(r->schema->name.ptr, "rf_test::Late", 13)) c->late++;
    if (r->schema->name.len == 14 && !memcmp(r->schema->name.ptr, "rf_test::Early", 14)) c->early++;
    return 0;
}

/* Recover `d` and count what decodes; false (with the reason in why) when it is refused. */
static bool recover(const uint8_t *d, size_t len, counts *c, cli_ring_info *info, char *why) {
    uint8_t *out = NULL;
    size_t n = 0;
    memset(c, 0, sizeof *c);
    if (!cli_ring_to_dump(d, len, &out, &n, info, why, 256)) return false;
    bb_dump *dump = NULL;
    CHECK(bb_dump_open_memory(out, n, "r.bb", &dump, NULL) == BB_OK, "the dump opens");
    for (size_t i = 0; dump && i < bb_dump_instance_count(dump); i++) {
        const bb_rinstance *in = bb_dump_instance(dump, i);
        for (size_t s = 0; s < in->shard_count; s++)
            bb_shard_walk(dump, &in->shards[s], count, c, NULL);
    }
    if (dump) bb_dump_close(dump);
    free(out);
    return true;
}

static uint64_t get64(const uint8_t *d, size_t off) {
    uint64_t v;
    memcpy(&v, d + off, 8);
    return v;
}

/* Offset in the file of the last metadata entry of `kind`. */
static size_t last_entry(const uint8_t *d, uint16_t kind) {
    uint64_t meta = get64(d, BB_RH_META_OFF), tail = get64(d, BB_RH_META_TAIL), p = 0, found = 0;
    while (p + BB_RME_HEAD <= tail) {
        uint32_t len;
        uint16_t k;
        memcpy(&len, d + meta + p + BB_RME_OFF_LEN, 4);
        memcpy(&k, d + meta + p + BB_RME_OFF_KIND, 2);
        if (k == kind) found = meta + p;
        p += BB_RME_HEAD + (len + 7u) / 8 * 8;
    }
    return (size_t)found;
}

static uint8_t *copy(const uint8_t *d, size_t len) {
    uint8_t *c = malloc(len);
    if (!c) abort();
    memcpy(c, d, len);
    return c;
}

static void refix_header(uint8_t *d) {
    uint64_t h = bb__ring_fnv64(d, BB_RING_CHECKED);
    memcpy(d + BB_RH_CHECK, &h, 8);
}

/* Metadata damage: unfinished entry, checksum failure, a length running off the log. */
static void meta_damage(const uint8_t *d, size_t len) {
    counts c;
    cli_ring_info info;
    char why[256];
    size_t e = last_entry(d, BB_RME_EVENT);
    CHECK(e != 0, "the late schema's entry");
    uint8_t *u = copy(d, len);
    memset(u + e + BB_RME_OFF_MAGIC, 0, 4); /* killed before the magic was stored */
    CHECK(recover(u, len, &c, &info, why), "%s", why);
    CHECK(info.meta_skipped == 1 && c.late == 0 && c.early == 100,
          "unfinished: %zu skipped, %zu late, %zu early", info.meta_skipped, c.late, c.early);
    memcpy(u, d, len); /* killed in the payload's copy: the rest, checksum and magic unwritten */
    uint32_t plen;
    memcpy(&plen, d + e + BB_RME_OFF_LEN, 4);
    memset(u + e + BB_RME_HEAD + plen / 2, 0, plen - plen / 2);
    memset(u + e + BB_RME_OFF_MAGIC, 0, 4);
    memset(u + e + BB_RME_OFF_CHECK, 0, 4);
    CHECK(recover(u, len, &c, &info, why), "%s", why);
    CHECK(info.meta_skipped == 1 && c.late == 0 && c.early == 100, "half-copied: %zu skipped",
          info.meta_skipped);
    memcpy(u, d, len); /* killed right after claiming the space: an all-zero head */
    memset(u + e, 0, BB_RME_HEAD + (plen + 7u) / 8 * 8);
    CHECK(recover(u, len, &c, &info, why), "%s", why);
    CHECK(c.late == 0 && c.early == 100 && !info.meta_stopped, "claimed only: %zu late", c.late);
    memcpy(u, d, len);
    u[e + BB_RME_HEAD + 3] ^= 0x40; /* a payload byte overwritten */
    CHECK(recover(u, len, &c, &info, why), "%s", why);
    CHECK(info.meta_skipped == 1 && c.late == 0 && c.early == 100, "corrupt: %zu skipped",
          info.meta_skipped);
    memcpy(u, d, len);
    uint32_t huge = 0x7FFFFFF0u;
    memcpy(u + e + BB_RME_OFF_LEN, &huge, 4);
    CHECK(recover(u, len, &c, &info, why), "%s", why);
    CHECK(info.meta_stopped && c.late == 0 && c.early == 100, "stopped walk");
    CHECK(cli_ring_warning(&info) == NULL, "a warning although schemas were recovered");
    memcpy(u, d, len); /* the whole log lost: nothing decodes, and that is said */
    memset(u + get64(d, BB_RH_META_OFF), 0, get64(d, BB_RH_META_TAIL));
    CHECK(recover(u, len, &c, &info, why), "%s", why);
    CHECK(info.events == 0 && c.early == 0 && c.late == 0, "lost log: %zu schemas", info.events);
    CHECK(cli_ring_warning(&info) != NULL, "lost log: no warning");
    free(u);
}

/* An interned string's bytes overwritten: dropped; ring and cursor garbage: no crash. */
static void data_damage(const uint8_t *d, size_t len, size_t interns) {
    counts c;
    cli_ring_info info;
    char why[256];
    uint8_t *u = copy(d, len);
    uint64_t arena = get64(d, BB_RH_ARENA_OFF), rings = get64(d, BB_RH_RINGS_OFF);
    u[arena] ^= 0x20;
    CHECK(recover(u, len, &c, &info, why), "%s", why);
    CHECK(info.interns == interns - 1, "%zu of %zu intern entries", info.interns, interns);
    memcpy(u, d, len); /* every entry claims the same long string: cut at the arena's size */
    uint64_t intern = get64(d, BB_RH_INTERN_OFF);
    uint32_t entries, bytes;
    memcpy(&entries, d + BB_RH_INTERN_ENTRIES, 4);
    memcpy(&bytes, d + BB_RH_INTERN_BYTES, 4);
    uint32_t want_hash = 2166136261u, one = 1, zero = 0, big = bytes / 2 + 1;
    for (uint32_t k = 0; k < big; k++) want_hash = (want_hash ^ u[arena + k]) * 16777619u;
    for (uint32_t i = 0; i < entries; i++) {
        uint8_t *e = u + intern + (uint64_t)i * 16;
        memcpy(e, &zero, 4);
        memcpy(e + 4, &big, 4);
        memcpy(e + 8, &want_hash, 4);
        memcpy(e + 12, &one, 4);
    }
    CHECK(recover(u, len, &c, &info, why), "%s", why);
    CHECK(info.interns == 1, "overlapping entries: %zu taken", info.interns);
    memcpy(u, d, len);
    srand(7);
    for (size_t i = rings; i < len; i++) u[i] = (uint8_t)rand();
    uint64_t head = UINT64_MAX - 5, cur = get64(d, BB_RH_CURSORS_OFF);
    memcpy(u + cur, &head, 8);
    memcpy(u + cur + 8, &head, 8); /* a lapped-writer mark too */
    CHECK(recover(u, len, &c, &info, why), "garbage rings are a dump: %s", why);
    free(u);
}

/* ---- records in flight at a kill (src/cli/ring_inflight.c) ------------------------------- */

/* The rf_test::Early records of one recovery: their n, and where each lies. */
typedef struct early_set {
    uint64_t n[128], pos[128];
    uint32_t shard[128];
    size_t count;
    bool dup; /* an n seen twice */
    bool bad; /* an n out of range */
} early_set;

static int collect(const bb_record *r, void *ctx) {
    early_set *e = ctx;
    if (r->schema->name.len != 14 || memcmp(r->schema->name.ptr, "rf_test::Early", 14)) return 0;
    uint64_t n;
    memcpy(&n, r->fields, 8);
    for (size_t k = 0; k < e->count; k++) e->dup |= e->n[k] == n;
    e->bad |= n >= 100;
    if (e->count < 128) {
        e->n[e->count] = n;
        e->pos[e->count] = r->position;
        e->shard[e->count++] = r->shard_id;
    }
    return 0;
}

static bool recover_early(const uint8_t *d, size_t len, early_set *e) {
    uint8_t *out = NULL;
    size_t n = 0;
    cli_ring_info info;
    char why[256];
    memset(e, 0, sizeof *e);
    if (!cli_ring_to_dump(d, len, &out, &n, &info, why, sizeof why)) return false;
    bb_dump *dump = NULL;
    if (bb_dump_open_memory(out, n, "r.bb", &dump, NULL) == BB_OK) {
        const bb_rinstance *in = bb_dump_instance(dump, 0);
        for (size_t s = 0; in && s < in->shard_count; s++)
            bb_shard_walk(dump, &in->shards[s], collect, e, NULL);
        bb_dump_close(dump);
    }
    free(out);
    return true;
}

/* The file offset of absolute position `pos` of shard `shard`'s ring. */
static size_t ring_at(const uint8_t *d, uint32_t shard, uint64_t pos) {
    uint64_t cap = get64(d, BB_RH_CAPACITY);
    return (size_t)(get64(d, BB_RH_RINGS_OFF) + shard * cap + (pos & (cap - 1)));
}

/* Announce in entry `i` of the file's table a record of `len` bytes of `shard` at `pos`. */
static void announce(uint8_t *u, uint32_t i, uint32_t shard, uint64_t len, uint64_t pos) {
    uint32_t tag;
    memcpy(&tag, u + BB_RH_TAG_BASE, 4);
    uint64_t taglen = len << 32 | (tag + shard);
    uint8_t *e = u + get64(u, BB_RH_SLOTS_OFF) + (uint64_t)i * BB_RING_SLOT_STRIDE;
    memcpy(e, &taglen, 8);
    memcpy(e + 8, &pos, 8);
}

/* Records a, a+1 of `e` adjacent in one shard, with at least 3 records older than a. */
static size_t adjacent_pair(const early_set *e, size_t frame) {
    for (size_t k = 3; k + 1 < e->count; k++) /* walk order: newest first */
        if (e->shard[k] == e->shard[k + 1] && e->pos[k + 1] + frame == e->pos[k] &&
            e->count - k > 4)
            return k + 1;
    return SIZE_MAX;
}

/* Over record slots [p, p + n): the bytes of older records shifted by 4 (an older lap whose
 * record boundaries fall elsewhere), from `src` of the same shard. */
static void stale(uint8_t *u, const uint8_t *d, uint32_t shard, uint64_t p, uint64_t src,
                  size_t n) {
    for (size_t k = 0; k < n; k++) u[ring_at(u, shard, p + k)] = d[ring_at(d, shard, src + 4 + k)];
}

static void inflight_damage(const uint8_t *d, size_t len) {
    const size_t frame = BB__FRAME_SIZE(sizeof(rf_early));
    early_set all, e;
    CHECK(recover_early(d, len, &all) && all.count == 100, "intact: %zu", all.count);
    size_t k = adjacent_pair(&all, frame);
    CHECK(k != SIZE_MAX, "two adjacent records");
    if (k == SIZE_MAX) return;
    uint32_t sh = all.shard[k];
    uint64_t p = all.pos[k], src = all.pos[all.count - 1] < p ? all.pos[all.count - 1] : 0;
    for (size_t i = 0; i < all.count; i++)
        if (all.shard[i] == sh && all.pos[i] < src) src = all.pos[i];
    uint8_t *u = copy(d, len);

    /* Position known: the slot holds an older record whole (the walk would take it). */
    memcpy(u + ring_at(u, sh, p), d + ring_at(d, sh, src), frame);
    CHECK(recover_early(u, len, &e) && e.dup, "control: the stale record passes unannounced");
    announce(u, 0, sh, frame, p);
    CHECK(recover_early(u, len, &e) && !e.dup && !e.bad && e.count == 99,
          "in flight, position known: %zu records, dup %d", e.count, e.dup);

    /* Position unknown, two threads stopped right after adjacent reservations. */
    memcpy(u, d, len);
    stale(u, d, sh, p, src, 2 * frame);
    CHECK(recover_early(u, len, &e) && (e.dup || e.bad || e.count != 98),
          "control: shifted stale bytes mislead the walk unannounced (%zu records)", e.count);
    announce(u, 3, sh, frame, UINT64_MAX);
    announce(u, 7, sh, frame, UINT64_MAX);
    announce(u, 9, sh, frame, UINT64_MAX); /* stopped before reserving: no hole */
    CHECK(recover_early(u, len, &e) && !e.dup && !e.bad && e.count == 98,
          "in flight, position unknown: %zu records, dup %d bad %d", e.count, e.dup, e.bad);
    free(u);
}

/* Files that are refused, each with a reason that says what is wrong. */
static void refused(const uint8_t *d, size_t len) {
    counts c;
    cli_ring_info info;
    char why[256];
    struct {
        const char *what, *reason;
        size_t len;
        size_t at;
        int value; /* -1: no change; -2: zero everything; -3: set shards (checksum fixed)
                    * (a file killed before its header was complete reads as empty, issue 19.8) */
    } cases[] = {
        {"empty", "empty: its process ended before", 0, 0, -1},
        {"header cut", "truncated", 4095, 0, -1},
        {"rings cut", "truncated", len - 1, 0, -1},
        {"zeroed", "empty: its process ended before", len, 0, -2},
        {"state unset", "empty: its process ended before", len, BB_RH_STATE, 0},
        {"zeroed start", "wrong magic", len, 0, 0},
        {"header byte", "checksum", len, BB_RH_SHARDS, 0x55},
        {"version", "version", len, BB_RH_VERSION, 9},
        {"geometry", "geometry", len, 0, -3},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uint8_t *u = copy(d, len);
        if (cases[k].value == -2) memset(u, 0, len);
        if (cases[k].value >= 0) u[cases[k].at] = (uint8_t)cases[k].value;
        if (cases[k].value == -3) {
            uint32_t shards = 5000;
            memcpy(u + BB_RH_SHARDS, &shards, 4);
            refix_header(u);
        }
        bool ok = recover(u, cases[k].len, &c, &info, why);
        CHECK(!ok && strstr(why, cases[k].reason), "%s: %s", cases[k].what, ok ? "accepted" : why);
        free(u);
    }
    static const uint8_t dump[] = "BACKBEAT\1\0\1\0\0\0\0\0";
    CHECK(!cli_ring_to_dump(dump, sizeof dump, &(uint8_t *){NULL}, &(size_t){0}, &info, why, 256) &&
              strstr(why, "wrong magic"),
          "a .bb dump: %s", why);
}

/* A ring-file recorder in dir (kept at free) with 8 KiB shards and a 4 KiB intern arena,
 * enabled; NULL (reported) on failure. */
static bb_recorder *ring_recorder(const char *dir, uint32_t shards, uint32_t intern_entries) {
    bb_recorder *rec = NULL;
    bb_error err;
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = shards;
    o.bytes_per_shard = 8192;
    o.intern_entries = intern_entries;
    o.intern_bytes = 4096;
    CHECK(bb_recorder_create_ring(&o, dir, true, &rec, &err) == BB_OK, "%s", err.message);
    if (rec) bb_recorder_enable(rec, true);
    return rec;
}

/* The intern table of instance 0 of the dump d[n], or NULL; *count its entries. */
static const bb_rintern *interns_of(bb_dump **dump, const void *d, size_t n, size_t *count) {
    *count = 0;
    if (bb_dump_open_memory(d, n, "i.bb", dump, NULL) != BB_OK ||
        bb_dump_instance_count(*dump) != 1)
        return NULL;
    *count = bb_dump_instance(*dump, 0)->intern_count;
    return bb_dump_instance(*dump, 0)->intern;
}

/* A ring file whose intern table filled: the recovered dump resolves BB_INTERN_FULL_ID to the
 * placeholder, with the same intern table as a live dump of the same recorder. */
static void intern_full(const char *dir) {
    bb_recorder *rec = ring_recorder(dir, 1, 2);
    if (!rec) return;
    bb_error err;
    uint32_t ids[3];
    for (int i = 0; i < 3; i++) {
        char s[8];
        snprintf(s, sizeof s, "f%d", i);
        ids[i] = bb_intern_str(rec, s);
        BB_RECORD(rec, rf_early, .n = (uint64_t)i, .s = ids[i]);
    }
    CHECK(ids[2] == BB_INTERN_FULL_ID && ids[0] != BB_INTERN_FULL_ID, "the third intern is full");
    void *live = NULL;
    size_t live_len = 0;
    CHECK(bb_recorder_dump_buffer(rec, &live, &live_len, &err) == BB_OK, "live dump");
    char path[512];
    snprintf(path, sizeof path, "%s", bb_recorder_ring_path(rec));
    bb_recorder_free(rec);
    int fd = open(path, O_RDONLY);
    struct stat sb;
    uint8_t *d = fd >= 0 && fstat(fd, &sb) == 0 ? malloc((size_t)sb.st_size) : NULL;
    CHECK(d && pread(fd, d, (size_t)sb.st_size, 0) == sb.st_size, "read %s", path);
    if (fd >= 0) close(fd);
    unlink(path);
    uint8_t *out = NULL;
    size_t n = 0;
    cli_ring_info info;
    char why[256];
    CHECK(d && cli_ring_to_dump(d, (size_t)sb.st_size, &out, &n, &info, why, sizeof why), "%s",
          why);
    CHECK(info.intern_full, "the header says the table filled");
    bb_dump *a = NULL, *b = NULL;
    size_t na, nb;
    const bb_rintern *ia = interns_of(&a, out, n, &na), *ib = interns_of(&b, live, live_len, &nb);
    CHECK(ia && ib && na == 3 && nb == 3, "3 intern entries each: %zu recovered, %zu live", na, nb);
    for (size_t i = 0; ia && ib && i < na && i < nb; i++)
        CHECK(ia[i].id == ib[i].id && ia[i].bytes.len == ib[i].bytes.len &&
                  !memcmp(ia[i].bytes.ptr, ib[i].bytes.ptr, ia[i].bytes.len),
              "intern entry %zu: recovered as live", i);
    bb_strview sv = {0};
    CHECK(a && bb_rinstance_intern(bb_dump_instance(a, 0), BB_INTERN_FULL_ID, &sv) &&
              sv.len == strlen("<backbeat: intern table full>") &&
              !memcmp(sv.ptr, "<backbeat: intern table full>", sv.len),
          "BB_INTERN_FULL_ID resolves to the placeholder");
    if (a) bb_dump_close(a);
    if (b) bb_dump_close(b);
    free(out);
    free(live);
    free(d);
}

int main(void) {
    char dir[] = "/tmp/bb_ringfile_test.XXXXXX";
    if (!mkdtemp(dir)) return 1;
    bb_recorder *rec = ring_recorder(dir, 2, 64);
    if (!rec) return 1;
    bb_registry_add(&late);
    char s[16];
    for (uint64_t i = 0; i < 100; i++) {
        snprintf(s, sizeof s, "s%llu", (unsigned long long)(i % 10));
        BB_RECORD(rec, rf_early, .n = i, .s = bb_intern_str(rec, s));
    }
    for (uint64_t v = 0; v < 5; v++) bb_record_event(rec, &late, &v, 8);
    char path[512];
    snprintf(path, sizeof path, "%s", bb_recorder_ring_path(rec));
    bb_recorder_free(rec);
    CHECK(access(path, F_OK) == 0, "kept: %s", path);
    FILE *f = fopen(path, "rb");
    size_t len = 0;
    uint8_t *d = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0 && (len = (size_t)ftell(f)) > 0 && (d = malloc(len)) &&
        fseek(f, 0, SEEK_SET) == 0)
        CHECK(fread(d, 1, len, f) == len, "read %s", path);
    if (f) fclose(f);
    unlink(path);
    intern_full(dir);
    rmdir(dir);
    if (!d) return 1;

    counts c;
    cli_ring_info info;
    char why[256];
    CHECK(recover(d, len, &c, &info, why), "%s", why);
    CHECK(c.early == 100 && c.late == 5 && info.interns == 10 && info.meta_skipped == 0,
          "intact: %zu early, %zu late, %zu interns", c.early, c.late, info.interns);
    CHECK(info.state == BB_RING_STATE_CLOSED, "closed by bb_recorder_free");
    meta_damage(d, len);
    data_damage(d, len, info.interns);
    inflight_damage(d, len);
    refused(d, len);
    free(d);
    return failures ? 1 : 0;
}
