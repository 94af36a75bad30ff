/* dataset_index.c — the duplicate keys already in a dataset (see convert/dataset.h).
 *
 * One file per instance, DIR/_backbeat/index/<instance 16 hex>.keys: the 8 bytes "BBIDX1\0\0",
 * then one 16-byte little-endian entry per record in the dataset (ts_nanos u64, shard_id u32,
 * offset u32; the instance is the file's). Only the files of the instances the inputs hold are
 * read, so an append costs its input plus those instances' history, not the whole dataset.
 *
 * Streaming, in memory independent of the record counts: the model yields each instance's
 * records in (ts, shard, offset) order, and every file this code writes is sorted in that order,
 * so a lookup advances a cursor through the mapped file, and the new file is the merge of the
 * old entries and this run's, written as the records come (aside, renamed by ds_index_save). A
 * file written by an older version (sorted runs, one per append) is read as a set of sorted
 * segments, merged the same way; the rewrite sorts it.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error_set.h"
#include "convert/dataset.h"
#include "convert/obuf.h"
#include "convert/outfile.h"
#include "common/le_bytes.h"

#define MAGIC "BBIDX1\0\0"
#define ENTRY 16

/* An index key within one instance. */
typedef struct key {
    uint64_t ts;
    uint32_t shard, off;
} key;

/* A sorted stretch of the old file: entries [at, end). */
typedef struct seg {
    size_t at, end;
} seg;

typedef struct inst_keys {
    uint64_t id;
    char *path;
    const uint8_t *map; /* the old file (NULL: none), mapped */
    size_t maplen, nold;
    seg *look, *emit;   /* lookup and copy-out cursors over the same segments */
    size_t nseg;
    bool open;          /* the new file is being written */
    cv_out out;
    obuf buf;
} inst_keys;

struct ds_index {
    inst_keys *insts; /* the model's instances, by id order */
    size_t ninst;
    const char *dir;
    bool have_last;
    uint64_t last_inst;
    key last;
};

static key entry_at(const inst_keys *ik, size_t i)
{
    const uint8_t *e = ik->map + 8 + i * ENTRY;
    key k = {bb_le_get_u64(e), bb_le_get_u32(e + 8), bb_le_get_u32(e + 12)};
    return k;
}

static int key_cmp(const key *a, const key *b)
{
    if (a->ts != b->ts)
        return a->ts < b->ts ? -1 : 1;
    if (a->shard != b->shard)
        return a->shard < b->shard ? -1 : 1;
    return a->off < b->off ? -1 : a->off > b->off;
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

/* Map the old file (none is fine); false after a message. */
static bool map_old(inst_keys *ik, bb_error *err)
{
    int fd = open(ik->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return true;
        ds_err(err, "cannot read %s: %s", ik->path, strerror(errno));
        return false;
    }
    struct stat st;
    bool ok = fstat(fd, &st) == 0;
    size_t n = ok ? (size_t)st.st_size : 0;
    void *m = ok && n ? mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    if (!ok || m == MAP_FAILED) {
        ds_err(err, "cannot read %s: %s", ik->path, strerror(errno));
        close(fd);
        return false;
    }
    close(fd);
    ik->map = m;
    ik->maplen = n;
    if (n < 8 || memcmp(m, MAGIC, 8) != 0 || (n - 8) % ENTRY != 0) {
        ds_err(err, "%s: not a backbeat dataset index (bad header or a torn entry: %zu bytes)",
                  ik->path, n);
        return false;
    }
    ik->nold = (n - 8) / ENTRY;
    return true;
}

/* Cut the old entries into sorted segments (one for a file this version wrote). */
static bool find_segments(inst_keys *ik)
{
    size_t nseg = ik->nold ? 1 : 0;
    key prev = {0, 0, 0};
    for (size_t i = 0; i < ik->nold; i++) {
        key k = entry_at(ik, i);
        if (i && key_cmp(&k, &prev) < 0)
            nseg++;
        prev = k;
    }
    ik->look = calloc(nseg ? nseg : 1, sizeof *ik->look);
    ik->emit = calloc(nseg ? nseg : 1, sizeof *ik->emit);
    if (!ik->look || !ik->emit)
        return false;
    for (size_t i = 0, s = 0; i < ik->nold; i++) {
        key k = entry_at(ik, i);
        if (i && key_cmp(&k, &prev) < 0) {
            ik->look[s++].end = i;
            ik->look[s].at = i;
        }
        prev = k;
    }
    if (nseg)
        ik->look[nseg - 1].end = ik->nold;
    memcpy(ik->emit, ik->look, nseg * sizeof *ik->emit);
    ik->nseg = nseg;
    return true;
}

ds_index *ds_index_load(const char *dir, const bb_model *model, bb_error *err)
{
    ds_index *x = calloc(1, sizeof *x);
    size_t ni = bb_model_instance_count(model);
    if (x)
        x->insts = calloc(ni ? ni : 1, sizeof *x->insts);
    if (!x || !x->insts) {
        ds_err(err, "out of memory");
        free(x);
        return NULL;
    }
    x->dir = dir;
    for (size_t i = 0; i < ni; i++) {
        inst_keys *ik = &x->insts[x->ninst++];
        ik->id = bb_model_instance(model, i)->instance_id;
        ik->path = index_path(dir, ik->id);
        if (!ik->path) {
            ds_err(err, "out of memory");
            ds_index_free(x);
            return NULL;
        }
        bool mapped = map_old(ik, err);
        if (!mapped || !find_segments(ik)) {
            if (mapped)
                ds_err(err, "cannot read %s: out of memory", ik->path);
            ds_index_free(x);
            return NULL;
        }
    }
    return x;
}

/* The instance entry of id (the model's instances are sorted by id). */
static inst_keys *inst_of(const ds_index *x, uint64_t id)
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

static key key_of(const bb_record *r)
{
    key k = {r->ts, r->shard_id, r->offset};
    return k;
}

bool ds_index_has(const ds_index *x, const bb_record *r)
{
    key k = key_of(r);
    if (x->have_last && x->last_inst == r->instance_id && key_cmp(&x->last, &k) == 0)
        return true;
    inst_keys *ik = inst_of(x, r->instance_id);
    if (!ik)
        return false;
    for (size_t s = 0; s < ik->nseg; s++) { /* records come in key order: cursors only advance */
        seg *g = &ik->look[s];
        int c = -1;
        while (g->at < g->end) {
            key e = entry_at(ik, g->at);
            c = key_cmp(&e, &k);
            if (c >= 0)
                break;
            g->at++;
        }
        if (g->at < g->end && c == 0)
            return true;
    }
    return false;
}

static void put_entry(obuf *b, const key *k)
{
    uint8_t e[ENTRY];
    bb_le_put_u64(e, k->ts);
    bb_le_put_u32(e + 8, k->shard);
    bb_le_put_u32(e + 12, k->off);
    obuf_write(b, e, ENTRY);
}

/* Copy the old entries below `k` (all when NULL) to the new file, in key order. */
static void emit_old(inst_keys *ik, const key *k)
{
    for (;;) {
        size_t best = SIZE_MAX;
        key bk = {0, 0, 0};
        for (size_t s = 0; s < ik->nseg; s++) {
            if (ik->emit[s].at == ik->emit[s].end)
                continue;
            key e = entry_at(ik, ik->emit[s].at);
            if (best == SIZE_MAX || key_cmp(&e, &bk) < 0) {
                best = s;
                bk = e;
            }
        }
        if (best == SIZE_MAX || (k && key_cmp(&bk, k) >= 0))
            return;
        put_entry(&ik->buf, &bk);
        ik->emit[best].at++;
    }
}

/* Start the new file of `ik`: DIR/_backbeat/index exists, a temporary is open. */
static bool open_new(const ds_index *x, inst_keys *ik, bb_error *err)
{
    size_t n = strlen(x->dir) + 32;
    char *sub = malloc(n);
    if (!sub) {
        ds_err(err, "out of memory");
        return false;
    }
    snprintf(sub, n, "%s/_backbeat/index", x->dir);
    bool ok = mkdir(sub, 0777) == 0 || errno == EEXIST;
    if (!ok)
        ds_err(err, "cannot create %s: %s", sub, strerror(errno));
    free(sub);
    if (!ok || !cv_out_open(&ik->out, ik->path, err))
        return false;
    if (!obuf_init(&ik->buf, ik->out.fd, 1 << 16)) {
        cv_out_abort(&ik->out);
        ds_err(err, "out of memory");
        return false;
    }
    ik->open = true;
    obuf_write(&ik->buf, MAGIC, 8);
    return true;
}

bool ds_index_add(ds_index *x, const bb_record *r, bb_error *err)
{
    key k = key_of(r);
    inst_keys *ik = inst_of(x, r->instance_id);
    if (!ik) {
        ds_err(err, "%s: record of an instance not in the index", x->dir);
        return false;
    }
    if (!ik->open && !open_new(x, ik, err))
        return false;
    emit_old(ik, &k);
    put_entry(&ik->buf, &k);
    x->have_last = true;
    x->last_inst = r->instance_id;
    x->last = k;
    if (ik->buf.failed)
        ds_err(err, "cannot write %s: %s", ik->path, strerror(ik->buf.failed));
    return ik->buf.failed == 0;
}

bool ds_index_save(ds_index *x, const char *dir, bb_error *err)
{
    (void)dir;
    for (size_t i = 0; i < x->ninst; i++) {
        inst_keys *ik = &x->insts[i];
        if (!ik->open)
            continue;
        emit_old(ik, NULL);
        int e = obuf_finish(&ik->buf);
        if (e == 0 && fsync(ik->out.fd) != 0)
            e = errno ? errno : EIO;
        ik->open = false;
        if (e) {
            ds_err(err, "cannot write %s: %s", ik->path, strerror(e));
            cv_out_abort(&ik->out);
            return false;
        }
        if (!cv_out_commit(&ik->out, err))
            return false;
    }
    return true;
}

void ds_index_free(ds_index *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < x->ninst; i++) {
        inst_keys *ik = &x->insts[i];
        if (ik->open) {
            obuf_finish(&ik->buf);
            cv_out_abort(&ik->out);
        }
        if (ik->map)
            munmap((void *)ik->map, ik->maplen);
        free(ik->look);
        free(ik->emit);
        free(ik->path);
    }
    free(x->insts);
    free(x);
}
