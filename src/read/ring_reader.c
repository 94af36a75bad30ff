/* ring_reader.c — opening a ring file (backbeat/ring_reader.h): read-only, non-blocking, a
 * regular file only, mapped PROT_READ; its header validated (checksum, geometry, every region
 * inside the file) before anything else is read; and whether its writer still runs (the flock
 * it holds, checked against the header's pid, start time and boot id). */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backbeat/reader.h"
#include "common/error_set.h"
#include "format/ring_file.h"
#include "read/ring_priv.h"

static bool fail(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(char *why, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return false;
}

uint32_t bb__ring_get32(const uint8_t *d, uint64_t off) {
    uint32_t v;
    memcpy(&v, d + off, 4);
    return v;
}
uint64_t bb__ring_get64(const uint8_t *d, uint64_t off) {
    uint64_t v;
    memcpy(&v, d + off, 8);
    return v;
}
uint64_t bb__ring_load64(const uint8_t *d, uint64_t off) {
    return __atomic_load_n((const uint64_t *)(const void *)(d + off), __ATOMIC_ACQUIRE);
}

/* a + n <= limit without overflow, and a aligned. */
static bool region_ok(uint64_t a, uint64_t n, uint64_t limit) {
    return a % BB_RING_ALIGN == 0 && a <= limit && n <= limit - a;
}

static bool read_regions(const uint8_t *d, const bb_ring_info *in, bb__ring_regions *r, char *why,
                         size_t cap) {
    r->cursors = bb__ring_get64(d, BB_RH_CURSORS_OFF);
    r->slots = bb__ring_get64(d, BB_RH_SLOTS_OFF);
    r->slot_count = bb__ring_get32(d, BB_RH_SLOT_COUNT);
    r->tag_base = bb__ring_get32(d, BB_RH_TAG_BASE);
    r->meta = bb__ring_get64(d, BB_RH_META_OFF);
    r->meta_len = bb__ring_get64(d, BB_RH_META_LEN);
    r->intern = bb__ring_get64(d, BB_RH_INTERN_OFF);
    r->arena = bb__ring_get64(d, BB_RH_ARENA_OFF);
    r->rings = bb__ring_get64(d, BB_RH_RINGS_OFF);
    r->entries = bb__ring_get32(d, BB_RH_INTERN_ENTRIES);
    r->bytes = bb__ring_get32(d, BB_RH_INTERN_BYTES);
    r->version = bb__ring_get32(d, BB_RH_VERSION);
    r->gens = r->version < 3 ? 1 : bb__ring_get32(d, BB_RH_GENS);
    uint64_t fs = in->file_size;
    if (r->gens == 0 || r->gens > BB_RING_GEN_MAX || r->gens > r->entries || r->gens > r->bytes)
        return fail(why, cap, "header has an invalid intern generation count (%u for %u entries)",
                    r->gens, r->entries);
    if (r->slot_count == 0 || r->slot_count > BB_RING_SLOT_MAX ||
        bb__ring_get32(d, BB_RH_SLOT_STRIDE) != BB_RING_SLOT_STRIDE)
        return fail(why, cap, "header has an invalid announcement table (%u entries of %u bytes)",
                    r->slot_count, bb__ring_get32(d, BB_RH_SLOT_STRIDE));
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

/* The fields of a header whose checksum holds. */
static bool read_fields(const uint8_t *d, bb_ring_info *info, char *why, size_t cap) {
    info->shards = bb__ring_get32(d, BB_RH_SHARDS);
    info->capacity = bb__ring_get64(d, BB_RH_CAPACITY);
    info->instance_id = bb__ring_get64(d, BB_RH_INSTANCE);
    info->pid = bb__ring_get64(d, BB_RH_PID);
    info->start_ns = bb__ring_get64(d, BB_RH_START_NS);
    info->file_size = bb__ring_get64(d, BB_RH_FILE_SIZE);
    info->state = bb__ring_get32(d, BB_RH_STATE);
    uint64_t c = info->capacity;
    if (bb__ring_get32(d, BB_RH_HEADER_SIZE) != BB_RING_HEADER_SIZE ||
        bb__ring_get32(d, BB_RH_CURSOR_STRIDE) != BB_RING_CURSOR_STRIDE || info->shards == 0 ||
        info->shards > 4096 || c < 4096 || c > (UINT64_C(1) << 40) || (c & (c - 1)) != 0)
        return fail(why, cap, "header has an invalid geometry (%u shards of %llu bytes)",
                    info->shards, (unsigned long long)c);
    info->proc_start = bb__ring_get64(d, BB_RH_PROC_START);
    memcpy(info->boot_id, d + BB_RH_BOOT_ID, sizeof info->boot_id);
    info->boot_id[sizeof info->boot_id - 1] = 0;
    const char *host = (const char *)d + BB_RH_HOST;
    size_t hl = strnlen(host, BB_RING_HOST_MAX);
    if (hl == BB_RING_HOST_MAX) return fail(why, cap, "header host is not terminated");
    memcpy(info->host, host, hl + 1);
    return true;
}

/* A file its process left before finishing the header (killed in its first milliseconds):
 * no bytes, zeros where the header goes, or a header whose state word was never set (it is
 * stored last, and recording starts after it). Nothing was recorded in it. */
static bool never_started(const uint8_t *d, size_t len) {
    if (len == 0) return true;
    bool magic = len >= BB_RING_MAGIC_SIZE && memcmp(d, BB_RING_MAGIC, BB_RING_MAGIC_SIZE) == 0;
    if (magic) return len >= BB_RING_HEADER_SIZE && bb__ring_get32(d, BB_RH_STATE) == 0;
    size_t n = len < BB_RING_HEADER_SIZE ? len : BB_RING_HEADER_SIZE;
    for (size_t i = 0; i < n; i++)
        if (d[i]) return false;
    return true;
}

/* Contract: see ring_priv.h. */
bool bb__ring_header(const uint8_t *d, size_t len, uint64_t size, bb_ring_info *info,
                     bb__ring_regions *g, bb_status *st, char *why, size_t cap) {
    memset(info, 0, sizeof *info);
    *st = BB_ERR_TRUNCATED;
    if (never_started(d, len)) return fail(why, cap, "%s", BB__RING_EMPTY_WHY);
    *st = BB_ERR_NOT_DUMP;
    if (len < BB_RING_MAGIC_SIZE || memcmp(d, BB_RING_MAGIC, BB_RING_MAGIC_SIZE) != 0)
        return fail(why, cap,
                    len < BB_RING_MAGIC_SIZE ? "empty or too short to be a ring file"
                                             : "not a ring file (wrong magic)");
    *st = BB_ERR_TRUNCATED;
    if (len < BB_RING_HEADER_SIZE)
        return fail(why, cap, "truncated: %zu bytes, shorter than the %u-byte header", len,
                    BB_RING_HEADER_SIZE);
    *st = BB_ERR_VERSION;
    uint32_t v = bb__ring_get32(d, BB_RH_VERSION);
    if (v < BB_RING_VERSION_MIN || v > BB_RING_VERSION)
        return fail(why, cap,
                    "ring file version %u is not supported (this backbeat reads %u to %u)", v,
                    BB_RING_VERSION_MIN, BB_RING_VERSION);
    *st = BB_ERR_CORRUPT;
    if (bb__ring_get64(d, BB_RH_CHECK) != bb__ring_fnv64(d, BB_RING_CHECKED))
        return fail(why, cap, "header checksum mismatch (the header is damaged)");
    if (!read_fields(d, info, why, cap) || !read_regions(d, info, g, why, cap)) return false;
    *st = BB_ERR_TRUNCATED;
    if (size < info->file_size)
        return fail(why, cap, "truncated: %llu of the %llu bytes its header announces",
                    (unsigned long long)size, (unsigned long long)info->file_size);
    *st = BB_OK;
    return true;
}

static bb_status make(const uint8_t *d, size_t len, int fd, bool mapped, const char *name,
                      bb_ring **out, bb_error *err) {
    char why[200];
    bb_ring tmp;
    memset(&tmp, 0, sizeof tmp);
    bb_status st;
    if (!bb__ring_header(d, len, len, &tmp.info, &tmp.g, &st, why, sizeof why))
        return bb__err_set(err, st, UINT64_MAX, NULL, "%s: %s", name, why);
    bb_ring *r = calloc(1, sizeof *r);
    uint32_t *stalls = calloc(tmp.info.shards, sizeof *stalls);
    if (!r || !stalls) {
        free(r);
        free(stalls);
        return bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "%s: out of memory", name);
    }
    *r = tmp;
    r->fd = fd;
    r->d = d;
    r->len = len;
    r->mapped = mapped;
    r->stalls = stalls;
    for (uint32_t s = 0; s < BB_RING_GEN_MAX; s++)
        r->gens[s] = (bb__ring_gen){BB_RING_GEN_FREE, 0, 0, r->g.bytes / r->g.gens};
    snprintf(r->name, sizeof r->name, "%s", name);
    *out = r;
    bb__err_clear(err);
    return BB_OK;
}

/* Contract: see ring_reader.h. */
bb_status bb_ring_open_memory(const void *data, size_t len, const char *name, bb_ring **out,
                              bb_error *err) {
    static const uint8_t none[1];
    if (!out || (!data && len))
        return bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "invalid argument");
    *out = NULL;
    return make(len ? data : none, len, -1, false, name ? name : "ring file", out, err);
}

/* Contract: see ring_reader.h. */
bool bb_ring_is_empty_error(const bb_error *err) {
    return err && err->status == BB_ERR_TRUNCATED && strstr(err->message, BB__RING_EMPTY_WHY);
}

/* Contract: see ring_reader.h. */
bb_status bb_ring_open(const char *path, bb_ring **out, bb_error *err) {
    if (!out || !path)
        return bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "invalid argument");
    *out = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        int e = errno;
        if (fd >= 0) close(fd);
        return bb__err_set(err, BB_ERR_IO, UINT64_MAX, NULL, "%s: cannot open: %s", path,
                           strerror(e));
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return bb__err_set(err, BB_ERR_IO, UINT64_MAX, NULL,
                           "%s: not a regular file (a FIFO, device, socket or directory)", path);
    }
    size_t len = (size_t)sb.st_size;
    void *map = len ? mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0) : NULL;
    if (map == MAP_FAILED) {
        int e = errno;
        close(fd);
        return bb__err_set(err, BB_ERR_IO, UINT64_MAX, NULL, "%s: cannot map %zu bytes: %s", path,
                           len, strerror(e));
    }
    static const uint8_t none[1];
    bb_status st = make(map ? map : none, len, fd, map != NULL, path, out, err);
    if (st != BB_OK) {
        if (map) munmap(map, len);
        close(fd);
    } else {
        bb__ring_let_go(*out); /* the header and metadata were copied while validated */
    }
    return st;
}

static char boot_id[BB_RING_BOOT_ID_MAX];
static void read_boot(void) { bb__ring_boot_id(boot_id); }

/* Contract: see ring_priv.h (charged by ring_follow.c, given back by bb_ring_close). */
uint64_t bb__ring_follow_ready;

void bb__ring_let_go(const bb_ring *r) {
    if (r->mapped && r->len) madvise((void *)(uintptr_t)r->d, r->len, MADV_DONTNEED);
}

/* Contract: see ring_reader.h. */
void bb_ring_close(bb_ring *r) {
    if (!r) return;
    if (r->mapped) munmap((void *)(uintptr_t)r->d, r->len);
    if (r->fd >= 0) close(r->fd);
    for (size_t i = 0; i < r->nevents; i++) free((void *)(uintptr_t)r->events[i].p);
    for (size_t i = 0; i < r->nviews; i++) free((void *)(uintptr_t)r->views[i].p);
    for (size_t i = 0; i < r->ninterns; i++) free((void *)(uintptr_t)r->interns[i].p);
    for (size_t i = 0; r->schemas && i < r->nevents; i++) {
        if (r->schemas[i].d) bb_dump_close(r->schemas[i].d);
        free(r->schemas[i].buf);
    }
    free(r->schemas);
    bb__u64map_free(&r->intern_ix);
    for (uint32_t i = 0; r->fol && r->fol->bufs && i < r->fol->n; i++)
        if (r->fol->bufs[i].bytes) munmap(r->fol->bufs[i].p, r->fol->bufs[i].bytes);
    if (r->fol) {
        __atomic_fetch_sub(&bb__ring_follow_ready, r->fol->ready, __ATOMIC_RELAXED);
        free(r->fol->bufs);
        free(r->fol->h0);
        if (r->fol->capstarts) munmap(r->fol->starts, r->fol->capstarts * sizeof *r->fol->starts);
        free(r->fol);
    }
    free(r->events);
    free(r->views);
    bb__u64map_free(&r->view_ix);
    free(r->sizes);
    bb__u64map_free(&r->size_ix);
    free(r->interns);
    for (uint64_t i = 0; r->intern_taken && i < BB__RING_INTERN_CHUNKS(r->g.entries); i++)
        free(r->intern_taken[i]);
    free(r->intern_taken);
    free(r->stalls);
    free(r->ranges);
    free(r);
}

const bb_ring_info *bb_ring_get_info(const bb_ring *r) { return r ? &r->info : NULL; }
const bb_ring_stats *bb_ring_get_stats(const bb_ring *r) { return r ? &r->stats : NULL; }
void bb_ring_buffer_free(void *dump) { bb__ring_buf_put(dump); }

/* Contract: see ring_priv.h. */
bool bb__ring_locked(const bb_ring *r) {
    if (r->fd < 0) return false;
    if (flock(r->fd, LOCK_SH | LOCK_NB) != 0) return true;
    flock(r->fd, LOCK_UN);
    return false;
}

/* This boot's id, read once per process (it cannot change while the process runs): a follower
 * asks for liveness every poll, and reading /proc each time cost more than its records. */
static const char *this_boot(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, read_boot);
    return boot_id;
}

/* Contract: see ring_reader.h. */
int bb_ring_liveness(const bb_ring *r) {
    if (!r || r->fd < 0) return BB_RING_GONE;
    if (flock(r->fd, LOCK_SH | LOCK_NB) == 0) {
        flock(r->fd, LOCK_UN);
        return BB_RING_GONE;
    }
    if (errno != EWOULDBLOCK) return BB_RING_UNKNOWN;
    const char *boot = this_boot();
    const bb_ring_info *in = &r->info;
    if (!in->proc_start || !boot[0] || strcmp(boot, in->boot_id) != 0)
        return BB_RING_RUNNING; /* cannot tell: take the lock's word */
    uint64_t now = in->pid <= (uint64_t)INT32_MAX ? bb__ring_proc_start((long)in->pid) : 0;
    return now == in->proc_start ? BB_RING_RUNNING : BB_RING_ORPHAN;
}

/* Contract: see ring_priv.h. A truncate between this check and a copy from the mapping still
 * raises SIGBUS (docs/HOSTILE_INPUTS.md). */
bb_status bb__ring_still_whole(const bb_ring *r, bb_error *err) {
    struct stat sb;
    if (!r->mapped || r->fd < 0) return BB_OK;
    if (fstat(r->fd, &sb) != 0)
        return bb__err_set(err, BB_ERR_IO, UINT64_MAX, NULL, "%s: cannot stat: %s", r->name,
                           strerror(errno));
    if (sb.st_size >= 0 && (uint64_t)sb.st_size >= r->len) return BB_OK;
    return bb__err_set(err, BB_ERR_TRUNCATED, UINT64_MAX, NULL,
                       "%s: truncated under the reader (%lld of the %zu bytes it had); not read "
                       "further",
                       r->name, (long long)sb.st_size, r->len);
}
