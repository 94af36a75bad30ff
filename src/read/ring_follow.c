/* ring_follow.c — bb_ring_follow_records (backbeat/ring_reader.h): each ring's bytes committed
 * since the caller's cursor are copied, newest chunk first, into a buffer the bb_ring keeps from
 * call to call, cut as a live dump cuts them (format/ring_cut.h: the head read again after
 * each chunk, records a lapping writer may have changed dropped, records in flight left for a
 * later call), walked down from the head once, and handed to the caller oldest first. No `.bb`
 * is assembled and nothing is allocated or asked of the kernel per record. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backbeat/detail/frame.h"
#include "common/error_set.h"
#include "format/ring_cut.h"
#include "format/ring_file.h"
#include "format/rseq_margin.h"
#include "read/madv.h"
#include "read/ring_priv.h"

/* The copy from the shared mapping races with the writers on purpose (the cut drops whatever
 * they changed meanwhile), as a live dump's copy does (capture/recorder_dump.c racy_copy):
 * under ThreadSanitizer it is uninstrumented, out of line and volatile. */
#if defined(__SANITIZE_THREAD__)
#define FOLLOW_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FOLLOW_TSAN 1
#endif
#endif

/* Follow calls in a row a ring may wait for a writer between announcing and reserving (as
 * ring_window.c's follow). */
#define STALL_LIMIT 32u
/* Bytes past a ring buffer's end that repeat its start: any frame fits, so a record that wraps
 * the buffer is handed over contiguous without a copy of its own. */
#define MIRROR BB__RING_MIRROR

/* A walk's lookups: the record size and schema of an event id, the last one remembered. */
typedef struct sizes {
    bb_ring *r;
    uint64_t id;
    size_t at; /* its index in r->sizes + 1, 0 none */
    int32_t size;
    const bb_rschema *schema;
} sizes;

/* One ring's read. */
typedef struct ring_read {
    bb_ring *r;
    bool live;
    uint32_t i;
    uint64_t h0, start, top, end;
    bb__ring_fbuf *b;
    uint64_t *starts;
    size_t n;
    uint64_t bottom; /* the end of the record the walk stopped at (below `end`), else start */
    bool cut;
} ring_read;

#ifdef FOLLOW_TSAN
__attribute__((no_sanitize("thread"), noinline)) static void
racy_copy(uint8_t *dst, const uint8_t *src, size_t n) {
    const volatile uint8_t *s = src;
    for (size_t k = 0; k < n; k++) dst[k] = s[k];
}
#else
static void racy_copy(uint8_t *dst, const uint8_t *src, size_t n) { memcpy(dst, src, n); }
#endif

/* One byte of each page of [p, p + n) read, as the copy reads them (a writer may be at them). */
static void touch_pages(const uint8_t *p, size_t n, size_t page) {
    volatile uint8_t sink = 0;
    for (size_t k = 0; k < n; k += page) {
        uint8_t b;
        racy_copy(&b, p + k, 1);
        sink ^= b;
    }
    (void)sink;
}

/* The pages of [p, p + n) faulted in with one system call instead of a fault a page (each costs
 * ~10 us on a VM: a whole ring refaulted mid-call was a lap lost); never asked again once the
 * kernel says it does not know the advice (then the copy faults them in, as before). */
static void populate(bb__ring_follow *f, const void *p, size_t n, int advice) {
    if (f->no_populate || !n) return;
    if (bb__madv_pages(p, n, f->page, advice) != 0 && errno == EINVAL) f->no_populate = true;
}

/* The size of an anonymous mapping of n bytes or more: a multiple of 2 MiB from 2 MiB on, so
 * that the kernel places it on huge-page boundaries and faults it in 2 MiB at a time. */
static size_t anon_size(size_t n) {
    size_t huge = (size_t)2 << 20;
    return n >= huge && n <= SIZE_MAX - huge ? (n + huge - 1) / huge * huge : n;
}

/* n bytes (anon_size(n)) of anonymous memory, faulted in (written) at once for a follower of
 * a running writer (a file read once touches only what it copies); NULL when refused. */
static void *anon_new(bb__ring_follow *f, size_t n, bool live) {
    n = anon_size(n);
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    if (live) populate(f, p, n, MADV_POPULATE_WRITE);
    return p;
}

static void follow_free(bb__ring_follow *f) {
    if (!f) return;
    for (uint32_t i = 0; f->bufs && i < f->n; i++)
        if (f->bufs[i].bytes) munmap(f->bufs[i].p, f->bufs[i].bytes);
    free(f->bufs);
    free(f->h0);
    if (f->capstarts) munmap(f->starts, f->capstarts * sizeof *f->starts);
    free(f);
}

static bb__ring_follow *follow_new(uint32_t n) {
    bb__ring_follow *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    long page = sysconf(_SC_PAGESIZE);
    f->page = page > 0 ? (size_t)page : 4096;
    f->n = n;
    f->bufs = calloc(n, sizeof *f->bufs);
    f->h0 = calloc(n, sizeof *f->h0);
    if (f->bufs && f->h0) return f;
    follow_free(f);
    return NULL;
}

static uint64_t cursor_off(const bb_ring *r, uint32_t i) {
    return r->g.cursors + (uint64_t)i * BB_RING_CURSOR_STRIDE;
}

static uint64_t pow2_at_least(uint64_t n) {
    uint64_t c = 4096;
    while (c < n) c <<= 1;
    return c;
}

/* A window of 1/BUSY of its ring or more, while a writer holds the file, marks a busy writer:
 * the buffer grows to the ring's size at once, with the walk's list for a whole ring. At 1/16,
 * a follower of 20 M records/s (~1 000 records a call) grew only when a stall of the host had
 * left it ~65 000 records behind, and faulting the 26 MB in (6 656 faults, ~9 ms) in that call
 * cost the lap (4 of 9 runs lossless); at 1/256 it grows in its first calls (15 of 15). */
#define BUSY 256

/* b holding at least `need` bytes of a ring of `ring` bytes, and the mirror (no more than its
 * capacity: no frame is longer than the window); its old bytes are not kept. It grows four
 * times at least, and to the ring's size at once for a busy writer (BUSY): a follower falling
 * behind made it grow, and each growth faulted in fresh memory (16 MiB and the walk's list:
 * 16 ms here) when the follower could least afford it. */
static bool buf_fit(bb__ring_follow *f, bb__ring_fbuf *b, uint64_t need, uint64_t ring, bool live) {
    if (b->p && b->cap >= need) return true;
    uint64_t cap = pow2_at_least(need);
    if (b->cap && cap < b->cap * 4) cap = b->cap * 4;
    if (live && need >= ring / BUSY) cap = ring; /* a busy writer: the whole ring, early */
    if (cap > ring && ring >= need) cap = ring;
    uint64_t mirror = cap < MIRROR ? cap : MIRROR;
    if (cap + mirror > SIZE_MAX) return false;
    if (b->bytes) munmap(b->p, b->bytes);
    *b = (bb__ring_fbuf){anon_new(f, (size_t)(cap + mirror), live), 0, 0};
    if (!b->p) return false;
    b->cap = cap;
    b->bytes = anon_size((size_t)(cap + mirror));
    return true;
}

/* Ring i's positions [from, to) into the buffer: from the mapping, its pages faulted in a chunk
 * at a time, while a writer holds the file (the mapping is kept then); else with pread (a file
 * read once more and let go). */
static void copy_in(const ring_read *x, uint64_t from, uint64_t to) {
    const bb_ring *r = x->r;
    uint64_t cap = r->info.capacity, base = r->g.rings + (uint64_t)x->i * cap, dcap = x->b->cap;
    while (from < to) {
        uint64_t s = from & (cap - 1), d = from & (dcap - 1), n = to - from;
        if (n > cap - s) n = cap - s;
        if (n > dcap - d) n = dcap - d;
        if (r->fd >= 0 && !x->live) {
            bb__ring_pread(r->fd, x->b->p + d, base + s, n);
        } else {
            if (r->mapped) populate(r->fol, r->d + base + s, (size_t)n, MADV_POPULATE_READ);
            racy_copy(x->b->p + d, r->d + base + s, (size_t)n);
        }
        from += n;
    }
}

/* The bound below which writes one lap later may have changed the ring's bytes, with its head
 * read now (after the copy: a fence first) and the rseq margin at that head. */
static uint64_t cut_now(const ring_read *x) {
    const bb_ring *r = x->r;
#if !defined(__SANITIZE_THREAD__)            /* gcc's TSan has no fences (-Wtsan) */
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the copy's reads before the head read */
#endif
    uint64_t cap = r->info.capacity;
    uint64_t h1 = x->live ? bb__ring_load64(r->d, cursor_off(r, x->i) + BB_RC_HEAD) : x->h0;
    uint64_t kept = bb__ring_load64(r->d, cursor_off(r, x->i) + BB_RC_BIG_FRAME);
    uint64_t margin = bb__rseq_margin(h1, cap, bb__rseq_shard_frame(&r->frames, kept));
    return bb__ring_copy_cut(x->h0, h1, margin, cap);
}

/* Copy [start, top), newest chunk first, stopping at the first chunk the bound seen right after
 * it reaches into (a lapping writer takes the oldest records); the cut the copy needs. */
static uint64_t copy_newest_first(const ring_read *x) {
    uint64_t chunk = (uint64_t)64 << 10, cut = 0; /* doubling to 1 MiB: the newest first */
    for (uint64_t hi = x->top; hi > x->start;
         chunk = chunk < ((uint64_t)1 << 20) ? chunk * 2 : chunk) {
        uint64_t lo = hi - x->start > chunk ? hi - chunk : x->start;
        copy_in(x, lo, hi);
        cut = cut_now(x);
        if (cut > lo) return cut < hi ? cut : hi;
        hi = lo;
    }
    return cut;
}

static int32_t size_of(void *vctx, uint64_t id) {
    sizes *s = vctx;
    if (s->at && s->id == id) return s->size;
    uintptr_t at = (uintptr_t)bb__u64map_get(&s->r->size_ix, id);
    if (!at) return -1;
    s->id = id;
    s->at = at;
    s->size = (int32_t)s->r->sizes[at - 1].size;
    s->schema = bb_dump_schema(s->r->schemas[at - 1].d, 0);
    return s->size;
}

/* A record the walk accepts: kept when it starts at or above the cut, else the walk stops. */
static bool visit(void *vctx, uint64_t start, uint64_t end) {
    ring_read *x = vctx;
    if (x->cut && start < x->end) {
        x->bottom = end;
        return true;
    }
    x->starts[x->n++] = start;
    return false;
}

/* Where the ring's read stops: the head, or (a running process) below its lowest record in
 * flight, or where it started while a writer's position is not yet published. */
static uint64_t read_top(ring_read *x, const bb__ring_ann *a, size_t n) {
    uint64_t top = x->h0;
    bool unknown = false;
    for (size_t k = 0; k < n; k++) {
        if (a[k].pos == UINT64_MAX) unknown = true;
        else if (a[k].pos >= x->start && a[k].pos < top) top = a[k].pos;
    }
    if (!x->live) return x->h0;
    if (!unknown) x->r->stalls[x->i] = 0;
    else if (x->r->stalls[x->i]++ < STALL_LIMIT) top = x->start;
    return top;
}

/* The cut of the copied window [start, top): records in flight, a lapped writer's mark, the
 * bound of the copy (as ring_window.c read_ring). */
static void cut_window(ring_read *x, uint64_t end, const bb__ring_ann *a, size_t n) {
    bb_ring *r = x->r;
    uint64_t cap = r->info.capacity, h0 = x->h0;
    bb__ring_view v = {x->b->p, x->b->cap, x->top, x->start, r};
    uint64_t late = bb__ring_inflight(&v, a, n);
    uint64_t marked = bb__ring_load64(r->d, cursor_off(r, x->i) + BB_RC_DAMAGED_BELOW);
    uint64_t low = h0 > cap ? h0 - cap : 0;
    if (late > h0) late = h0;
    if (late > end) end = late;
    if (marked > end && (marked <= h0 || x->live)) end = marked;
    r->stats.cut_shards += (marked > low && marked <= h0) || late > low;
    x->cut = end > x->start && x->top > x->start;
    x->end = end < x->top ? end : x->top;
}

/* A wrapped window's first bytes repeated past the buffer's end. */
static void mirror(const ring_read *x) {
    uint64_t dcap = x->b->cap, n = x->top & (dcap - 1);
    if (x->top <= x->start || x->start / dcap == (x->top - 1) / dcap || !n) return;
    memcpy(x->b->p + dcap, x->b->p, (size_t)(n < MIRROR ? n : MIRROR));
}

/* The records kept, oldest first, to fn; true when fn stopped the call (*stop_at: the end of
 * the record it stopped at). */
static bool deliver(const ring_read *x, bb_ring_record_fn fn, void *ctx, uint64_t *stop_at) {
    const bb_ring *r = x->r;
    uint64_t mask = x->b->cap - 1;
    uint64_t last_id = 0;
    size_t at = 0;
    for (size_t k = x->n; k-- > 0;) {
        const uint8_t *p = x->b->p + (x->starts[k] & mask);
        bb_ring_record rec;
        memcpy(&rec.ts, p + BB__FRAME_TS, 8);
        memcpy(&rec.event_id, p + BB__FRAME_ID, 8);
        if (!at || rec.event_id != last_id) {
            at = (uintptr_t)bb__u64map_get(&r->size_ix, rec.event_id);
            last_id = rec.event_id;
        }
        if (!at) continue; /* never: the walk accepted it, so its event is known */
        rec.shard = x->i;
        rec.len = r->sizes[at - 1].size;
        rec.pos = x->starts[k];
        rec.schema = bb_dump_schema(r->schemas[at - 1].d, 0);
        rec.fields = p + BB__FRAME_HEAD;
        if (fn(ctx, &rec)) {
            *stop_at = rec.pos + BB__FRAME_SIZE(rec.len);
            return true;
        }
    }
    return false;
}

/* The starts array holding the records of a window of n bytes (each takes 18 or more). */
static bool starts_fit(bb__ring_follow *f, uint64_t n, bool live) {
    uint64_t need = n / BB__FRAME_OVERHEAD + 1;
    if (need <= f->capstarts) return true;
    if (need < (uint64_t)f->capstarts * 4) need = (uint64_t)f->capstarts * 4; /* grow seldom */
    if (need > SIZE_MAX / sizeof *f->starts) return false;
    if (f->capstarts) munmap(f->starts, f->capstarts * sizeof *f->starts);
    f->capstarts = 0;
    f->starts = anon_new(f, (size_t)need * sizeof *f->starts, live);
    if (f->starts) f->capstarts = anon_size((size_t)need * sizeof *f->starts) / sizeof *f->starts;
    return f->starts != NULL;
}

/* Whether ring positions [s, e) of the copy hold only zeros. */
static bool zeros(const ring_read *x, uint64_t s, uint64_t e) {
    const uint8_t *p = x->b->p + (s & (x->b->cap - 1));
    for (uint64_t k = 0; k < e - s; k++)
        if (p[k]) return false;
    return true;
}

/* The frame at s (a record boundary) read forward: its field bytes in *size and the position
 * after it, or (zeros up to the ring's lap end, where the rseq path leaves the end of a ring a
 * frame did not fit) that lap end with *size -1; 0 when neither (s is no boundary, or the bytes
 * are no frame the walk would take). The mirror makes every frame contiguous. */
static uint64_t step(const ring_read *x, sizes *sz, uint64_t s, int32_t *size) {
    const uint8_t *p = x->b->p + (s & (x->b->cap - 1));
    uint64_t id, cap = x->r->info.capacity;
    uint16_t len;
    memcpy(&id, p + BB__FRAME_ID, 8);
    *size = x->top - s >= BB__FRAME_OVERHEAD ? size_of(sz, id) : -1;
    if (*size >= 0 && x->top - s >= BB__FRAME_SIZE(*size)) {
        memcpy(&len, p + BB__FRAME_HEAD + *size, BB__FRAME_TRAILER);
        if (len == BB__FRAME_LEN(*size)) return s + BB__FRAME_SIZE(*size);
    }
    *size = -1;
    uint64_t lap = (s / cap + 1) * cap;
    return lap <= x->top && lap - s < BB__FRAME_SIZE(UINT16_MAX) && zeros(x, s, lap) ? lap : 0;
}

/* From a record boundary (the cursor a previous call left), the frames as a writer lays them,
 * one after the other, handed to fn as they are read (those at or above the cut): where the
 * frames stopped following one another (top when they reached it), *first the first handed
 * over (left when none), *stopped (and *to: past its record) when fn stopped the call. Each
 * trailer leads the walk down from the head to the frame below, so these are the records that
 * walk accepts, read in one pass with no list of positions. */
static uint64_t forward(const ring_read *x, sizes *sz, bb_ring_record_fn fn, void *ctx,
                        uint64_t *first, uint64_t *to, bool *stopped) {
    uint64_t s = x->start, mask = x->b->cap - 1;
    int32_t size;
    while (s < x->top) {
        uint64_t next = step(x, sz, s, &size);
        if (!next) return s;
        if (size >= 0 && (!x->cut || s >= x->end)) {
            const uint8_t *p = x->b->p + (s & mask);
            bb_ring_record rec;
            memcpy(&rec.ts, p + BB__FRAME_TS, 8);
            rec.event_id = sz->id;
            rec.shard = x->i;
            rec.len = (uint32_t)size;
            rec.pos = s;
            rec.schema = sz->schema;
            rec.fields = p + BB__FRAME_HEAD;
            if (*first == x->top) *first = s;
            if (fn(ctx, &rec)) {
                *to = next;
                *stopped = true;
                return next;
            }
        }
        s = next;
    }
    return s;
}

/* The walk down from the head to `low`, the records it accepts (at or above the cut) listed;
 * false when out of memory. */
static bool walk_down(ring_read *x, uint64_t low, sizes *sz) {
    if (!starts_fit(x->r->fol, x->top - low, x->live)) return false;
    x->starts = x->r->fol->starts;
    x->n = 0;
    x->bottom = low;
    bb__ring_walk_each(x->b->p, x->b->cap, low, x->top, size_of, sz, visit, x);
    return true;
}

/* Calls in a row with every head unmoved after which rings are made ready (ready_next). */
#define QUIET 2u
/* Bytes made ready a call: ~1.5 ms on this VM, all a writer starting meanwhile waits for. */
#define SLICE ((uint64_t)1 << 20)

/* Ring i's buffer for a whole ring and the walk's list made (not faulted in: the slices write
 * them), charged to the budget; false (none made) when over the budget or out of memory. */
static bool ready_make(bb_ring *r, uint32_t i) {
    bb__ring_follow *f = r->fol;
    uint64_t cap = r->info.capacity, had = f->bufs[i].bytes + f->capstarts * sizeof *f->starts;
    if (__atomic_load_n(&bb__ring_follow_ready, __ATOMIC_RELAXED) + 2 * cap >
            BB__RING_READY_BUDGET ||
        !buf_fit(f, &f->bufs[i], cap, cap, false) || !starts_fit(f, cap, false))
        return false;
    uint64_t now = f->bufs[i].bytes + f->capstarts * sizeof *f->starts;
    f->ready += now - had;
    __atomic_fetch_add(&bb__ring_follow_ready, now - had, __ATOMIC_RELAXED);
    return true;
}

/* Rings of a running writer's file made ready while the writer is quiet (its heads unmoved for
 * QUIET calls), a SLICE a call: each ring's buffer for a whole ring (and, with the first, the
 * walk's list) written once, then the ring's pages of the mapping read once. On a VM the first
 * touch of a page costs 2-6 us even after MADV_POPULATE_* (the hypervisor fills its own tables
 * on access): `watch` met a writer's first storm (20 M records/s) with cold buffers, its polls
 * 7x slower than later ones, and lost laps in 3 of 4 runs (issue 37); made ready a ring at a
 * time (~50 ms here) instead of a slice, the follow API started with its writer lost a lap to
 * it. A ring whose buffer a busy call grew is skipped; past BB__RING_READY_BUDGET none is made
 * (a buffer grows when a call needs it, as for any file). */
static void ready_next(bb_ring *r) {
    bb__ring_follow *f = r->fol;
    uint64_t cap = r->info.capacity;
    while (f->readying < f->n && !f->ready_at && f->bufs[f->readying].cap == cap) f->readying++;
    if (f->quiet < QUIET || f->readying >= f->n) return;
    uint32_t i = f->readying;
    if (!f->ready_at && !ready_make(r, i)) {
        f->readying = f->n; /* over the budget: no more */
        return;
    }
    bb__ring_fbuf *b = &f->bufs[i];
    uint64_t nb = b->bytes, ns = i ? 0 : f->capstarts * sizeof *f->starts;
    uint64_t nm = r->mapped ? cap : 0, at = f->ready_at, left = SLICE, n;
    if (at < nb) {
        n = nb - at < left ? nb - at : left;
        memset(b->p + at, 0, (size_t)n);
        at += n, left -= n;
    }
    if (left && at < nb + ns) {
        n = nb + ns - at < left ? nb + ns - at : left;
        memset((uint8_t *)f->starts + (at - nb), 0, (size_t)n);
        at += n, left -= n;
    }
    if (left && at < nb + ns + nm) {
        const uint8_t *ring = r->d + r->g.rings + (uint64_t)i * cap + (at - nb - ns);
        n = nb + ns + nm - at < left ? nb + ns + nm - at : left;
        populate(f, ring, (size_t)n, MADV_POPULATE_READ);
        touch_pages(ring, (size_t)n, f->page);
        at += n;
    }
    f->ready_at = at < nb + ns + nm ? at : 0;
    f->readying += !f->ready_at;
}

/* Ring i: its window planned from the cursor, copied, cut, walked, handed to fn; the cursor
 * updated. *stopped when fn stopped the call; false when out of memory. */
static bool follow_ring(bb_ring *r, bool live, uint32_t i, bb_ring_cursor *cur,
                        const bb__ring_ann *a, size_t na, bb_ring_record_fn fn, void *ctx,
                        bool *stopped) {
    bb__ring_follow *f = r->fol;
    ring_read x = {r, live, i, f->h0[i], 0, 0, 0, &f->bufs[i], NULL, 0, 0, false};
    uint64_t cap = r->info.capacity, low = x.h0 > cap ? x.h0 - cap : 0, p = cur->pos;
    if (p != BB_RING_OLDEST && (p == BB_RING_NOW || p > x.h0)) p = x.h0;
    x.start = p != BB_RING_OLDEST && p > low ? p : low;
    x.top = read_top(&x, a, na);
    if (x.top < x.start) x.top = x.start;
    if (x.top == x.start) { /* nothing new: no copy (an idle file holds no buffer) */
        uint64_t lost = p != BB_RING_OLDEST && x.start > p ? x.start - p : 0;
        *cur = (bb_ring_cursor){x.start, lost, 0, x.h0};
        return true;
    }
    /* the buffer at the ring's size comes with the walk's list for a whole ring: a lap (the
     * walk down) then finds both faulted in */
    if (!buf_fit(f, x.b, x.top - x.start, cap, live) ||
        (live && x.b->cap == cap && !starts_fit(f, cap, true)))
        return false;
    uint64_t end = copy_newest_first(&x);
    cut_window(&x, end, a, na);
    mirror(&x);
    sizes sz = {r, 0, 0, -1, NULL};
    uint64_t first = x.top, to = x.top, from = p == BB_RING_OLDEST ? x.start : p, lost = 0;
    if (p == x.start) { /* the common case: one pass forward from where the last call stopped */
        uint64_t q = forward(&x, &sz, fn, ctx, &first, &to, stopped);
        if (!*stopped && q < x.top) { /* no frame at q: the walk down to it does the rest */
            if (!walk_down(&x, q, &sz)) return false;
            if (first == x.top && x.n) first = x.starts[x.n - 1];
            *stopped = deliver(&x, fn, ctx, &to);
        }
        x.bottom = x.cut && first > x.start ? first : x.start;
        lost = x.bottom - from;
    } else { /* lapped, a first call, or a position that is no boundary: the walk down */
        if (!walk_down(&x, x.start, &sz)) return false;
        first = x.n ? x.starts[x.n - 1] : x.top;
        *stopped = deliver(&x, fn, ctx, &to);
        /* The bytes handed over start at the oldest record still whole: below it, from the
         * oldest record held nothing is lost; from a position, every byte up to it is (where
         * the walk stopped, below the cut, is no bound: a record the writer changed there may
         * have led it further down). */
        if (p != BB_RING_OLDEST && first > from) lost = first - from;
        x.bottom = first;
    }
    uint64_t seen = x.bottom > from ? x.bottom : from;
    *cur = (bb_ring_cursor){to, lost, to - seen, x.h0};
    return true;
}

/* The rings read in turn; false when out of memory. */
static bool follow_all(bb_ring *r, bool live, bb_ring_cursor *cursors, const bb__ring_ann *anns,
                       size_t nanns, bb_ring_record_fn fn, void *ctx) {
    size_t k = 0;
    bool stopped = false;
    for (uint32_t i = 0; i < r->info.shards && !stopped; i++) {
        size_t a0 = k;
        while (k < nanns && anns[k].shard == i) k++;
        if (!follow_ring(r, live, i, &cursors[i], anns + a0, k - a0, fn, ctx, &stopped))
            return false;
    }
    return true;
}

/* Contract: see ring_reader.h. */
bb_status bb_ring_follow_records(bb_ring *r, bb_ring_cursor *cursors, bb_ring_record_fn fn,
                                 void *ctx, bb_error *err) {
    if (!r || !cursors || !fn)
        return bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "invalid argument");
    bb_status st = bb__ring_still_whole(r, err);
    if (st != BB_OK) return st;
    if (!r->fol && !(r->fol = follow_new(r->info.shards)))
        return bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "%s: out of memory", r->name);
    bool live = bb__ring_locked(r); /* liveness != GONE, without its /proc reads */
    r->stats.written = false;
    r->stats.cut_shards = 0;
    /* the heads first: a record below them names strings (and a schema) made before it was
     * reserved, so the metadata and intern entries read next hold them */
    bool moved = false;
    for (uint32_t i = 0; i < r->info.shards; i++) {
        uint64_t h = bb__ring_load64(r->d, cursor_off(r, i));
        moved |= h != r->fol->h0[i];
        r->fol->h0[i] = h;
        r->stats.written |= h != 0;
    }
    r->fol->quiet = moved ? 0 : r->fol->quiet + (r->fol->quiet < QUIET);
    bb__ring_ann *anns = NULL;
    size_t nanns = 0;
    bool ok = bb__ring_meta_update(r, live) && bb__ring_announcements(r, live, &anns, &nanns);
    if (ok && (st = bb__ring_still_whole(r, err)) != BB_OK) {
        free(anns);
        return st;
    }
    ok = ok && follow_all(r, live, cursors, anns, nanns, fn, ctx);
    free(anns);
    if (ok && live) ready_next(r);
    if (!ok) return bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "%s: out of memory", r->name);
    /* The file's pages stay mapped while a writer holds the file, idle or not: letting them go
     * after a call with nothing new had the next busy calls fault the whole ring back in, a
     * page at a time (tens of ms: a lap at 20 M records/s). A file read once more is let go. */
    if (!live) bb__ring_let_go(r);
    bb__err_clear(err);
    return BB_OK;
}
