/* Compile-fail: a span_id field that is not uint64_t. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_SPAN_ENTER_EVENT(bad_span_type, "fail", "SpanType", NULL, /* EXPECT-ERROR */
                    BB_SPAN_ID(uint32_t, span, NULL), BB_FIELD(uint32_t, x, NULL));
