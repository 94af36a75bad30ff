/* compiled_out.c — compiled three times by tests/capture_recorder.cmake: with -DBACKBEAT_COMPILED_OUT
 * every recording macro in record_work() must vanish, so that its object code is byte-identical
 * to the twin's (-DCO_TWIN: the macros replaced by nothing) and references no backbeat symbol;
 * compiled normally, record_work() must reference the recorder (the check can fail). */
/* SPDX-License-Identifier: MIT */
#include <backbeat/backbeat.h>

BB_EVENT(co_event, "test::compiled_out", "Event", NULL, BB_KEY(uint64_t, key, NULL),
         BB_FIELD(uint32_t, len, NULL), BB_INTERN_F(name, NULL));
BB_SPAN_ENTER_EVENT(co_begin, "test::compiled_out", "Begin", NULL,
                    BB_SPAN_ID(uint64_t, span, NULL));
BB_SPAN_EXIT_EVENT(co_end, "test::compiled_out", "End", NULL, BB_SPAN_ID(uint64_t, span, NULL));

#ifdef CO_TWIN
/* The twin: the same function with the macros replaced by nothing at all. */
#undef BB_RECORD
#undef BB_RECORD_PTR
#undef BB_SPAN_SCOPED
#undef BB_SPAN_ENTER
#undef BB_SPAN_EXIT
#undef BB_INTERN
#define BB_RECORD(...) ((void)0)
#define BB_RECORD_PTR(...) ((void)0)
#define BB_SPAN_SCOPED(...) ((void)0)
#define BB_SPAN_ENTER(...) ((uint64_t)0)
#define BB_SPAN_EXIT(...) ((void)0)
#define BB_INTERN(...) ((uint32_t)0)
#endif

uint64_t record_work(bb_recorder *rec, uint64_t x);

uint64_t record_work(bb_recorder *rec, uint64_t x) {
    uint64_t acc = x * 3 + 1, id = 0;
    BB_RECORD(rec, co_event, .key = x, .len = (uint32_t)acc, .name = BB_INTERN(rec, "work"));
    {
        BB_SPAN_SCOPED(span, rec, co_begin, co_end, 0);
        acc ^= acc >> 7;
        id = BB_SPAN_ENTER(rec, co_begin, 0);
        BB_SPAN_EXIT(rec, co_end, id);
    }
    co_event e = {.key = acc};
    BB_RECORD_PTR(rec, co_event, &e);
    (void)rec;
    (void)e;
    (void)id;
    return acc;
}
