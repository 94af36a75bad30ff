/* dataset_index.c — the duplicate keys already in a dataset (see convert/dataset.h).
 *
 * One file per instance, DIR/_backbeat/index/<instance 16 hex>.keys: the 8 bytes "BBIDX1\0\0",
 * then one 16-byte little-endian entry per record in the dataset (ts_nanos u64, shard_id u32,
 * offset u32; the instance is the file's). Only the files of the instances the inputs hold are
 * read, so an append costs its input plus those instances' history, not the whole dataset.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error_set.h"
#include "convert/dataset.h"
#include "common/le_bytes.h"

#define MAGIC "BBIDX1\0\0"
#define ENTRY 16

typedef struct key {
    uint64_t ts, inst;
    uint32_t shard, off;
} key;

typedef struct inst_keys {
    uint64_t id;
    uint8_t *fresh; /* entries added by this run */
    size_t nfresh, cap;
} inst_keys;

struct ds_index {
    key *slots; /* open addressing; inst == 0 && ts == 0 && shard == 0 && off == 0: empty */
    bool *used;
    size_t mask, count;
    inst_keys *insts; /* the model's instances, by id order */
    size_t ninst;
    bool mem_only; /* ds_index_mem: any instance, nothing to save */
};

static uint64_t key_hash(const key *k)
{
    uint64_t h = k->ts * 0x9e3779b97f4a7c15ull ^ k->inst * 0xc2b2ae3d27d4eb4full ^
                 ((uint64_t)k->shard << 32 | k->off) * 0x165667b19e3779f9ull;
    return h ^ (h >> 31);
}

static bool key_eq(const key *a, const key *b)
{
    return a->ts == b->ts && a->inst == b->inst && a->shard == b->shard && a->off == b->off;
}

/* The slot of k: its own or the empty one where it goes. */
static size_t slot_of(const ds_index *x, const key *k)
{
    size_t j = (size_t)key_hash(k) & x->mask;
    while (x->used[j] && !key_eq(&x->slots[j], k))
        j = (j + 1) & x->mask;
    return j;
}

/* Insert k (no-op when present); false when out of memory. */
static bool put(ds_index *x, const key *k)
{
    if ((x->count + 1) * 2 > x->mask + 1) {
        size_t cap = (x->mask + 1) * 2;
        ds_index g = {.slots = calloc(cap, sizeof *g.slots), .used = calloc(cap, 1),
                      .mask = cap - 1};
        if (!g.slots || !g.used) {
            free(g.slots);
            free(g.used);
            return false;
        }
        for (size_t i = 0; i <= x->mask; i++)
            if (x->used[i]) {
                size_t j = slot_of(&g, &x->slots[i]);
                g.slots[j] = x->slots[i];
                g.used[j] = true;
            }
        free(x->slots);
        free(x->used);
        x->slots = g.slots;
        x->used = g.used;
        x->mask = g.mask;
    }
    size_t j = slot_of(x, k);
    if (!x->used[j]) {
        x->slots[j] = *k;
        x->used[j] = true;
        x->count++;
    }
    return true;
}

/* DIR/_backbeat/index/<id>.keys, malloc'ed. */
static char *index_path(const char *dir, uint64_t id)
{
    size_t n = strlen(dir) + 64;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/_backbeat/index/%016llx.keys", dir, (unsigned long long)id);
    return p;
}

/* "<id>.keys" */
static void index_name(char *buf, size_t cap, uint64_t id)
{
    snprintf(buf, cap, "%016llx.keys", (unsigned long long)id);
}

/* Load one instance's file (in ifd) into the set; false after a message. */
static bool load_one(ds_index *x, const char *dir, int ifd, uint64_t id, bb_error *err)
{
    char *path = index_path(dir, id), name[32];
    uint8_t *d;
    size_t n;
    index_name(name, sizeof name, id);
    errno = 0;
    if (!path || !ds_slurp(ifd, name, SIZE_MAX, &d, &n)) {
        ds_err(err, "cannot read %s: %s", path ? path : dir, path ? strerror(errno) : "out of memory");
        free(path);
        return false;
    }
    bool ok = true;
    if (d && (n < 8 || memcmp(d, MAGIC, 8) != 0 || (n - 8) % ENTRY != 0)) {
        ds_err(err, "%s: not a backbeat dataset index (bad header or a torn entry: %zu bytes)",
                  path, n);
        ok = false;
    }
    for (size_t o = 8; ok && d && o + ENTRY <= n; o += ENTRY) {
        key k = {bb_le_get_u64(d + o), id, bb_le_get_u32(d + o + 8), bb_le_get_u32(d + o + 12)};
        if (!put(x, &k)) {
            ds_err(err, "cannot read %s: out of memory", path);
            ok = false;
        }
    }
    free(d);
    free(path);
    return ok;
}

ds_index *ds_index_load(const ds_handle *h, const bb_model *model, bb_error *err)
{
    const char *dir = h->dir;
    ds_index *x = calloc(1, sizeof *x);
    size_t ni = bb_model_instance_count(model);
    if (x) {
        x->slots = calloc(64, sizeof *x->slots);
        x->used = calloc(64, 1);
        x->mask = 63;
        x->insts = calloc(ni ? ni : 1, sizeof *x->insts);
    }
    if (!x || !x->slots || !x->used || !x->insts) {
        ds_err(err, "out of memory");
        ds_index_free(x);
        return NULL;
    }
    x->ninst = ni;
    int ifd = ds_open_dirs(h->bfd, "index", false);
    if (ifd < 0 && errno != ENOENT) {
        ds_err(err, "cannot read %s/_backbeat/index: %s", dir, strerror(errno));
        ds_index_free(x);
        return NULL;
    }
    for (size_t i = 0; i < ni; i++) {
        x->insts[i].id = bb_model_instance(model, i)->instance_id;
        if (!load_one(x, dir, ifd, x->insts[i].id, err)) {
            ds_index_free(x);
            x = NULL;
            break;
        }
    }
    if (ifd >= 0)
        close(ifd);
    return x;
}

ds_index *ds_index_mem(void)
{
    ds_index *x = calloc(1, sizeof *x);
    if (x) {
        x->slots = calloc(64, sizeof *x->slots);
        x->used = calloc(64, 1);
        x->mask = 63;
        x->mem_only = true;
    }
    if (x && (!x->slots || !x->used)) {
        ds_index_free(x);
        x = NULL;
    }
    return x;
}

static key key_of(const bb_record *r)
{
    key k = {r->ts, r->instance_id, r->shard_id, r->offset};
    return k;
}

bool ds_index_has(const ds_index *x, const bb_record *r)
{
    key k = key_of(r);
    return x->used[slot_of(x, &k)];
}

/* The instance entry of id (the model's instances are sorted by id). */
static inst_keys *inst_of(ds_index *x, uint64_t id)
{
    size_t lo = 0, hi = x->ninst;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->insts[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < x->ninst && x->insts[lo].id == id ? &x->insts[lo] : NULL;
}

bool ds_index_add(ds_index *x, const bb_record *r)
{
    key k = key_of(r);
    if (x->mem_only)
        return put(x, &k);
    inst_keys *ik = inst_of(x, r->instance_id);
    if (!ik || !put(x, &k))
        return false;
    if (ik->nfresh == ik->cap) {
        size_t cap = ik->cap ? ik->cap * 2 : 1024;
        uint8_t *n = realloc(ik->fresh, cap * ENTRY);
        if (!n)
            return false;
        ik->fresh = n;
        ik->cap = cap;
    }
    uint8_t *e = ik->fresh + ik->nfresh++ * ENTRY;
    bb_le_put_u64(e, k.ts);
    bb_le_put_u32(e + 8, k.shard);
    bb_le_put_u32(e + 12, k.off);
    return true;
}

/* The old file's entries, then this run's, into the transaction's new file. */
static bool save_one(const ds_handle *h, int ifd, ds_txn *t, const inst_keys *ik, bb_error *err)
{
    char name[32], final[64];
    index_name(name, sizeof name, ik->id);
    snprintf(final, sizeof final, "_backbeat/index/%s", name);
    uint8_t *old = NULL;
    size_t n = 0;
    errno = 0;
    if (!ds_slurp(ifd, name, SIZE_MAX, &old, &n)) {
        ds_err(err, "cannot read %s/%s: %s", h->dir, final, strerror(errno));
        return false;
    }
    int fd = ds_txn_file(t, final, err);
    bool ok = fd >= 0;
    if (ok && !((old ? ds_write_all(fd, old, n) : ds_write_all(fd, MAGIC, 8)) &&
                ds_write_all(fd, ik->fresh, ik->nfresh * ENTRY))) {
        ds_err(err, "cannot write %s/%s: %s", h->dir, final, strerror(errno ? errno : EIO));
        ok = false;
    }
    free(old);
    return ok;
}

bool ds_index_save(ds_index *x, const ds_handle *h, ds_txn *t, bb_error *err)
{
    int ifd = ds_open_dirs(h->bfd, "index", false);
    if (ifd < 0 && errno != ENOENT) {
        ds_err(err, "cannot read %s/_backbeat/index: %s", h->dir, strerror(errno));
        return false;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < x->ninst; i++)
        if (x->insts[i].nfresh)
            ok = save_one(h, ifd, t, &x->insts[i], err);
    if (ifd >= 0)
        close(ifd);
    return ok;
}

void ds_index_free(ds_index *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->ninst; i++)
        free(x->insts[i].fresh);
    free(x->insts);
    free(x->slots);
    free(x->used);
    free(x);
}
