/* Compile-fail: a span exit event with two span_id fields. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_SPAN_EXIT_EVENT(bad_span_twice, "fail", "TwoSpans", NULL, /* EXPECT-ERROR */
                   BB_SPAN_ID(uint64_t, a, NULL), BB_SPAN_ID(uint64_t, b, NULL));
