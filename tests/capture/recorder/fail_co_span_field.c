/* fail_co_span_field.c — must NOT compile: with BACKBEAT_COMPILED_OUT the span macros still
 * type-check their field initialisers, so a misspelled field is caught in every build. */
/* SPDX-License-Identifier: MIT */
#include <backbeat/backbeat.h>

BB_SPAN_ENTER_EVENT(co_begin, "test::co", "Begin", NULL, BB_SPAN_ID(uint64_t, span, NULL),
                    BB_FIELD(uint64_t, key, NULL));
BB_SPAN_EXIT_EVENT(co_end, "test::co", "End", NULL, BB_SPAN_ID(uint64_t, span, NULL));

uint64_t co_fail(bb_recorder *rec, uint64_t k);
uint64_t co_fail(bb_recorder *rec, uint64_t k) {
    uint64_t id = BB_SPAN_ENTER(rec, co_begin, 0, .no_such_field = k);
    BB_SPAN_EXIT(rec, co_end, id);
    return id;
}
