/* dataset_index.c — the duplicate keys already in a dataset (see dataset/dataset.h), in memory
 * independent of the record counts.
 *
 * One file per instance, DIR/_backbeat/index/<instance 16 hex>.keys: the 8 bytes "BBIDX1\0\0",
 * then one 16-byte little-endian entry per record in the dataset (ts_nanos u64, shard_id u32,
 * offset u32; the instance is the file's), sorted by (ts_nanos, shard, offset), each key once.
 * Only the files of the instances the inputs hold are read, so an append costs its input plus
 * those instances' history, not the whole dataset.
 *
 * The records come one instance at a time, each instance's in that key order (model_groups.c),
 * so a lookup advances a cursor through the mapped old file, and the instance's new file, a temporary of
 * the append's transaction (committed by its journal with the parts), is the merge of the old
 * entries and the records written, streamed as they come. A file written before the index was
 * kept sorted (one sorted run per append, or any order) is sorted first into a scratch file of
 * DIR/_backbeat/tmp (dataset_runs.c: an external merge), then read the same way.
 *
 * A rewrite's set (ds_index_scratch) holds what the replays before the current one kept: each
 * replay's keys (in the model's order) stream into a scratch run, sealed when it ends and merged
 * with its neighbours of similar size (so there are O(log replays) runs); lookups advance one
 * cursor per run.
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
#include "dataset/dataset_internal.h"
#include "dataset/dataset_runs.h"

#define MAGIC "BBIDX1\0\0"

typedef struct inst_keys {
    uint64_t id;
    ds_run old;  /* the old entries, sorted (the file itself, or a sorted scratch copy) */
    size_t emit; /* old entries copied to the new file so far */
    bool open;   /* the new file is being written into w */
    int fd;      /* its temporary (the transaction's) */
    ds_kw w;
} inst_keys;

struct ds_index {
    const ds_handle *h;
    ds_txn *t;        /* NULL: a scratch set */
    int tfd;          /* DIR/_backbeat/tmp: scratch files */
    inst_keys *insts; /* the model's instances, by id order */
    size_t ninst;
    ds_run *runs; /* a scratch set's sealed runs, older (larger) first */
    size_t nruns;
    bool cur_open; /* a scratch set's run of the current replay */
    int cur_fd;
    ds_kw cur;
};

/* "<id>.keys" */
static void index_name(char *buf, size_t cap, uint64_t id) {
    snprintf(buf, cap, "%016llx.keys", (unsigned long long)id);
}

static ds_index *index_new(const ds_handle *h, ds_txn *t, size_t ninst, bb_error *err) {
    ds_index *x = calloc(1, sizeof *x);
    if (x) x->insts = calloc(ninst ? ninst : 1, sizeof *x->insts);
    if (!x || !x->insts) {
        ds_err(err, "out of memory");
        free(x);
        return NULL;
    }
    x->h = h;
    x->t = t;
    x->cur_fd = -1;
    x->tfd = ds_open_dirs(h->bfd, "tmp", true);
    if (x->tfd < 0) {
        ds_err(err, "cannot create %s/_backbeat/tmp: %s", h->dir, strerror(errno));
        free(x->insts);
        free(x);
        return NULL;
    }
    return x;
}

/* Map instance ik's old file of directory ifd (none is fine), sorted; false after a message. */
static bool load_one(ds_index *x, int ifd, inst_keys *ik, bb_error *err) {
    char name[32];
    index_name(name, sizeof name, ik->id);
    int fd = ifd < 0 ? -1 : openat(ifd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && (ifd < 0 || errno == ENOENT)) return true;
    char magic[8];
    struct stat st;
    bool reg = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    off_t size = reg ? st.st_size : 0;
    if (fd >= 0 && !reg) errno = EINVAL; /* a FIFO, a device: not an index file */
    bool ok = reg && ds_run_map(&ik->old, fd, 8, DS_RUN_W16, ik->id);
    int e = errno;
    if (fd >= 0) close(fd);
    if (!ok && e != EINVAL) {
        ds_err(err, "cannot read %s/_backbeat/index/%s: %s", x->h->dir, name, strerror(e));
        return false;
    }
    if (ok && ik->old.map) memcpy(magic, ik->old.map, 8);
    if (!ok || !ik->old.map || memcmp(magic, MAGIC, 8) != 0) {
        ds_err(err,
               "%s/_backbeat/index/%s: not a backbeat dataset index (bad header or a torn "
               "entry: %lld bytes)",
               x->h->dir, name, (long long)size);
        return false;
    }
    if (ds_run_sorted(&ik->old)) return true;
    ds_run sorted; /* written before the index was kept sorted */
    ok = ds_run_sort(&ik->old, x->tfd, &sorted);
    e = errno;
    ds_run_unmap(&ik->old);
    if (!ok) {
        ds_err(err, "cannot sort %s/_backbeat/index/%s: %s", x->h->dir, name, strerror(e));
        return false;
    }
    ik->old = sorted;
    return true;
}

ds_index *ds_index_load(const ds_handle *h, ds_txn *t, const bb_model *model, bb_error *err) {
    size_t ni = bb_model_instance_count(model);
    ds_index *x = index_new(h, t, ni, err);
    if (!x) return NULL;
    int ifd = ds_open_dirs(h->bfd, "index", false);
    if (ifd < 0 && errno != ENOENT) {
        ds_err(err, "cannot read %s/_backbeat/index: %s", h->dir, strerror(errno));
        ds_index_free(x);
        return NULL;
    }
    bool ok = true;
    for (size_t i = 0; ok && i < ni; i++) {
        inst_keys *ik = &x->insts[x->ninst++];
        ik->id = bb_model_instance(model, i)->instance_id;
        ok = load_one(x, ifd, ik, err);
    }
    if (ifd >= 0) close(ifd);
    if (!ok) {
        ds_index_free(x);
        return NULL;
    }
    return x;
}

ds_index *ds_index_scratch(const ds_handle *h, bb_error *err) { return index_new(h, NULL, 0, err); }

/* The instance entry of id (the model's instances are sorted by id). */
static inst_keys *inst_of(ds_index *x, uint64_t id) {
    size_t lo = 0, hi = x->ninst;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->insts[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < x->ninst && x->insts[lo].id == id ? &x->insts[lo] : NULL;
}

static ds_rkey key_of(const bb_record *r) {
    ds_rkey k = {r->ts, r->instance_id, r->shard_id, r->offset};
    return k;
}

bool ds_index_has(ds_index *x, const bb_record *r) {
    ds_rkey k = key_of(r);
    if (!x->t) {
        for (size_t i = 0; i < x->nruns; i++)
            if (ds_run_has(&x->runs[i], &k)) return true;
        return false;
    }
    inst_keys *ik = inst_of(x, r->instance_id);
    return ik && ds_run_has(&ik->old, &k);
}

/* Start instance ik's new file: a temporary of the transaction; false after a message. */
static bool open_new(ds_index *x, inst_keys *ik, bb_error *err) {
    char name[32], final[64];
    index_name(name, sizeof name, ik->id);
    snprintf(final, sizeof final, "_backbeat/index/%s", name);
    int fd = ds_txn_file(x->t, final, err);
    if (fd < 0) return false;
    ik->fd = fd;
    if (!ds_kw_open(&ik->w, fd, DS_RUN_W16)) {
        ds_err(err, "out of memory");
        return false;
    }
    ik->open = true;
    em_obuf_write(&ik->w.b, MAGIC, 8);
    return true;
}

/* A scratch set: start the current replay's run; false after a message. */
static bool open_cur(ds_index *x, bb_error *err) {
    x->cur_fd = ds_scratch_fd(x->tfd);
    if (x->cur_fd < 0) {
        ds_err(err, "cannot write a scratch file in %s/_backbeat/tmp: %s", x->h->dir,
               strerror(errno));
        return false;
    }
    if (!ds_kw_open(&x->cur, x->cur_fd, DS_RUN_W24)) {
        ds_err(err, "out of memory");
        return false;
    }
    x->cur_open = true;
    return true;
}

bool ds_index_add(ds_index *x, const bb_record *r, bb_error *err) {
    ds_rkey k = key_of(r);
    ds_kw *w;
    if (!x->t) {
        if (!x->cur_open && !open_cur(x, err)) return false;
        w = &x->cur;
    } else {
        inst_keys *ik = inst_of(x, r->instance_id);
        if (!ik) {
            ds_err(err, "%s: a record of instance %016llx, not among the inputs'", x->h->dir,
                   (unsigned long long)r->instance_id);
            return false;
        }
        if (!ik->open && !open_new(x, ik, err)) return false;
        ik->emit = ds_run_copy_below(&ik->old, ik->emit, &k, &ik->w);
        w = &ik->w;
    }
    ds_kw_put(w, &k);
    if (w->disorder || w->b.failed) {
        ds_err(err, "%s: cannot write the duplicate-key index: %s", x->h->dir,
               w->disorder ? "records out of key order" : strerror(w->b.failed));
        return false;
    }
    return true;
}

/* Replace the last two sealed runs by their merge; false after a message. */
static bool merge_last(ds_index *x, bb_error *err) {
    ds_run *a = &x->runs[x->nruns - 2], *b = &x->runs[x->nruns - 1], m;
    int fd = ds_scratch_fd(x->tfd);
    ds_kw w;
    bool ok = fd >= 0 && ds_kw_open(&w, fd, DS_RUN_W24);
    int e = fd < 0 ? errno : ENOMEM;
    if (ok) {
        ds_run_merge(a, b, &w);
        e = ds_kw_finish(&w);
        ok = e == 0 && ds_run_map(&m, fd, 0, DS_RUN_W24, 0);
        e = e ? e : errno;
    }
    if (fd >= 0) close(fd);
    if (!ok) {
        ds_err(err, "cannot write a scratch file in %s/_backbeat/tmp: %s", x->h->dir, strerror(e));
        return false;
    }
    ds_run_unmap(a);
    ds_run_unmap(b);
    *a = m;
    x->nruns--;
    return true;
}

bool ds_index_seal(ds_index *x, bb_error *err) {
    if (x->t || !x->cur_open) return true;
    x->cur_open = false;
    int e = ds_kw_finish(&x->cur);
    ds_run *v = realloc(x->runs, (x->nruns + 1) * sizeof *v);
    if (v) x->runs = v;
    bool ok = !e && v && ds_run_map(&x->runs[x->nruns], x->cur_fd, 0, DS_RUN_W24, 0);
    e = e ? e : v ? errno : ENOMEM;
    close(x->cur_fd);
    x->cur_fd = -1;
    if (!ok) {
        ds_err(err, "cannot write a scratch file in %s/_backbeat/tmp: %s", x->h->dir, strerror(e));
        return false;
    }
    x->nruns++;
    while (ok && x->nruns >= 2 && x->runs[x->nruns - 2].n <= 2 * x->runs[x->nruns - 1].n)
        ok = merge_last(x, err);
    for (size_t i = 0; i < x->nruns; i++) x->runs[i].at = 0;
    return ok;
}

/* Complete instance ik's new file (its old entries past the last record added copied). */
static bool save_one(ds_index *x, inst_keys *ik, bb_error *err) {
    if (!ik->open) return true;
    ik->emit = ds_run_copy_below(&ik->old, ik->emit, NULL, &ik->w);
    ik->open = false;
    int e = ds_kw_finish(&ik->w);
    if (e) {
        char name[32];
        index_name(name, sizeof name, ik->id);
        ds_err(err, "cannot write %s/_backbeat/index/%s: %s", x->h->dir, name, strerror(e));
        return false;
    }
    return true;
}

bool ds_index_done(ds_index *x, uint64_t inst, bb_error *err) {
    inst_keys *ik = x->t ? inst_of(x, inst) : NULL;
    if (!ik || !ik->open) return true;
    bool ok = save_one(x, ik, err) && ds_txn_close(x->t, ik->fd, err);
    ds_run_unmap(&ik->old); /* its lookups are over */
    return ok;
}

bool ds_index_save(ds_index *x, bb_error *err) {
    for (size_t i = 0; i < x->ninst; i++)
        if (!save_one(x, &x->insts[i], err)) return false;
    return true;
}

void ds_index_free(ds_index *x) {
    if (!x) return;
    for (size_t i = 0; i < x->ninst; i++) {
        if (x->insts[i].open) (void)ds_kw_finish(&x->insts[i].w);
        ds_run_unmap(&x->insts[i].old);
    }
    for (size_t i = 0; i < x->nruns; i++) ds_run_unmap(&x->runs[i]);
    if (x->cur_open) (void)ds_kw_finish(&x->cur);
    if (x->cur_fd >= 0) close(x->cur_fd);
    if (x->tfd >= 0) close(x->tfd);
    free(x->runs);
    free(x->insts);
    free(x);
}
