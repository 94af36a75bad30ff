/* parquet/codec.c — page compression: zstd, snappy, gzip, none (see parquet/codec.h). */
/* SPDX-License-Identifier: MIT */
#include "parquet/codec.h"

#include <limits.h>
#include <string.h>
#include <zstd.h>

#ifdef BB_HAVE_SNAPPY
#include <snappy-c.h>
#endif
#ifdef BB_HAVE_ZLIB
#include <zlib.h>
#endif

/* parquet.thrift CompressionCodec values */
enum { T_UNCOMPRESSED = 0, T_SNAPPY = 1, T_GZIP = 2, T_ZSTD = 6 };

static const char *const NAMES[] = {"zstd", "snappy", "gzip", "none"};

bool pq_codec_parse(const char *name, pq_codec *out) {
    for (int i = 0; i < 4; i++)
        if (strcmp(name, NAMES[i]) == 0) {
            *out = (pq_codec)i;
            return true;
        }
    return false;
}

const char *pq_codec_name(pq_codec c) { return (unsigned)c < 4 ? NAMES[c] : "unknown"; }

int32_t pq_codec_thrift(pq_codec c) {
    switch (c) {
    case PQ_CODEC_SNAPPY: return T_SNAPPY;
    case PQ_CODEC_GZIP: return T_GZIP;
    case PQ_CODEC_NONE: return T_UNCOMPRESSED;
    case PQ_CODEC_ZSTD: break;
    }
    return T_ZSTD;
}

bool pq_codec_available(pq_codec c) {
    switch (c) {
    case PQ_CODEC_SNAPPY:
#ifdef BB_HAVE_SNAPPY
        return true;
#else
        return false;
#endif
    case PQ_CODEC_GZIP:
#ifdef BB_HAVE_ZLIB
        return true;
#else
        return false;
#endif
    case PQ_CODEC_ZSTD:
    case PQ_CODEC_NONE: return true;
    }
    return false;
}

size_t pq_codec_bound(pq_codec c, size_t n) {
    switch (c) {
    case PQ_CODEC_SNAPPY:
#ifdef BB_HAVE_SNAPPY
        return snappy_max_compressed_length(n);
#else
        return n;
#endif
    case PQ_CODEC_GZIP:
        /* deflate's worst case (zlib's compressBound) plus the gzip header and trailer */
        return n + (n >> 12) + (n >> 14) + (n >> 25) + 13 + 18;
    case PQ_CODEC_NONE: return n;
    case PQ_CODEC_ZSTD: break;
    }
    return ZSTD_compressBound(n);
}

#ifdef BB_HAVE_ZLIB
/* One gzip member (RFC 1952) of (src, n) at `level`. */
static bool gzip_compress(int level, void *dst, size_t cap, const void *src, size_t n,
                          size_t *out_len) {
    if (n > UINT_MAX || cap > UINT_MAX) return false;
    z_stream s;
    memset(&s, 0, sizeof s);
    level = level < 1 ? 1 : level > 9 ? 9 : level;
    if (deflateInit2(&s, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return false;
    s.next_in = (Bytef *)(uintptr_t)src;
    s.avail_in = (uInt)n;
    s.next_out = dst;
    s.avail_out = (uInt)cap;
    int rc = deflate(&s, Z_FINISH);
    *out_len = (size_t)s.total_out;
    deflateEnd(&s);
    return rc == Z_STREAM_END;
}
#endif

bool pq_codec_compress(pq_codec c, void *zstd_cctx, int level, void *dst, size_t cap,
                       const void *src, size_t n, size_t *out_len) {
    switch (c) {
    case PQ_CODEC_SNAPPY: {
#ifdef BB_HAVE_SNAPPY
        size_t len = cap;
        if (snappy_compress(src, n, dst, &len) != SNAPPY_OK) return false;
        *out_len = len;
        return true;
#else
        return false;
#endif
    }
    case PQ_CODEC_GZIP:
#ifdef BB_HAVE_ZLIB
        return gzip_compress(level, dst, cap, src, n, out_len);
#else
        return false;
#endif
    case PQ_CODEC_NONE:
        if (n > cap) return false;
        if (n) memcpy(dst, src, n);
        *out_len = n;
        return true;
    case PQ_CODEC_ZSTD: break;
    }
    size_t len = ZSTD_compressCCtx(zstd_cctx, dst, cap, src, n, level);
    if (ZSTD_isError(len)) return false;
    *out_len = len;
    return true;
}
