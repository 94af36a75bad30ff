/* widen_test.c — the type-widening rule (table/widen.h): every field type's kind and
 * column type, the join table written out by hand, and the join's algebra (commutative,
 * associative, idempotent: a leaf's type never depends on the order its fields are seen). */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "backbeat/schema.h"
#include "table/widen.h"

static int failures;

static void expect(int cond, const char *what, int a, int b) {
    if (!cond) {
        failures++;
        printf("FAIL: %s (%d, %d)\n", what, a, b);
    }
}

enum {
    B = PQ_KIND_BOOL,
    U = PQ_KIND_USMALL,
    W = PQ_KIND_U64,
    S = PQ_KIND_SIGNED,
    T = PQ_KIND_STRING,
    D = PQ_KIND_DOUBLE,
    NK = 6
};

/* The rule's table (docs/PARQUET_TABLE.md), row kind joined with column kind. */
static const int JOIN[NK][NK] = {
    /*        B  U  W  S  T  D */
    /* B */ {B, U, W, S, T, T},
    /* U */ {U, U, W, S, T, T},
    /* W */ {W, W, W, T, T, T},
    /* S */ {S, S, T, S, T, T},
    /* T */ {T, T, T, T, T, T},
    /* D */ {T, T, T, T, T, D},
};

int main(void) {
    static const struct {
        uint8_t type;
        int kind;
        pq_type col;
    } FIELDS[] = {
        {BB_TYPE_U8, U, PQ_INT64},     {BB_TYPE_U16, U, PQ_INT64},
        {BB_TYPE_U32, U, PQ_INT64},    {BB_TYPE_U64, W, PQ_UINT64},
        {BB_TYPE_I8, S, PQ_INT64},     {BB_TYPE_I16, S, PQ_INT64},
        {BB_TYPE_I32, S, PQ_INT64},    {BB_TYPE_I64, S, PQ_INT64},
        {BB_TYPE_BOOL, B, PQ_BOOLEAN}, {BB_TYPE_BYTES, T, PQ_STRING},
        {BB_TYPE_ENUM, T, PQ_STRING},  {BB_TYPE_INTERNED, T, PQ_STRING},
        {200, T, PQ_STRING},
    };
    for (size_t i = 0; i < sizeof FIELDS / sizeof FIELDS[0]; i++) {
        tw_kind k = tw_kind_of_field(FIELDS[i].type);
        expect((int)k == FIELDS[i].kind, "kind of field type", FIELDS[i].type, (int)k);
        expect(tw_type_of_kind(k) == FIELDS[i].col, "column type", FIELDS[i].type, (int)k);
    }
    expect(tw_type_of_kind(PQ_KIND_DOUBLE) == PQ_DOUBLE, "column type of DOUBLE", D, D);
    for (int a = 0; a < NK; a++)
        for (int b = 0; b < NK; b++) {
            tw_kind j = tw_kind_join((tw_kind)a, (tw_kind)b);
            expect((int)j == JOIN[a][b], "join table", a, b);
            expect(j == tw_kind_join((tw_kind)b, (tw_kind)a), "commutative", a, b);
            for (int c = 0; c < NK; c++)
                expect(tw_kind_join(j, (tw_kind)c) ==
                           tw_kind_join((tw_kind)a, tw_kind_join((tw_kind)b, (tw_kind)c)),
                       "associative", a * NK + b, c);
        }
    for (int a = 0; a < NK; a++)
        expect(tw_kind_join((tw_kind)a, (tw_kind)a) == (tw_kind)a, "idempotent", a, a);
    if (failures) return 1;
    puts("ok: widening rule");
    return 0;
}
