/* Compile-fail: an option before the description fails at the field's line. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(ev_option_first, "fail", "OptionFirst", NULL,
         BB_FIELD(uint32_t, ms, BB_UNIT("ms"), "Duration.")); /* EXPECT-ERROR */
