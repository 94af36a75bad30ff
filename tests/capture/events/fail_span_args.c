/* Compile-fail: BB_SPAN_ID takes no options (too many arguments). */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_SPAN_ENTER_EVENT(ev_span_args, "fail", "SpanArgs", NULL,
                    BB_SPAN_ID(uint64_t, span, "The span.", BB_UNIT("id"))); /* EXPECT-ERROR */
