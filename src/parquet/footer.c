/* parquet_footer.c — FileMetaData serialisation (see parquet_footer.h). Field ids are those of
 * parquet.thrift (parquet-format). */
/* SPDX-License-Identifier: MIT */
#include "parquet/footer.h"

#include <stdlib.h>
#include <string.h>

#include "parquet/codec.h"
#include "parquet/thrift_compact.h"

/* parquet.thrift enum values */
enum { T_BOOLEAN = 0, T_INT64 = 2, T_DOUBLE = 5, T_BYTE_ARRAY = 6 };
enum { CT_UTF8 = 0, CT_UINT_64 = 14 };
enum { REP_REQUIRED = 0, REP_OPTIONAL = 1 };

/* Parquet physical type of a table type. */
static int physical(pq_type t) {
    switch (t) {
    case PQ_BOOLEAN: return T_BOOLEAN;
    case PQ_INT64:
    case PQ_UINT64: return T_INT64;
    case PQ_STRING: return T_BYTE_ARRAY;
    case PQ_DOUBLE: return T_DOUBLE;
    }
    return T_BYTE_ARRAY;
}

/* One SchemaElement (list element) for node `n`, with legacy and logical annotations. */
static void schema_element(pq_tc_writer *w, const pq_node *n) {
    pq_tc_elem_struct(w);
    bool group = n->num_children > 0;
    if (!group) pq_tc_field_i32(w, 1, physical(n->type));
    pq_tc_field_i32(w, 3, n->optional ? REP_OPTIONAL : REP_REQUIRED);
    pq_tc_field_string(w, 4, n->name);
    if (group) pq_tc_field_i32(w, 5, n->num_children);
    if (!group && n->type == PQ_STRING) {
        pq_tc_field_i32(w, 6, CT_UTF8);
        pq_tc_field_struct(w, 10); /* LogicalType */
        pq_tc_field_struct(w, 1);  /* STRING: StringType {} */
        pq_tc_struct_end(w);
        pq_tc_struct_end(w);
    } else if (!group && n->type == PQ_INT64 && n->logical == PQ_LOGICAL_TIMESTAMP_NS_UTC) {
        pq_tc_field_struct(w, 10);    /* LogicalType */
        pq_tc_field_struct(w, 8);     /* TIMESTAMP: TimestampType */
        pq_tc_field_bool(w, 1, true); /* isAdjustedToUTC */
        pq_tc_field_struct(w, 2);     /* unit: TimeUnit */
        pq_tc_field_struct(w, 3);     /* NANOS: NanoSeconds {} */
        pq_tc_struct_end(w);
        pq_tc_struct_end(w);
        pq_tc_struct_end(w);
        pq_tc_struct_end(w);
    } else if (!group && n->type == PQ_UINT64) {
        pq_tc_field_i32(w, 6, CT_UINT_64);
        pq_tc_field_struct(w, 10); /* LogicalType */
        pq_tc_field_struct(w, 10); /* INTEGER: IntType */
        pq_tc_field_i8(w, 1, 64);
        pq_tc_field_bool(w, 2, false);
        pq_tc_struct_end(w);
        pq_tc_struct_end(w);
    }
    pq_tc_struct_end(w);
}

/* Path of leaf node `i`: names from the top-level ancestor down. */
static size_t leaf_path(const pq_node *nodes, size_t i, const char **path, size_t cap) {
    size_t n = 0;
    for (long j = (long)i; j >= 0 && n < cap; j = nodes[j].parent) path[n++] = nodes[j].name;
    for (size_t a = 0, b = n ? n - 1 : 0; a < b; a++, b--) {
        const char *t = path[a];
        path[a] = path[b];
        path[b] = t;
    }
    return n;
}

/* One ColumnChunk (list element) with its ColumnMetaData and Statistics. */
static void column_chunk(pq_tc_writer *w, const pq_node *nodes, size_t node, const pq_chunk_meta *m,
                         int codec) {
    const pq_node *n = &nodes[node];
    pq_tc_elem_struct(w);
    pq_tc_field_i64(w, 2, 0); /* file_offset: deprecated, writers set 0 */
    pq_tc_field_struct(w, 3); /* ColumnMetaData */
    pq_tc_field_i32(w, 1, physical(n->type));
    int enc[3];
    size_t nenc = 0;
    enc[nenc++] = PQ_ENC_PLAIN;
    enc[nenc++] = PQ_ENC_RLE;
    if (m->enc_dict) enc[nenc++] = PQ_ENC_RLE_DICTIONARY;
    pq_tc_field_list(w, 2, TC_I32, nenc);
    for (size_t i = 0; i < nenc; i++) pq_tc_elem_i32(w, enc[i]);
    const char *path[8];
    size_t np = leaf_path(nodes, node, path, 8);
    pq_tc_field_list(w, 3, TC_BINARY, np);
    for (size_t i = 0; i < np; i++) pq_tc_elem_binary(w, path[i], strlen(path[i]));
    pq_tc_field_i32(w, 4, pq_codec_thrift((pq_codec)codec));
    pq_tc_field_i64(w, 5, m->num_values);
    pq_tc_field_i64(w, 6, m->total_uncompressed);
    pq_tc_field_i64(w, 7, m->total_compressed);
    pq_tc_field_i64(w, 9, m->data_offset);
    if (m->dict_offset >= 0) pq_tc_field_i64(w, 11, m->dict_offset);
    pq_tc_field_struct(w, 12); /* Statistics */
    pq_tc_field_i64(w, 3, m->null_count);
    if (m->has_minmax) {
        pq_tc_field_binary(w, 5, m->max, m->max_len);
        pq_tc_field_binary(w, 6, m->min, m->min_len);
    }
    pq_tc_struct_end(w);
    pq_tc_struct_end(w); /* ColumnMetaData */
    pq_tc_struct_end(w); /* ColumnChunk */
}

bool pq_footer_encode(pq_buf *out, const pq_node *nodes, size_t nnodes, const pq_rowgroup *rgs,
                      size_t nrg, uint64_t num_rows, const pq_kv *kv, size_t nkv,
                      const char *created_by) {
    size_t nleaves = 0, ntop = 0;
    for (size_t i = 0; i < nnodes; i++) {
        if (nodes[i].num_children == 0) nleaves++;
        if (nodes[i].parent < 0) ntop++;
    }
    size_t *leaf_node = malloc((nleaves ? nleaves : 1) * sizeof *leaf_node);
    if (!leaf_node) return false;
    for (size_t i = 0, l = 0; i < nnodes; i++)
        if (nodes[i].num_children == 0) leaf_node[l++] = i;

    pq_tc_writer w;
    pq_tc_init(&w, out);
    pq_tc_struct_begin(&w);
    pq_tc_field_i32(&w, 1, 1); /* version */
    pq_tc_field_list(&w, 2, TC_STRUCT, nnodes + 1);
    pq_tc_elem_struct(&w); /* root */
    pq_tc_field_string(&w, 4, "schema");
    pq_tc_field_i32(&w, 5, (int32_t)ntop);
    pq_tc_struct_end(&w);
    for (size_t i = 0; i < nnodes; i++) schema_element(&w, &nodes[i]);
    pq_tc_field_i64(&w, 3, (int64_t)num_rows);
    pq_tc_field_list(&w, 4, TC_STRUCT, nrg);
    for (size_t g = 0; g < nrg; g++) {
        const pq_rowgroup *rg = &rgs[g];
        int64_t total_uncompressed = 0, total_compressed = 0, first = -1;
        pq_tc_elem_struct(&w);
        pq_tc_field_list(&w, 1, TC_STRUCT, nleaves);
        for (size_t l = 0; l < nleaves; l++) {
            const pq_chunk_meta *m = &rg->chunks[l];
            column_chunk(&w, nodes, leaf_node[l], m, rg->codec);
            total_uncompressed += m->total_uncompressed;
            total_compressed += m->total_compressed;
            if (l == 0) first = m->dict_offset >= 0 ? m->dict_offset : m->data_offset;
        }
        pq_tc_field_i64(&w, 2, total_uncompressed);
        pq_tc_field_i64(&w, 3, (int64_t)rg->num_rows);
        if (first >= 0) pq_tc_field_i64(&w, 5, first);
        pq_tc_field_i64(&w, 6, total_compressed);
        pq_tc_struct_end(&w);
    }
    pq_tc_field_list(&w, 5, TC_STRUCT, nkv);
    for (size_t i = 0; i < nkv; i++) {
        pq_tc_elem_struct(&w);
        pq_tc_field_string(&w, 1, kv[i].key);
        pq_tc_field_string(&w, 2, kv[i].value);
        pq_tc_struct_end(&w);
    }
    pq_tc_field_string(&w, 6, created_by);
    pq_tc_field_list(&w, 7, TC_STRUCT, nleaves);
    for (size_t l = 0; l < nleaves; l++) {
        pq_tc_elem_struct(&w);
        pq_tc_field_struct(&w, 1); /* TYPE_ORDER: TypeDefinedOrder {} */
        pq_tc_struct_end(&w);
        pq_tc_struct_end(&w);
    }
    pq_tc_struct_end(&w);
    free(leaf_node);
    return !out->failed;
}
