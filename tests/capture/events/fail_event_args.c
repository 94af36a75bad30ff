/* Compile-fail: BB_EVENT without its description (the first field takes its place). */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(ev_event_args, "fail", "EventArgs", /* EXPECT-ERROR */
         BB_FIELD(uint32_t, len, "Length."));
