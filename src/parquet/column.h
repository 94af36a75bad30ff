/* parquet_column.h — the writer of one leaf column of a Parquet file, one row group at a time.
 *
 * A column receives, for rows of the current row group in increasing order, either a value
 * (definition level max_def) or a NULL at some lower level; rows it is not told about are NULL
 * at level 0 (the sparse-wide layout: most columns are absent from most rows, and a gap costs
 * O(1) because levels are run-length encoded as runs). Values are buffered into a v1 data page
 * (definition levels RLE, values PLAIN or RLE_DICTIONARY) that is zstd-compressed into the
 * chunk buffer when it reaches the page size. pq_col_finish pads the row group, writes the
 * dictionary page and the data pages to the output and returns the chunk's metadata and
 * statistics (null count, min/max in the column's sort order).
 *
 * Dictionary columns fall back to PLAIN for the rest of the chunk when the dictionary grows
 * too big or turns out not to pay (most values distinct).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_PARQUET_COLUMN_H
#define BB_PARQUET_COLUMN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "parquet/buf.h"
#include "parquet/dict.h"
#include "parquet/rle.h"

/* Logical column types of the backbeat table. */
typedef enum pq_type {
    PQ_BOOLEAN = 0, /* physical BOOLEAN */
    PQ_INT64 = 1,   /* physical INT64, signed */
    PQ_UINT64 = 2,  /* physical INT64, UINT_64 / INTEGER(64,false), unsigned order */
    PQ_STRING = 3,  /* physical BYTE_ARRAY, UTF8 / STRING */
    PQ_DOUBLE = 4   /* physical DOUBLE: IEEE 754 bits, written as an INT64's; no min/max */
} pq_type;

/* Parquet Encoding enum values used here. */
enum { PQ_ENC_PLAIN = 0, PQ_ENC_RLE = 3, PQ_ENC_RLE_DICTIONARY = 8 };

/* Where the file goes, shared by every column: an fd written sequentially. */
typedef struct pq_out {
    int fd;
    uint64_t offset; /* bytes written so far */
    int error;       /* errno of the first failed write, 0 if none */
} pq_out;

/* Write all `n` bytes (EINTR / short writes retried). False (error set) on failure. */
bool pq_out_write(pq_out *o, const void *p, size_t n);

/* Shared state of all columns of one file: compressor, scratch, sizes. */
typedef struct pq_ctx {
    void *zstd;        /* ZSTD_CCtx */
    int level;         /* zstd level (gzip: clamped to 1..9) */
    int codec;         /* pq_codec (parquet/codec.h); 0 (pq_ctx_init) = zstd */
    size_t page_bytes; /* target uncompressed page size */
    size_t dict_max;   /* dictionary bytes beyond which a chunk falls back to PLAIN */
    pq_buf body;       /* uncompressed page being assembled */
    pq_buf comp;       /* compressed page */
    pq_buf hdr;        /* page header */
    pq_out *out;
} pq_ctx;

/* Initialise / release the shared state. pq_ctx_init returns false on allocation failure. */
bool pq_ctx_init(pq_ctx *c, pq_out *out, int level);
void pq_ctx_free(pq_ctx *c);

/* What the footer needs to know about one column chunk. */
typedef struct pq_chunk_meta {
    int64_t dict_offset; /* -1: no dictionary page */
    int64_t data_offset;
    int64_t total_compressed;
    int64_t total_uncompressed;
    int64_t num_values; /* levels, NULLs included */
    int64_t null_count;
    bool enc_dict; /* some data page is RLE_DICTIONARY */
    bool has_minmax;
    uint32_t min_len, max_len;
    uint8_t *min, *max; /* malloc'ed min_value / max_value (PLAIN image, no length) */
} pq_chunk_meta;

void pq_chunk_meta_free(pq_chunk_meta *m);

/* Deferred pages: when a column's on_cut is set, a full page is not compressed where it fills
 * but cut into the column's `pend` buffer, with a call before (PQ_CUT_BEFORE: the hook must see
 * that the page cut before has been compressed, pq_col_compress_pend, so that pages reach the
 * chunk in order and `pend` is free) and after (PQ_CUT_AFTER: the hook hands the page to
 * whoever compresses it). The last page of a row group is compressed by pq_col_seal itself,
 * which needs the one before compressed already. NULL (pq_col_init's): pages are compressed
 * where they fill. */
struct pq_column;
enum { PQ_CUT_BEFORE, PQ_CUT_AFTER };
typedef void (*pq_cut_fn)(void *arg, struct pq_column *c, int phase);

/* A caller-held cache of one value's dictionary index (see pq_col_u64_cached). */
typedef struct pq_dict_cache {
    uint64_t generation; /* dictionary generation + 1 the index belongs to; 0 = none */
    uint32_t index;
} pq_dict_cache;

/* Longest string kept for min/max statistics; a longer value disables them for the chunk. */
#define PQ_STAT_MAX_STRING 512

typedef struct pq_column {
    pq_ctx *ctx;
    pq_type type;
    int max_def;      /* 0 (REQUIRED), 1 or 2 */
    bool dict_wanted; /* start each chunk in dictionary mode */

    /* current page */
    pq_buf lev; /* RLE-encoded definition levels */
    pq_rle rle;
    uint64_t page_levels;
    uint64_t page_values;
    pq_buf vals;    /* PLAIN bytes; or u32 dictionary indices; BOOLEAN: one byte per value */
    bool page_dict; /* vals holds dictionary indices */

    /* current chunk */
    uint64_t rows; /* levels written in this row group */
    bool dict_mode;
    bool sticky_plain; /* the dictionary did not pay: later chunks start PLAIN */
    pq_dict dict;
    pq_buf chunk; /* page headers + compressed data pages */
    uint64_t chunk_uncompressed;
    uint64_t chunk_values; /* non-NULL values */
    uint64_t nulls;
    bool enc_dict;

    /* statistics of the chunk */
    bool have_minmax;
    bool stats_off; /* a string too long for min/max was seen */
    uint64_t umin, umax;
    int64_t smin, smax;
    pq_buf smin_s, smax_s;

    /* pq_col_str_stable: an open-addressing map from a stable value's address to its cached
     * dictionary index (grows with the distinct addresses, which the dump bounds) */
    struct pq_ptr_slot *ptr_slots;
    uint32_t ptr_mask, ptr_count;
    bool adding_stable;    /* the value being added comes through pq_col_str_stable */
    uint64_t stable_bytes; /* dictionary bytes of such values in this chunk */

    bool failed; /* allocation or compression failed */

    /* Deferred pages (on_cut set, see pq_cut_fn): the last page cut, until pq_col_compress_pend
     * compresses it into the chunk (on any thread; it touches pend*, chunk and
     * chunk_uncompressed only). */
    pq_cut_fn on_cut;
    void *cut_arg;
    pq_buf pend;         /* the cut page's body */
    int64_t pend_levels; /* its levels (the header's num_values) */
    int pend_encoding;
    bool pend_failed; /* its compression failed */

    /* pq_col_seal's output, until pq_col_write */
    pq_buf dict_page; /* header + compressed dictionary page, empty when none */
    bool sealed_ok;
} pq_column;

/* Dictionary bytes of stable values (see pq_col_str_stable) one chunk may hold. */
#define PQ_STABLE_DICT_MAX ((uint64_t)256 << 20)
typedef struct pq_ptr_slot {
    const void *p;
    size_t n;
    pq_dict_cache cache;
} pq_ptr_slot;

void pq_col_init(pq_column *c, pq_ctx *ctx, pq_type type, int max_def, bool dict);
void pq_col_free(pq_column *c);

/* Append the pending NULL levels (0) up to row `row` of the row group. */
static inline void pq_col_gap(pq_column *c, uint64_t row) {
    if (c->rows < row) {
        uint64_t n = row - c->rows;
        pq_rle_put(&c->rle, 0, n);
        c->page_levels += n;
        c->nulls += n;
        c->rows = row;
    }
}

/* Row `row` is NULL at definition level `def` (< max_def). */
void pq_col_null(pq_column *c, uint64_t row, int def);

/* ---- the per-value fast paths, inline (their slow halves live in column.c) ---- */

/* Compress the current page into the chunk (or cut it, see pq_cut_fn) and start a new one. */
void pq_col_flush_page(pq_column *c);
/* Compress the cut page into the chunk with x's compressor; false (and pend_failed) on failure. */
bool pq_col_compress_pend(pq_column *c, pq_ctx *x);

/* Account for a non-NULL value at `row` (pending NULLs, its level, counters). */
static inline void pq_col_begin_value(pq_column *c, uint64_t row) {
    pq_col_gap(c, row);
    if (c->max_def > 0) pq_rle_put(&c->rle, (uint32_t)c->max_def, 1);
    c->page_levels++;
    c->page_values++;
    c->chunk_values++;
    c->rows++;
}

/* Flush the page once its buffers reach the page size. */
static inline void pq_col_end_value(pq_column *c) {
    if (c->vals.len + c->lev.len >= c->ctx->page_bytes) pq_col_flush_page(c);
}

/* Fold an integer (or bool as 0/1) into the chunk's min/max, in the column's order. */
static inline void pq_col_stats_u64(pq_column *c, uint64_t v) {
    if (c->type == PQ_INT64) {
        int64_t s = (int64_t)v;
        if (!c->have_minmax) {
            c->smin = c->smax = s;
        } else {
            if (s < c->smin) c->smin = s;
            if (s > c->smax) c->smax = s;
        }
    } else {
        if (!c->have_minmax) {
            c->umin = c->umax = v;
        } else {
            if (v < c->umin) c->umin = v;
            if (v > c->umax) c->umax = v;
        }
    }
    c->have_minmax = true;
}

/* Append a dictionary index to the page. */
static inline void pq_col_put_index(pq_column *c, uint32_t idx) {
    if (c->vals.cap - c->vals.len < 4 && !pq_buf_reserve(&c->vals, 4)) return;
    memcpy(c->vals.data + c->vals.len, &idx, 4);
    c->vals.len += 4;
}

/* Row `row` has a value (definition level max_def). The column's type decides which call fits:
 * UINT64 and INT64 take pq_col_u64 (the bits), BOOLEAN pq_col_bool, STRING pq_col_str.
 * pq_col_u64_dict is pq_col_u64 for a page of dictionary indices. */
void pq_col_u64_dict(pq_column *c, uint64_t row, uint64_t v);
static inline void pq_col_u64(pq_column *c, uint64_t row, uint64_t v) {
    if (c->page_dict) {
        pq_col_u64_dict(c, row, v);
        return;
    }
    pq_col_begin_value(c, row);
    pq_buf_u64le(&c->vals, v);
    pq_col_stats_u64(c, v);
    pq_col_end_value(c);
}
static inline void pq_col_bool(pq_column *c, uint64_t row, bool v) {
    pq_col_begin_value(c, row);
    pq_buf_byte(&c->vals, v ? 1 : 0);
    pq_col_stats_u64(c, v ? 1 : 0);
    pq_col_end_value(c);
}
void pq_col_str(pq_column *c, uint64_t row, const void *p, size_t n);

/* Runs: rows row, row + 1, ... each with a value, written as the per-value calls above would
 * write them (same bytes, same statistics), for as many values as the page takes, the one that
 * fills it included (the page is then compressed). They return how many values they wrote,
 * at least one when n > 0, except for the wrong kind of page: 0, and the caller writes the
 * next value with the per-value call, which may change the page's kind.
 * pq_col_u64_run: values v[] of a UINT64 or INT64 column on a page that is not a dictionary
 * page. pq_col_index_run: dictionary indices (of values already interned in this chunk's
 * dictionary, as a current pq_dict_cache holds them) on a dictionary page. */
size_t pq_col_u64_run(pq_column *c, uint64_t row, const uint64_t *v, size_t n);
size_t pq_col_index_run(pq_column *c, uint64_t row, const uint32_t *idx, size_t n);

/* As pq_col_u64 / pq_col_str, with a caller-held cache of the value's dictionary index: the
 * value must be the same every time the same cache is passed. */
void pq_col_u64_cached_slow(pq_column *c, uint64_t row, uint64_t v, pq_dict_cache *cache);
void pq_col_str_cached_slow(pq_column *c, uint64_t row, const void *p, size_t n,
                            pq_dict_cache *cache);
static inline void pq_col_u64_cached(pq_column *c, uint64_t row, uint64_t v, pq_dict_cache *cache) {
    if (c->page_dict && cache->generation == c->dict.generation + 1) {
        pq_col_begin_value(c, row);
        pq_col_put_index(c, cache->index);
        pq_col_end_value(c);
        return;
    }
    pq_col_u64_cached_slow(c, row, v, cache);
}
static inline void pq_col_str_cached(pq_column *c, uint64_t row, const void *p, size_t n,
                                     pq_dict_cache *cache) {
    if (c->page_dict && cache->generation == c->dict.generation + 1) {
        pq_col_begin_value(c, row);
        pq_col_put_index(c, cache->index);
        pq_col_end_value(c);
        return;
    }
    pq_col_str_cached_slow(c, row, p, n, cache);
}
/* As pq_col_str for bytes that stay at `p`, unchanged, for the whole write (enum labels and
 * intern-table text in the mapped dump): dictionary indices are cached by address (a map that
 * grows with the distinct addresses, so a lookup never hashes the bytes again). Such values are
 * copies of the input: they may grow the chunk's dictionary past ctx->dict_max, up to
 * PQ_STABLE_DICT_MAX, and pq_col_buffered does not count them. */
void pq_col_str_stable(pq_column *c, uint64_t row, const void *p, size_t n);
/* pq_col_str_stable with the caller's copy of the value's cached index (`own`, zeroed at
 * first): the same bytes, without the address lookup when the copy is current. */
void pq_col_str_stable_c(pq_column *c, uint64_t row, const void *p, size_t n, pq_dict_cache *own);

/* Bytes this column holds for the open row group (pages, chunk, dictionary), stable
 * dictionary values excepted: what a memory budget should count. */
size_t pq_col_buffered(const pq_column *c);
/* pq_col_buffered without the chunk: the open page and the dictionary. */
size_t pq_col_open_bytes(const pq_column *c);

/* Complete the row group at `nrows` rows: write the chunk to the output, fill *meta, and reset
 * for the next row group. False on failure (allocation, compression or the output).
 * Same as pq_col_seal then pq_col_write. */
bool pq_col_finish(pq_column *c, uint64_t nrows, pq_chunk_meta *meta);

/* The two halves of pq_col_finish, so that the columns of a row group can be sealed on several
 * threads (each column on one thread at a time, each with its own pq_ctx) and then written in
 * order on one. pq_col_seal pads the row group to `nrows`, compresses the last data page and
 * the dictionary page and fills *meta but its offsets (it does not touch the output); false on
 * failure. pq_col_write writes the sealed chunk at the output's offset, sets *meta's offsets
 * and resets the column for the next row group; false if the seal or the write failed. */
bool pq_col_seal(pq_column *c, uint64_t nrows, pq_chunk_meta *meta);
bool pq_col_write(pq_column *c, pq_chunk_meta *meta);

/* pq_col_write in two times, so that the sealed chunk is written while the column takes the
 * next row group's rows. pq_col_next_rowgroup resets the column for the next row group but
 * the sealed chunk's buffers (pq_col_sealed_bytes of them: the dictionary page, then the data
 * pages). pq_col_write_piece writes at most `max` of those bytes from *at (how many were
 * written before; 0 at first) at o's offset (o: the columns' output, passed because the
 * column's pq_ctx may be changing hands meanwhile), setting *meta's offsets where their part
 * starts; false on a write error. pq_col_written, once they all are, lets the buffers go (or
 * keeps the chunk's, as pq_col_write does). Until then the column's next page must not be
 * compressed into the chunk (pq_col_compress_pend) nor the row group sealed: the caller orders
 * them after. */
void pq_col_next_rowgroup(pq_column *c);
uint64_t pq_col_sealed_bytes(const pq_column *c);
bool pq_col_write_piece(pq_column *c, pq_out *o, pq_chunk_meta *meta, uint64_t *at, size_t max);
void pq_col_written(pq_column *c);

/* After a row group's write: bytes of chunk buffer the column keeps for the next one (it keeps
 * one it filled half of or more: its pages are in memory), and a release of that buffer for a
 * writer holding more than it wants to. */
size_t pq_col_kept(const pq_column *c);
void pq_col_release(pq_column *c);

#endif /* BB_PARQUET_COLUMN_H */
