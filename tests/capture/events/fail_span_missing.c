/* Compile-fail: a span enter event without a span_id field. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_SPAN_ENTER_EVENT(bad_span_missing, "fail", "NoSpan", NULL, /* EXPECT-ERROR */
                    BB_PARENT_SPAN_ID(uint64_t, parent, NULL));
