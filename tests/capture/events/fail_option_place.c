/* Compile-fail: an option given as a field of BB_EVENT instead of inside a field macro. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(ev_option_place, "fail", "OptionPlace", NULL, /* EXPECT-ERROR */
         BB_FIELD(uint32_t, ms, "Duration."), BB_UNIT("ms"));
