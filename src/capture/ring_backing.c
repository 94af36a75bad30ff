/* ring_backing.c — a recorder's storage in a ring file (docs/RING_FILE.md, layout in
 * src/format/ring_file.h): create the file, reserve its whole size on disk, lock it (the
 * flock says "the writer is alive" to `backbeat recover`), map it MAP_SHARED, write the header,
 * point the recorder's cursors, announcement table, rings and intern table (its generations'
 * storages, their table in the header: intern_ring.c) into it, and attach the metadata log
 * (ring_meta.c). Closing unmaps it and removes it unless kept, only in the creating process. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "capture/recorder_internal.h"
#include "capture/ring_backing.h"
#include "common/error_set.h"
#include "format/fsize_guard.h"
#include "format/ring_file.h"

/* The file's announcement entries are the recorder's struct bb__tslot, in place. */
_Static_assert(sizeof(struct bb__tslot) == BB_RING_SLOT_STRIDE &&
                   offsetof(struct bb__tslot, taglen) == 0 && offsetof(struct bb__tslot, pos) == 8,
               "ring file announcement layout");
/* ... and its cursors the recorder's struct bb__cursor. */
_Static_assert(sizeof(struct bb__cursor) == BB_RING_CURSOR_STRIDE &&
                   offsetof(struct bb__cursor, head) == BB_RC_HEAD &&
                   offsetof(struct bb__cursor, damaged_below) == BB_RC_DAMAGED_BELOW &&
                   offsetof(struct bb__cursor, big_frame) == BB_RC_BIG_FRAME,
               "ring file cursor layout");

/* Default size of the metadata log (schemas and view sets). */
#define BB_RING_META_DEFAULT (1u << 20)

/* Where each region goes, from the recorder's geometry. */
typedef struct layout {
    uint64_t cursors_off, slots_off, meta_off, meta_len, intern_off, arena_off, rings_off, size;
} layout;

static uint64_t align_up(uint64_t v) {
    return (v + BB_RING_ALIGN - 1) / BB_RING_ALIGN * BB_RING_ALIGN;
}

static layout plan(const struct bb__recorder_hot *h, uint32_t entries, uint32_t bytes) {
    layout l;
    l.cursors_off = BB_RING_HEADER_SIZE;
    l.slots_off = l.cursors_off + align_up((uint64_t)h->shard_count * BB_RING_CURSOR_STRIDE);
    l.meta_off = l.slots_off + align_up((uint64_t)(BB_TSLOTS + 1) * BB_RING_SLOT_STRIDE);
    l.meta_len = BB_RING_META_DEFAULT;
    l.intern_off = l.meta_off + l.meta_len;
    l.arena_off = l.intern_off + align_up((uint64_t)entries * BB_RING_INTERN_ENTRY);
    l.rings_off = l.arena_off + align_up(bytes);
    l.size = l.rings_off + h->capacity * h->shard_count;
    return l;
}

static void put32(uint8_t *b, size_t off, uint32_t v) { memcpy(b + off, &v, 4); }
static void put64(uint8_t *b, size_t off, uint64_t v) { memcpy(b + off, &v, 8); }

static uint64_t realtime_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The header, checksum last, then the state. */
static void write_header(uint8_t *b, const bb_recorder *rec, const layout *l) {
    const struct bb__recorder_hot *h = &rec->hot;
    memcpy(b + BB_RH_MAGIC, BB_RING_MAGIC, BB_RING_MAGIC_SIZE);
    put32(b, BB_RH_VERSION, BB_RING_VERSION);
    put32(b, BB_RH_HEADER_SIZE, BB_RING_HEADER_SIZE);
    put32(b, BB_RH_PAGE_SIZE, (uint32_t)sysconf(_SC_PAGESIZE));
    put32(b, BB_RH_SHARDS, h->shard_count);
    put64(b, BB_RH_CAPACITY, h->capacity);
    put32(b, BB_RH_CLOCK, (uint32_t)rec->clock_kind);
    put32(b, BB_RH_CURSOR_STRIDE, BB_RING_CURSOR_STRIDE);
    put64(b, BB_RH_INSTANCE, rec->instance_id);
    put64(b, BB_RH_PID, (uint64_t)getpid());
    put64(b, BB_RH_START_NS, realtime_ns());
    put64(b, BB_RH_CLOCK_NS, bb_recorder_now(rec));
    put64(b, BB_RH_FILE_SIZE, l->size);
    put64(b, BB_RH_CURSORS_OFF, l->cursors_off);
    put64(b, BB_RH_META_OFF, l->meta_off);
    put64(b, BB_RH_META_LEN, l->meta_len);
    put64(b, BB_RH_INTERN_OFF, l->intern_off);
    put64(b, BB_RH_ARENA_OFF, l->arena_off);
    put32(b, BB_RH_INTERN_ENTRIES, rec->intern.cap_entries);
    put32(b, BB_RH_INTERN_BYTES, rec->intern.cap_bytes);
    put64(b, BB_RH_RINGS_OFF, l->rings_off);
    put64(b, BB_RH_SLOTS_OFF, l->slots_off);
    put32(b, BB_RH_SLOT_COUNT, BB_TSLOTS + 1);
    put32(b, BB_RH_SLOT_STRIDE, BB_RING_SLOT_STRIDE);
    put32(b, BB_RH_TAG_BASE, h->tag_base);
    put32(b, BB_RH_GENS, rec->intern.ngens);
    put64(b, BB_RH_TSC_BASE, h->tsc_base);
    put64(b, BB_RH_TSC_MULT, h->tsc_mult);
    put64(b, BB_RH_NS_BASE, h->ns_base);
    put64(b, BB_RH_MONO_OFFSET, (uint64_t)h->mono_offset);
    put64(b, BB_RH_PROC_START, bb__ring_proc_start((long)getpid()));
    char boot[BB_RING_BOOT_ID_MAX];
    bb__ring_boot_id(boot);
    memcpy(b + BB_RH_BOOT_ID, boot, BB_RING_BOOT_ID_MAX - 1);
    size_t hl = strnlen(rec->host, BB_RING_HOST_MAX - 1);
    memcpy(b + BB_RH_HOST, rec->host, hl); /* the rest of the field stays zero */
    put64(b, BB_RH_CHECK, bb__ring_fnv64(b, BB_RING_CHECKED));
    __atomic_store_n((uint32_t *)(void *)(b + BB_RH_STATE), BB_RING_STATE_RUNNING,
                     __ATOMIC_RELEASE);
}

/* Create, size, lock and map the file; fills rf. On failure removes it and sets err. */
static bb_status open_file(bb__ring_file *rf, const char *dir, uint64_t instance, uint64_t size,
                           bb_error *err) {
    size_t n = strlen(dir) + 64;
    rf->path = malloc(n);
    if (!rf->path)
        return bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "ring file: out of memory");
    int k = snprintf(rf->path, n, "%s/", dir);
    snprintf(rf->path + k, n - (size_t)k, BB_RING_NAME_FMT, (long)getpid(),
             (unsigned long long)instance);
    rf->fd = open(rf->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (rf->fd < 0)
        return bb__err_set(err, BB_ERR_IO, UINT64_MAX, NULL, "ring file: cannot create %s: %s",
                           rf->path, strerror(errno));
    const char *step = "reserve";
    /* Never grow the file past RLIMIT_FSIZE: the kernel would send SIGXFSZ, which kills the
     * host program by default. Refused here (and by the guard should the limit change
     * meanwhile), the recorder falls back to anonymous memory. */
    struct rlimit rl;
    bool over = getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
                size > (uint64_t)rl.rlim_cur;
    bb__fsize_guard guard;
    bb__fsize_guard_begin(&guard);
    int e = over || size > (uint64_t)INT64_MAX ? EFBIG : posix_fallocate(rf->fd, 0, (off_t)size);
    bb__fsize_guard_end(&guard);
    if (e == 0) {
        step = "lock";
        e = flock(rf->fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno;
    }
    if (e == 0) {
        step = "map";
        void *p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, rf->fd, 0);
        e = p == MAP_FAILED ? errno : 0;
        rf->base = p == MAP_FAILED ? NULL : p;
        rf->size = (size_t)size;
    }
    if (e == 0) return BB_OK;
    bb__err_set(err, BB_ERR_IO, UINT64_MAX, NULL, "ring file: cannot %s %llu bytes for %s: %s",
                step, (unsigned long long)size, rf->path, strerror(e));
    unlink(rf->path);
    close(rf->fd);
    rf->fd = -1;
    return BB_ERR_IO;
}

static void free_file(bb__ring_file *rf) {
    free(rf->seen);
    if (rf->base) munmap(rf->base, rf->size);
    if (rf->fd >= 0) close(rf->fd);
    free(rf->path);
    free(rf);
}

/* Contract: see ring_backing.h. */
bb_status bb__ring_backing_create(bb_recorder *rec, const char *dir, bool keep,
                                  uint32_t intern_entries, uint32_t intern_bytes, bb_error *err) {
    struct bb__recorder_hot *h = &rec->hot;
    if (intern_entries == 0 || intern_entries > (1u << 28) || intern_bytes == 0)
        return bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "ring file: invalid intern size");
    layout l = plan(h, intern_entries, intern_bytes);
    bb__ring_file *rf = calloc(1, sizeof *rf);
    if (!rf) return bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "ring file: out of memory");
    rf->fd = -1;
    rf->pid = getpid();
    rf->keep = keep;
    bb_status st = open_file(rf, dir, rec->instance_id, l.size, err);
    bool opened = st == BB_OK;
    if (st == BB_OK)
        st = bb__intern_table_init_at(&rec->intern, intern_entries, intern_bytes,
                                      rf->base + l.intern_off, rf->base + l.arena_off,
                                      (uint32_t *)(void *)(rf->base + BB_RH_INTERN_FULL), h,
                                      rf->base + BB_RH_GEN_TABLE);
    if (st == BB_OK) {
        h->cursors = (struct bb__cursor *)(void *)(rf->base + l.cursors_off);
        h->rings = rf->base + l.rings_off;
        struct bb__tslot *table = (struct bb__tslot *)(void *)(rf->base + l.slots_off);
        bb__inflight_table_init(table);
        h->slot_base = (uintptr_t)table - sizeof *table;
        rec->rings_len = (size_t)(h->capacity * h->shard_count);
        write_header(rf->base, rec, &l);
        rec->ring = rf;
        st = bb__ring_meta_attach(rf);
    }
    if (st != BB_OK) {
        if (opened)
            bb__err_set(err, st, UINT64_MAX, NULL, "ring file %s: %s", rf->path, bb_strerror(st));
        if (rec->ring) bb__ring_meta_detach(rf);
        if (rf->fd >= 0) unlink(rf->path);
        bb__intern_table_destroy(&rec->intern);
        h->cursors = NULL;
        h->rings = NULL;
        h->slot_base = 0;
        rec->ring = NULL;
        free_file(rf);
    }
    return st;
}

/* Mark the file closed, and remove it if it is ours to remove. */
static void retire(bb__ring_file *rf, bool drop) {
    __atomic_store_n((uint32_t *)(void *)(rf->base + BB_RH_STATE), BB_RING_STATE_CLOSED,
                     __ATOMIC_RELEASE);
    if ((drop || !rf->keep) && rf->pid == getpid()) unlink(rf->path);
}

/* Contract: see ring_backing.h. */
void bb__ring_backing_close(bb_recorder *rec) {
    bb__ring_file *rf = rec->ring;
    if (!rf) return;
    bb__ring_meta_detach(rf);
    if (rf->pid == getpid()) retire(rf, false);
    rec->hot.cursors = NULL;
    rec->hot.rings = NULL;
    rec->ring = NULL;
    free_file(rf);
}

/* Contract: see ring_backing.h. */
void bb__ring_backing_exit(bb_recorder *rec, bool drop) {
    if (rec && rec->ring && rec->ring->pid == getpid()) retire(rec->ring, drop);
}
