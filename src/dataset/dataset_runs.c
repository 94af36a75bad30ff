/* dataset_runs.c — sorted runs of duplicate keys in mapped files (see dataset/dataset_runs.h):
 * mapping, cursor lookups, the streamed writer, merges and the external sort of a file of
 * several ascending segments.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/le_bytes.h"
#include "dataset/dataset_runs.h"

int ds_rkey_cmp(const ds_rkey *a, const ds_rkey *b) {
    if (a->inst != b->inst) return a->inst < b->inst ? -1 : 1;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    if (a->shard != b->shard) return a->shard < b->shard ? -1 : 1;
    return a->off < b->off ? -1 : a->off > b->off;
}

bool ds_run_map(ds_run *r, int fd, size_t hdr, unsigned width, uint64_t inst) {
    struct stat st;
    *r = (ds_run){.hdr = hdr, .width = width, .inst = inst};
    if (fstat(fd, &st) != 0) return false;
    size_t len = (size_t)st.st_size;
    if ((uint64_t)st.st_size < hdr || (len - hdr) % width != 0) {
        errno = EINVAL;
        return false;
    }
    r->n = (len - hdr) / width;
    if (len == 0) return true;
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
        r->n = 0;
        return false;
    }
    (void)madvise(m, len, MADV_SEQUENTIAL);
    r->map = m;
    r->maplen = len;
    return true;
}

void ds_run_unmap(ds_run *r) {
    if (r->map) munmap((void *)r->map, r->maplen);
    r->map = NULL;
    r->n = r->at = 0;
}

ds_rkey ds_run_key(const ds_run *r, size_t i) {
    const uint8_t *e = r->map + r->hdr + i * r->width;
    ds_rkey k;
    k.ts = bb__le_get_u64(e);
    if (r->width == DS_RUN_W24) {
        k.inst = bb__le_get_u64(e + 8);
        e += 8;
    } else {
        k.inst = r->inst;
    }
    k.shard = bb__le_get_u32(e + 8);
    k.off = bb__le_get_u32(e + 12);
    return k;
}

/* The first entry of [from, n) after which the ascending order breaks (n: none). */
static size_t segment_end(const ds_run *r, size_t from) {
    if (from >= r->n) return r->n;
    ds_rkey prev = ds_run_key(r, from);
    for (size_t i = from + 1; i < r->n; i++) {
        ds_rkey k = ds_run_key(r, i);
        if (ds_rkey_cmp(&k, &prev) <= 0) return i;
        prev = k;
    }
    return r->n;
}

bool ds_run_sorted(const ds_run *r) { return segment_end(r, 0) == r->n; }

/* The first i of [lo, hi) whose key is not below k, else hi. */
static size_t lower_bound(const ds_run *r, size_t lo, size_t hi, const ds_rkey *k) {
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        ds_rkey e = ds_run_key(r, mid);
        if (ds_rkey_cmp(&e, k) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

bool ds_run_has(ds_run *r, const ds_rkey *k) {
    size_t lo = r->at, hi = r->at;
    ds_rkey e;
    if (lo > 0 && (e = ds_run_key(r, lo - 1), ds_rkey_cmp(&e, k) >= 0)) {
        lo = 0; /* behind the cursor: search what it passed */
    } else {
        for (size_t step = 1; hi < r->n && (e = ds_run_key(r, hi), ds_rkey_cmp(&e, k) < 0);
             step *= 2) {
            lo = hi + 1;
            hi = lo + step < r->n ? lo + step : r->n;
        }
    }
    r->at = lower_bound(r, lo, hi, k);
    if (r->at >= r->n) return false;
    e = ds_run_key(r, r->at);
    return ds_rkey_cmp(&e, k) == 0;
}

bool ds_kw_open(ds_kw *w, int fd, unsigned width) {
    *w = (ds_kw){.width = width};
    return em_obuf_init(&w->b, fd, 1 << 15);
}

void ds_kw_put(ds_kw *w, const ds_rkey *k) {
    if (w->have) {
        int c = ds_rkey_cmp(k, &w->last);
        if (c == 0) return;
        if (c < 0) w->disorder = true;
    }
    uint8_t e[DS_RUN_W24], *p = e + 8;
    bb__le_put_u64(e, k->ts);
    if (w->width == DS_RUN_W24) {
        bb__le_put_u64(e + 8, k->inst);
        p += 8;
    }
    bb__le_put_u32(p, k->shard);
    bb__le_put_u32(p + 4, k->off);
    em_obuf_write(&w->b, e, w->width);
    w->last = *k;
    w->have = true;
    w->n++;
}

int ds_kw_finish(ds_kw *w) { return em_obuf_finish(&w->b); }

size_t ds_run_copy_below(const ds_run *r, size_t from, const ds_rkey *k, ds_kw *w) {
    for (; from < r->n; from++) {
        ds_rkey e = ds_run_key(r, from);
        if (k && ds_rkey_cmp(&e, k) >= 0) break;
        ds_kw_put(w, &e);
    }
    return from;
}

/* The union of a[a0, a1) and b[b0, b1), both ascending, into w. */
static void merge_ranges(const ds_run *a, size_t a0, size_t a1, const ds_run *b, size_t b0,
                         size_t b1, ds_kw *w) {
    ds_rkey ka = {0, 0, 0, 0}, kb = ka;
    if (a0 < a1) ka = ds_run_key(a, a0);
    if (b0 < b1) kb = ds_run_key(b, b0);
    while (a0 < a1 && b0 < b1) {
        if (ds_rkey_cmp(&ka, &kb) <= 0) {
            ds_kw_put(w, &ka);
            if (++a0 < a1) ka = ds_run_key(a, a0);
        } else {
            ds_kw_put(w, &kb);
            if (++b0 < b1) kb = ds_run_key(b, b0);
        }
    }
    for (; a0 < a1; a0++) ka = ds_run_key(a, a0), ds_kw_put(w, &ka);
    for (; b0 < b1; b0++) kb = ds_run_key(b, b0), ds_kw_put(w, &kb);
}

void ds_run_merge(const ds_run *a, const ds_run *b, ds_kw *w) {
    merge_ranges(a, 0, a->n, b, 0, b->n, w);
}

int ds_scratch_fd(int tfd) {
    static unsigned seq;
    char name[64];
    for (int tries = 0; tries < 100; tries++) {
        snprintf(name, sizeof name, "%ld-scratch-%u.tmp", (long)getpid(), seq++);
        int fd = openat(tfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            (void)unlinkat(tfd, name, 0);
            return fd;
        }
        if (errno != EEXIST) return -1;
    }
    return -1;
}

/* One pass: every two neighbouring segments of src merged, into *dst; false with errno. */
static bool sort_pass(const ds_run *src, int tfd, ds_run *dst) {
    int fd = ds_scratch_fd(tfd);
    ds_kw w;
    if (fd < 0) return false;
    if (!ds_kw_open(&w, fd, src->width)) {
        close(fd);
        errno = ENOMEM;
        return false;
    }
    for (size_t s = 0; s < src->n;) {
        size_t m = segment_end(src, s), e = segment_end(src, m);
        merge_ranges(src, s, m, src, m, e, &w);
        s = e;
    }
    int werr = ds_kw_finish(&w);
    bool ok = werr == 0 && ds_run_map(dst, fd, 0, src->width, src->inst);
    if (werr) errno = werr;
    int e = errno;
    close(fd);
    errno = e;
    return ok;
}

bool ds_run_sort(const ds_run *r, int tfd, ds_run *out) {
    ds_run cur = *r;
    bool mine = false; /* cur is a scratch run of ours */
    do {
        ds_run next;
        bool ok = sort_pass(&cur, tfd, &next);
        if (mine) ds_run_unmap(&cur);
        if (!ok) return false;
        cur = next;
        mine = true;
    } while (!ds_run_sorted(&cur));
    *out = cur;
    return true;
}
