/* parquet_column.c — page and column-chunk writer for one leaf column (see parquet_column.h). */
/* SPDX-License-Identifier: MIT */
#include "parquet/column.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "common/le_bytes.h"
#include "parquet/codec.h"
#include "parquet/thrift_compact.h"

/* Parquet PageType values. */
enum { PAGE_DATA = 0, PAGE_DICTIONARY = 2 };

bool pq_out_write(pq_out *o, const void *p, size_t n) {
    const uint8_t *b = p;
    while (n > 0 && o->error == 0) {
        ssize_t w = write(o->fd, b, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            o->error = errno ? errno : EIO;
            break;
        }
        b += w;
        n -= (size_t)w;
        o->offset += (uint64_t)w;
    }
    return o->error == 0;
}

bool pq_ctx_init(pq_ctx *c, pq_out *out, int level) {
    memset(c, 0, sizeof *c);
    c->zstd = ZSTD_createCCtx();
    if (!c->zstd) return false;
    c->level = level;
    c->page_bytes = 1u << 20;
    c->dict_max = 1u << 20;
    c->out = out;
    return true;
}

void pq_ctx_free(pq_ctx *c) {
    ZSTD_freeCCtx(c->zstd);
    pq_buf_free(&c->body);
    pq_buf_free(&c->comp);
    pq_buf_free(&c->hdr);
    c->zstd = NULL;
}

void pq_chunk_meta_free(pq_chunk_meta *m) {
    free(m->min);
    free(m->max);
    m->min = m->max = NULL;
}

/* Bit width of this column's definition levels. */
static int level_width(const pq_column *c) { return pq_bit_width((uint64_t)c->max_def); }

void pq_col_init(pq_column *c, pq_ctx *ctx, pq_type type, int max_def, bool dict) {
    memset(c, 0, sizeof *c);
    c->ctx = ctx;
    c->type = type;
    c->max_def = max_def;
    c->dict_wanted = dict && type != PQ_BOOLEAN;
    c->dict_mode = c->dict_wanted;
    c->page_dict = c->dict_mode;
    pq_dict_init(&c->dict, type != PQ_STRING);
    pq_rle_init(&c->rle, &c->lev, level_width(c));
}

void pq_col_free(pq_column *c) {
    pq_buf_free(&c->lev);
    pq_buf_free(&c->vals);
    pq_buf_free(&c->chunk);
    pq_buf_free(&c->pend);
    pq_buf_free(&c->dict_page);
    pq_buf_free(&c->smin_s);
    pq_buf_free(&c->smax_s);
    pq_dict_free(&c->dict);
    free(c->ptr_slots);
    c->ptr_slots = NULL;
}

void pq_col_null(pq_column *c, uint64_t row, int def) {
    pq_col_gap(c, row);
    pq_rle_put(&c->rle, (uint32_t)def, 1);
    c->page_levels++;
    c->nulls++;
    c->rows++;
}

/* Compress `body` with x's compressor into a page of `type` appended to `dst` (header, then
 * the zstd frame); `num_values` and `encoding` go into its header. False on failure. */
static bool emit_page(pq_ctx *x, const pq_buf *body, pq_buf *dst, int type, int64_t num_values,
                      int encoding, uint64_t *uncompressed_total) {
    size_t bound = pq_codec_bound(x->codec, body->len);
    x->comp.len = 0;
    if (!pq_buf_reserve(&x->comp, bound)) return false;
    size_t clen;
    if (!pq_codec_compress(x->codec, x->zstd, x->level, x->comp.data, bound, body->data, body->len,
                           &clen))
        return false;
    x->comp.len = clen;
    if (body->len > INT32_MAX || clen > INT32_MAX) return false;

    x->hdr.len = 0;
    pq_tc_writer w;
    pq_tc_init(&w, &x->hdr);
    pq_tc_struct_begin(&w);
    pq_tc_field_i32(&w, 1, type);
    pq_tc_field_i32(&w, 2, (int32_t)body->len);
    pq_tc_field_i32(&w, 3, (int32_t)clen);
    if (type == PAGE_DATA) {
        pq_tc_field_struct(&w, 5);
        pq_tc_field_i32(&w, 1, (int32_t)num_values);
        pq_tc_field_i32(&w, 2, encoding);
        pq_tc_field_i32(&w, 3, PQ_ENC_RLE);
        pq_tc_field_i32(&w, 4, PQ_ENC_RLE);
        pq_tc_struct_end(&w);
    } else {
        pq_tc_field_struct(&w, 7);
        pq_tc_field_i32(&w, 1, (int32_t)num_values);
        pq_tc_field_i32(&w, 2, PQ_ENC_PLAIN);
        pq_tc_struct_end(&w);
    }
    pq_tc_struct_end(&w);
    if (x->hdr.failed) return false;
    pq_buf_put(dst, x->hdr.data, x->hdr.len);
    pq_buf_put(dst, x->comp.data, x->comp.len);
    *uncompressed_total += x->hdr.len + body->len;
    return !dst->failed;
}

/* A dictionary made mostly of stable values (pq_col_str_stable) of 12 bytes or more on average
 * pays even when most values so far were distinct: each entry is written once however often it
 * recurs, against at least its own bytes in PLAIN, so it costs at most the 4-byte indices (a
 * third of an entry) and saves every repeat. Long interned strings keep their dictionary. */
static bool stable_dict_pays(const pq_column *c) {
    return c->stable_bytes * 2 >= c->dict.plain.len &&
           c->dict.plain.len >= (uint64_t)16 * c->dict.count;
}

/* Whether the page's values are its whole body (a required column, PLAIN, not BOOLEAN). */
static bool values_are_body(const pq_column *c) {
    return c->max_def == 0 && !(c->page_dict && c->page_values > 0) && c->type != PQ_BOOLEAN;
}

/* Assemble the current page's body into `body` (emptied first; unless the values are the
 * body: then `body` is &c->vals and stays as it is); returns its encoding. */
static int page_body(pq_column *c, pq_buf *body) {
    if (body == &c->vals) return PQ_ENC_PLAIN;
    body->len = 0;
    if (c->max_def > 0) {
        pq_rle_finish(&c->rle);
        pq_buf_u32le(body, (uint32_t)c->lev.len);
        pq_buf_put(body, c->lev.data, c->lev.len);
    }
    int encoding = PQ_ENC_PLAIN;
    bool dict_page = c->page_dict && c->page_values > 0;
    if (c->page_values == 0) {
        /* all NULL: no value bytes */
    } else if (dict_page) {
        encoding = PQ_ENC_RLE_DICTIONARY;
        int bw = pq_bit_width(c->dict.count > 0 ? c->dict.count - 1 : 0);
        pq_buf_byte(body, (uint8_t)bw);
        pq_rle_encode_u32(body, (const uint32_t *)(const void *)c->vals.data, c->vals.len / 4, bw);
    } else if (c->type == PQ_BOOLEAN) {
        size_t n = c->vals.len;
        if (pq_buf_reserve(body, (n + 7) / 8)) {
            uint8_t *d = body->data + body->len;
            memset(d, 0, (n + 7) / 8);
            for (size_t i = 0; i < n; i++)
                if (c->vals.data[i]) d[i / 8] |= (uint8_t)(1u << (i % 8));
            body->len += (n + 7) / 8;
        }
    } else {
        pq_buf_put(body, c->vals.data, c->vals.len);
    }
    return encoding;
}

/* After the page was cut: the dictionary's fate, and a new page. */
static void next_page(pq_column *c, bool dict_page) {
    if (dict_page) {
        c->enc_dict = true;
        /* Most values distinct: the dictionary does not pay, go PLAIN for this chunk. */
        if (c->dict_mode && c->chunk_values >= 4096 && c->dict.count > c->chunk_values / 2 &&
            !stable_dict_pays(c)) {
            c->dict_mode = false;
            c->sticky_plain = true;
        }
    }
    c->lev.len = 0;
    pq_rle_init(&c->rle, &c->lev, level_width(c));
    c->vals.len = 0;
    c->page_levels = 0;
    c->page_values = 0;
    c->page_dict = c->dict_mode;
}

/* Cut the current page into c->pend for a later pq_col_compress_pend (deferred pages). The
 * values are swapped in, not copied, when they are the whole body. */
static void cut_page(pq_column *c, bool dict_page) {
    c->on_cut(c->cut_arg, c, PQ_CUT_BEFORE); /* the page before is compressed */
    pq_buf *body = &c->pend;
    if (values_are_body(c)) {
        pq_buf t = c->pend;
        c->pend = c->vals;
        c->vals = t; /* emptied by next_page */
        c->pend_encoding = PQ_ENC_PLAIN;
    } else {
        c->pend_encoding = page_body(c, body);
    }
    if (body->failed || c->lev.failed || c->vals.failed) c->failed = true;
    c->pend_levels = (int64_t)c->page_levels;
    next_page(c, dict_page);
    c->on_cut(c->cut_arg, c, PQ_CUT_AFTER);
}

/* Compress the current page into the chunk and start a new one (column.h). */
void pq_col_flush_page(pq_column *c) {
    if (c->page_levels == 0) return;
    bool dict_page = c->page_dict && c->page_values > 0;
    if (c->on_cut) {
        cut_page(c, dict_page);
        return;
    }
    pq_ctx *x = c->ctx;
    pq_buf *body = values_are_body(c) ? &c->vals : &x->body;
    int encoding = page_body(c, body);
    if (body->failed || c->lev.failed || c->vals.failed ||
        !emit_page(x, body, &c->chunk, PAGE_DATA, (int64_t)c->page_levels, encoding,
                   &c->chunk_uncompressed))
        c->failed = true;
    next_page(c, dict_page);
}

bool pq_col_compress_pend(pq_column *c, pq_ctx *x) {
    bool ok = emit_page(x, &c->pend, &c->chunk, PAGE_DATA, c->pend_levels, c->pend_encoding,
                        &c->chunk_uncompressed);
    if (!ok) c->pend_failed = true;
    c->pend.len = 0;
    return ok;
}

/* Unsigned byte-wise comparison, a shorter prefix first (<0, 0, >0). */
static int bytes_cmp(const void *a, size_t an, const void *b, size_t bn) {
    size_t n = an < bn ? an : bn;
    int r = n ? memcmp(a, b, n) : 0;
    if (r) return r;
    return an < bn ? -1 : an > bn;
}

/* Replace the contents of `b` with (p, n). */
static void set_buf(pq_buf *b, const void *p, size_t n) {
    b->len = 0;
    pq_buf_put(b, p, n);
}

/* Fold a string into the chunk's min/max (byte order); too long disables them. */
static void stats_str(pq_column *c, const void *p, size_t n) {
    if (c->stats_off) return;
    if (n > PQ_STAT_MAX_STRING) {
        c->stats_off = true;
        return;
    }
    if (!c->have_minmax) {
        set_buf(&c->smin_s, p, n);
        set_buf(&c->smax_s, p, n);
        c->have_minmax = true;
        return;
    }
    if (bytes_cmp(p, n, c->smin_s.data, c->smin_s.len) < 0) set_buf(&c->smin_s, p, n);
    else if (bytes_cmp(p, n, c->smax_s.data, c->smax_s.len) > 0) set_buf(&c->smax_s, p, n);
}

/* After a value went into the dictionary: when the chunk should go PLAIN from here on, because
 * the dictionary grew too big or the first PQ_DICT_PROBE values were mostly distinct (then the
 * next row groups start PLAIN too: a high-cardinality column stays one), flush the page
 * (dictionary-encoded up to and including this value), switch the chunk to PLAIN and return
 * true. */
#define PQ_DICT_PROBE 4096
static bool dict_give_up(pq_column *c) {
    uint64_t own = c->dict.plain.len - c->stable_bytes;
    if (own <= c->ctx->dict_max && c->dict.plain.len <= PQ_STABLE_DICT_MAX) {
        if (c->chunk_values != PQ_DICT_PROBE || c->dict.count <= PQ_DICT_PROBE / 2 ||
            stable_dict_pays(c))
            return false;
        c->sticky_plain = true;
    }
    pq_col_flush_page(c);
    c->dict_mode = false;
    c->page_dict = false;
    return true;
}

/* Append a value; returns its dictionary index when it was dictionary-encoded, else -1. */
static int64_t put_u64(pq_column *c, uint64_t row, uint64_t v) {
    pq_col_begin_value(c, row);
    if (c->page_dict) {
        bool added;
        int64_t idx = pq_dict_intern_u64(&c->dict, v, &added);
        if (idx < 0) {
            c->failed = true;
            return -1;
        }
        if (added) pq_col_stats_u64(c, v);
        pq_col_put_index(c, (uint32_t)idx);
        if (dict_give_up(c)) return -1;
        pq_col_end_value(c);
        return idx;
    }
    pq_buf_u64le(&c->vals, v);
    pq_col_stats_u64(c, v);
    pq_col_end_value(c);
    return -1;
}

void pq_col_u64_dict(pq_column *c, uint64_t row, uint64_t v) { (void)put_u64(c, row, v); }

/* The first value of a run at `row`: pending NULLs, its level and counters, as
 * pq_col_begin_value, and how many values of `width` bytes (this one included) the page takes
 * before pq_col_end_value would compress it. After it the level run is max_def's, so the next
 * values' levels only lengthen it and leave c->lev as it is. */
static size_t run_begin(pq_column *c, uint64_t row, size_t width) {
    pq_col_begin_value(c, row);
    size_t used = c->vals.len + c->lev.len, page = c->ctx->page_bytes;
    return used + width >= page ? 1 : (page - used + width - 1) / width;
}

/* The counters and levels of the run's values after the first. */
static void run_count(pq_column *c, size_t more) {
    if (c->max_def > 0) c->rle.run_len += more;
    c->page_levels += more;
    c->page_values += more;
    c->chunk_values += more;
    c->rows += more;
}

size_t pq_col_u64_run(pq_column *c, uint64_t row, const uint64_t *v, size_t n) {
    if (c->page_dict || n == 0) return 0;
    size_t fit = run_begin(c, row, 8), m = n < fit ? n : fit;
    if (!pq_buf_reserve(&c->vals, m * 8)) {
        c->failed = true;
        return m; /* the values are lost, as pq_buf_u64le would lose them */
    }
    uint8_t *d = c->vals.data + c->vals.len;
    uint64_t umin = v[0], umax = v[0];
    int64_t smin = (int64_t)v[0], smax = (int64_t)v[0];
    for (size_t i = 0; i < m; i++) {
        uint64_t x = v[i];
        bb__le_put_u64(d + 8 * i, x);
        umin = x < umin ? x : umin;
        umax = x > umax ? x : umax;
        smin = (int64_t)x < smin ? (int64_t)x : smin;
        smax = (int64_t)x > smax ? (int64_t)x : smax;
    }
    c->vals.len += m * 8;
    if (c->type == PQ_INT64) {
        pq_col_stats_u64(c, (uint64_t)smin);
        pq_col_stats_u64(c, (uint64_t)smax);
    } else {
        pq_col_stats_u64(c, umin);
        pq_col_stats_u64(c, umax);
    }
    run_count(c, m - 1);
    if (m == fit) pq_col_flush_page(c);
    return m;
}

size_t pq_col_index_run(pq_column *c, uint64_t row, const uint32_t *idx, size_t n) {
    if (!c->page_dict || n == 0) return 0;
    size_t fit = run_begin(c, row, 4), m = n < fit ? n : fit;
    if (!pq_buf_reserve(&c->vals, m * 4)) {
        c->failed = true;
        return m;
    }
    memcpy(c->vals.data + c->vals.len, idx, m * 4); /* host order, as pq_col_put_index */
    c->vals.len += m * 4;
    run_count(c, m - 1);
    if (m == fit) pq_col_flush_page(c);
    return m;
}

void pq_col_u64_cached_slow(pq_column *c, uint64_t row, uint64_t v, pq_dict_cache *cache) {
    int64_t idx = put_u64(c, row, v);
    if (idx >= 0) {
        cache->generation = c->dict.generation + 1;
        cache->index = (uint32_t)idx;
    }
}

/* Append a string; returns its dictionary index when it was dictionary-encoded, else -1. */
static int64_t put_str(pq_column *c, uint64_t row, const void *p, size_t n) {
    pq_col_begin_value(c, row);
    if (c->page_dict) {
        bool added;
        int64_t idx = pq_dict_intern(&c->dict, p, n, &added);
        if (idx < 0) {
            c->failed = true;
            return -1;
        }
        if (added) {
            stats_str(c, p, n);
            if (c->adding_stable) c->stable_bytes += (uint64_t)n + 4;
        }
        pq_col_put_index(c, (uint32_t)idx);
        if (dict_give_up(c)) return -1;
        pq_col_end_value(c);
        return idx;
    }
    if (n > UINT32_MAX) {
        c->failed = true;
        return -1;
    }
    pq_buf_u32le(&c->vals, (uint32_t)n);
    pq_buf_put(&c->vals, p, n);
    stats_str(c, p, n);
    pq_col_end_value(c);
    return -1;
}

void pq_col_str(pq_column *c, uint64_t row, const void *p, size_t n) {
    (void)put_str(c, row, p, n);
}

void pq_col_str_cached_slow(pq_column *c, uint64_t row, const void *p, size_t n,
                            pq_dict_cache *cache) {
    int64_t idx = put_str(c, row, p, n);
    if (idx >= 0) {
        cache->generation = c->dict.generation + 1;
        cache->index = (uint32_t)idx;
    }
}

/* Hash of a stable value's address. */
static uint32_t ptr_hash(const void *p) {
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32);
}

/* Double the address map (or create it); false if out of memory. */
static bool ptr_grow(pq_column *c) {
    size_t n = c->ptr_slots ? ((size_t)c->ptr_mask + 1) * 2 : 64;
    if (n > ((size_t)1 << 31)) return false;
    pq_ptr_slot *s = calloc(n, sizeof *s);
    if (!s) return false;
    for (size_t i = 0; c->ptr_slots && i <= c->ptr_mask; i++) {
        pq_ptr_slot *o = &c->ptr_slots[i];
        if (!o->p) continue;
        size_t j = ptr_hash(o->p) & (n - 1);
        while (s[j].p) j = (j + 1) & (n - 1);
        s[j] = *o;
    }
    free(c->ptr_slots);
    c->ptr_slots = s;
    c->ptr_mask = (uint32_t)(n - 1);
    return true;
}

/* The map's slot of (p, n), created empty if new; NULL if out of memory. */
static pq_ptr_slot *ptr_slot(pq_column *c, const void *p, size_t n) {
    if ((!c->ptr_slots || ((uint64_t)c->ptr_count + 1) * 2 > (uint64_t)c->ptr_mask + 1) &&
        !ptr_grow(c))
        return NULL;
    size_t j = ptr_hash(p) & c->ptr_mask;
    for (;;) {
        pq_ptr_slot *s = &c->ptr_slots[j];
        if (!s->p) {
            *s = (pq_ptr_slot){.p = p, .n = n};
            c->ptr_count++;
            return s;
        }
        if (s->p == p && s->n == n) return s;
        j = (j + 1) & c->ptr_mask;
    }
}

/* Add a stable value through its address's slot (cached index), or as a plain string when it
 * has no slot; the slot used, or NULL. */
static pq_ptr_slot *str_stable_add(pq_column *c, uint64_t row, const void *p, size_t n) {
    pq_ptr_slot *s = c->page_dict && p ? ptr_slot(c, p, n) : NULL;
    if (!s) {
        pq_col_str(c, row, p, n);
        return NULL;
    }
    c->adding_stable = true;
    pq_col_str_cached(c, row, p, n, &s->cache);
    c->adding_stable = false;
    return s;
}

void pq_col_str_stable(pq_column *c, uint64_t row, const void *p, size_t n) {
    str_stable_add(c, row, p, n);
}

void pq_col_str_stable_c(pq_column *c, uint64_t row, const void *p, size_t n, pq_dict_cache *own) {
    if (c->page_dict && own->generation == c->dict.generation + 1) {
        pq_col_begin_value(c, row);
        pq_col_put_index(c, own->index);
        pq_col_end_value(c);
        return;
    }
    pq_ptr_slot *s = str_stable_add(c, row, p, n);
    if (s) *own = s->cache; /* the map is not resized by the call: s still points at the slot */
}

size_t pq_col_open_bytes(const pq_column *c) {
    return c->vals.len + c->lev.len + (c->dict.plain.len - c->stable_bytes);
}

size_t pq_col_buffered(const pq_column *c) { return c->chunk.len + pq_col_open_bytes(c); }

/* malloc'ed copy of (p, n) (at least 1 byte), NULL if out of memory. */
static uint8_t *dup_bytes(const void *p, size_t n) {
    uint8_t *d = malloc(n ? n : 1);
    if (d && n) memcpy(d, p, n);
    return d;
}

/* `v` as 8 little-endian bytes. */
static void u64_le(uint8_t out[8], uint64_t v) {
    for (int i = 0; i < 8; i++) out[i] = (uint8_t)(v >> (8 * i));
}

/* The chunk's min/max into *meta (malloc'ed copies); false if out of memory. */
static bool seal_minmax(pq_column *c, pq_chunk_meta *meta) {
    uint8_t lo[8], hi[8];
    const void *mn = lo, *mx = hi;
    size_t mnl = 8, mxl = 8;
    switch (c->type) {
    case PQ_BOOLEAN:
        lo[0] = (uint8_t)c->umin;
        hi[0] = (uint8_t)c->umax;
        mnl = mxl = 1;
        break;
    case PQ_INT64:
        u64_le(lo, (uint64_t)c->smin);
        u64_le(hi, (uint64_t)c->smax);
        break;
    case PQ_UINT64:
        u64_le(lo, c->umin);
        u64_le(hi, c->umax);
        break;
    case PQ_DOUBLE: break; /* not called: no min/max */
    case PQ_STRING:
        mn = c->smin_s.data;
        mnl = c->smin_s.len;
        mx = c->smax_s.data;
        mxl = c->smax_s.len;
        break;
    }
    meta->min = dup_bytes(mn, mnl);
    meta->max = dup_bytes(mx, mxl);
    if (!meta->min || !meta->max || c->smin_s.failed || c->smax_s.failed) {
        pq_chunk_meta_free(meta);
        return false;
    }
    meta->min_len = (uint32_t)mnl;
    meta->max_len = (uint32_t)mxl;
    meta->has_minmax = true;
    return true;
}

bool pq_col_seal(pq_column *c, uint64_t nrows, pq_chunk_meta *meta) {
    memset(meta, 0, sizeof *meta);
    meta->dict_offset = -1;
    pq_col_gap(c, nrows);
    pq_cut_fn hook = c->on_cut; /* the last page is compressed here, not deferred */
    c->on_cut = NULL;
    pq_col_flush_page(c);
    c->on_cut = hook;

    uint64_t dict_uncompressed = 0;
    c->dict_page.len = 0;
    bool ok = !c->failed && !c->pend_failed && !c->chunk.failed;
    if (ok && c->enc_dict) {
        /* the dictionary's PLAIN image is the page: compressed where it is */
        ok = !c->dict.plain.failed &&
             emit_page(c->ctx, &c->dict.plain, &c->dict_page, PAGE_DICTIONARY, c->dict.count,
                       PQ_ENC_PLAIN, &dict_uncompressed);
    }
    meta->total_compressed = (int64_t)(c->dict_page.len + c->chunk.len);
    meta->total_uncompressed = (int64_t)(dict_uncompressed + c->chunk_uncompressed);
    meta->num_values = (int64_t)c->rows;
    meta->null_count = (int64_t)c->nulls;
    meta->enc_dict = c->enc_dict;
    /* DOUBLE: no min/max (its order is not its bits' order, and NaN has none) */
    if (ok && c->have_minmax && !c->stats_off && c->type != PQ_DOUBLE) ok = seal_minmax(c, meta);
    c->sealed_ok = ok;
    return ok;
}

/* Start the column's next row group (after its chunk was written or given up). The chunk
 * buffer stays when this row group filled half of it or more: its pages are in memory already
 * (growing it again in each row group took a third of a convert's page faults). A big one less
 * used is released, so that columns busy in different row groups do not each keep their peak:
 * what stays is at most twice the row group's chunk bytes (and the writer bounds it: pq_col_kept,
 * pq_col_release). */
static void release_chunk(pq_column *c) {
    if (c->chunk.cap > (256u << 10) && c->chunk.len < c->chunk.cap / 2) pq_buf_free(&c->chunk);
    c->chunk.len = 0;
    pq_buf_free(&c->dict_page);
}

/* Everything of the row group but its chunk's buffers, which release_chunk lets go. */
static void reset_rowgroup(pq_column *c) {
    c->rows = 0;
    c->chunk_uncompressed = 0;
    c->chunk_values = 0;
    c->nulls = 0;
    c->enc_dict = false;
    c->have_minmax = false;
    c->stats_off = false;
    c->dict_mode = c->dict_wanted && !c->sticky_plain;
    c->page_dict = c->dict_mode;
    pq_dict_reset(&c->dict);
    c->stable_bytes = 0;
    c->sealed_ok = false;
}

static void reset_chunk(pq_column *c) {
    release_chunk(c);
    reset_rowgroup(c);
}

size_t pq_col_kept(const pq_column *c) { return c->chunk.cap; }

void pq_col_release(pq_column *c) {
    if (c->chunk.len == 0) pq_buf_free(&c->chunk);
}

bool pq_col_write(pq_column *c, pq_chunk_meta *meta) {
    uint64_t at = 0;
    bool ok = c->sealed_ok && pq_col_write_piece(c, c->ctx->out, meta, &at, SIZE_MAX);
    reset_chunk(c);
    return ok;
}

void pq_col_next_rowgroup(pq_column *c) { reset_rowgroup(c); }

uint64_t pq_col_sealed_bytes(const pq_column *c) {
    return (uint64_t)c->dict_page.len + c->chunk.len;
}

bool pq_col_write_piece(pq_column *c, pq_out *o, pq_chunk_meta *meta, uint64_t *at, size_t max) {
    uint64_t d = c->dict_page.len;
    bool ok = true;
    while (ok && max > 0 && *at < d + c->chunk.len) {
        const pq_buf *part = *at < d ? &c->dict_page : &c->chunk;
        size_t from = (size_t)(*at < d ? *at : *at - d);
        if (from == 0) { /* a part starts here */
            if (part == &c->dict_page) meta->dict_offset = (int64_t)o->offset;
            else meta->data_offset = (int64_t)o->offset;
        }
        size_t n = part->len - from < max ? part->len - from : max;
        ok = pq_out_write(o, part->data + from, n);
        *at += n;
        max -= n;
    }
    if (c->chunk.len == 0 && *at == d) /* no data page (as pq_col_write, the offset is set) */
        meta->data_offset = (int64_t)o->offset;
    return ok;
}

void pq_col_written(pq_column *c) { release_chunk(c); }

bool pq_col_finish(pq_column *c, uint64_t nrows, pq_chunk_meta *meta) {
    bool sealed = pq_col_seal(c, nrows, meta);
    bool written = pq_col_write(c, meta);
    return sealed && written;
}
