/* table/widen.c — the type-widening rule of the Parquet table (see table/widen.h). */
/* SPDX-License-Identifier: MIT */
#include "table/widen.h"

#include "backbeat/schema.h"

tw_kind tw_kind_of_field(uint8_t t) {
    switch (t) {
    case BB_TYPE_U8:
    case BB_TYPE_U16:
    case BB_TYPE_U32: return PQ_KIND_USMALL;
    case BB_TYPE_U64: return PQ_KIND_U64;
    case BB_TYPE_I8:
    case BB_TYPE_I16:
    case BB_TYPE_I32:
    case BB_TYPE_I64: return PQ_KIND_SIGNED;
    case BB_TYPE_BOOL: return PQ_KIND_BOOL;
    default: return PQ_KIND_STRING;
    }
}

tw_kind tw_kind_join(tw_kind a, tw_kind b) {
    if (a == b) return a;
    if (a > b) {
        tw_kind t = a;
        a = b;
        b = t;
    }
    /* a < b from here */
    if (b >= PQ_KIND_STRING) return PQ_KIND_STRING; /* STRING, or DOUBLE beside another kind */
    if (a == PQ_KIND_U64 && b == PQ_KIND_SIGNED)
        return PQ_KIND_STRING; /* no 64-bit integer type holds both */
    return b;                  /* BOOL < USMALL < U64, BOOL < SIGNED, USMALL < SIGNED */
}

pq_type tw_type_of_kind(tw_kind k) {
    switch (k) {
    case PQ_KIND_BOOL: return PQ_BOOLEAN;
    case PQ_KIND_U64: return PQ_UINT64;
    case PQ_KIND_USMALL: /* INT64 holds every u32: a later signed version keeps the type */
    case PQ_KIND_SIGNED: return PQ_INT64;
    case PQ_KIND_STRING: return PQ_STRING;
    case PQ_KIND_DOUBLE: return PQ_DOUBLE;
    }
    return PQ_STRING;
}
