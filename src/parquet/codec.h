/* parquet/codec.h — the page compression codecs of the Parquet encoder: ZSTD (libzstd),
 * SNAPPY (libsnappy's raw block format, as Parquet's SNAPPY codec is), GZIP (zlib, gzip
 * framing per RFC 1952) and UNCOMPRESSED. SNAPPY and GZIP are compiled in only when their
 * library was found at build time (BB_HAVE_SNAPPY, BB_HAVE_ZLIB); pq_codec_available says.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_PARQUET_CODEC_H
#define BB_PARQUET_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Codecs; ZSTD is 0, so a zeroed context or row group means zstd. */
typedef enum pq_codec {
    PQ_CODEC_ZSTD = 0,
    PQ_CODEC_SNAPPY = 1,
    PQ_CODEC_GZIP = 2,
    PQ_CODEC_NONE = 3
} pq_codec;

/* The codec named `name` ("zstd", "snappy", "gzip", "none"); false for another name. */
bool pq_codec_parse(const char *name, pq_codec *out);
/* Its name, and its value in parquet.thrift's CompressionCodec. */
const char *pq_codec_name(pq_codec c);
int32_t pq_codec_thrift(pq_codec c);
/* Whether this build can compress with it. */
bool pq_codec_available(pq_codec c);

/* The largest output pq_codec_compress may produce for `n` input bytes. */
size_t pq_codec_bound(pq_codec c, size_t n);

/* Compress (src, n) into dst (room for pq_codec_bound bytes); *out_len the compressed size.
 * `zstd_cctx` is the ZSTD_CCtx to use (ZSTD only), `level` the zstd level, or for GZIP the
 * zlib level clamped to 1..9 (snappy and none have no level). False on failure or for a
 * codec this build lacks. */
bool pq_codec_compress(pq_codec c, void *zstd_cctx, int level, void *dst, size_t cap,
                       const void *src, size_t n, size_t *out_len);

#endif /* BB_PARQUET_CODEC_H */
