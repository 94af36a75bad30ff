/* parquet_footer.h — the Parquet footer: FileMetaData (schema, row groups with their column
 * chunks and statistics, key-value metadata, created_by, column_orders) in compact Thrift.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_PARQUET_FOOTER_H
#define BB_PARQUET_FOOTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parquet/buf.h"
#include "parquet/column.h"

/* One element of the schema, in depth-first order (the root is implicit). A group has
 * num_children > 0 and no type; a leaf has a type and its leaf (column) index. */
typedef struct pq_node {
    char *name;       /* malloc'ed, UTF-8 */
    bool optional;    /* OPTIONAL, else REQUIRED */
    int num_children; /* > 0 for a group */
    pq_type type;     /* leaves */
    int parent;       /* index of the enclosing group node, -1 at top level */
    uint8_t logical;  /* PQ_LOGICAL_*: an annotation beyond the type's own */
} pq_node;

/* Logical annotations of a leaf. TIMESTAMP_NS_UTC: an INT64 leaf annotated
 * TIMESTAMP(isAdjustedToUTC = true, unit = NANOS) (no legacy converted type exists for it). */
enum { PQ_LOGICAL_NONE = 0, PQ_LOGICAL_TIMESTAMP_NS_UTC = 1 };

typedef struct pq_rowgroup {
    uint64_t num_rows;
    int codec;             /* pq_codec of its pages (parquet/codec.h); 0 = zstd */
    pq_chunk_meta *chunks; /* one per leaf, in leaf order */
} pq_rowgroup;

typedef struct pq_kv {
    const char *key;
    const char *value;
} pq_kv;

/* Serialise FileMetaData into `out` (appends). `nodes` in depth-first order; leaves are
 * numbered in that order. Returns false on allocation failure. */
bool pq_footer_encode(pq_buf *out, const pq_node *nodes, size_t nnodes, const pq_rowgroup *rgs,
                      size_t nrg, uint64_t num_rows, const pq_kv *kv, size_t nkv,
                      const char *created_by);

#endif /* BB_PARQUET_FOOTER_H */
