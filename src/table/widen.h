/* table/widen.h — the type-widening rule of the Parquet table: the one column type a leaf
 * gets when several event fields (versions of one event's field, or one promoted name across
 * events) land in it. The rule depends only on the field types, never on which file or event
 * came first: each field type has a kind, the kinds form a lattice, a leaf's kind is the join
 * (least upper bound) of its fields' kinds, and the kind gives the column type.
 *
 *   kind      field types         column    order: BOOL < USMALL < U64 < STRING
 *   BOOL      bool                BOOLEAN          BOOL < SIGNED; USMALL < SIGNED < STRING
 *   USMALL    u8, u16, u32        INT64     (so u8 -> u32 -> i64 versions keep INT64)
 *   U64       u64                 UINT64    U64 join SIGNED = STRING (decimal text): neither
 *   SIGNED    i8..i64             INT64     INT64 nor UINT64 holds every value of both
 *   STRING    enum, bytes, interned (and anything the format does not define)  STRING
 *   DOUBLE    a log call site's `double` argument (u64 bits)  DOUBLE;  DOUBLE join any other
 *             kind = STRING (the number as text, %.17g)
 *
 * Values are converted into the leaf's type losslessly (bool as 0 / 1 into integers, numbers
 * as decimal text and bools as true / false into STRING).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_WIDEN_H
#define BB_CONVERT_WIDEN_H

#include <stdint.h>

#include "parquet/column.h"

typedef enum tw_kind {
    PQ_KIND_BOOL = 0,
    PQ_KIND_USMALL = 1,
    PQ_KIND_U64 = 2,
    PQ_KIND_SIGNED = 3,
    PQ_KIND_STRING = 4,
    PQ_KIND_DOUBLE = 5 /* a log call site's double argument: joins only itself, else STRING */
} tw_kind;

/* The kind of a backbeat field type (enum bb_type). */
tw_kind tw_kind_of_field(uint8_t bb_type);

/* The join of two kinds: commutative, associative, idempotent. */
tw_kind tw_kind_join(tw_kind a, tw_kind b);

/* The column type of a kind. */
pq_type tw_type_of_kind(tw_kind k);

#endif /* BB_CONVERT_WIDEN_H */
