/* Compile-fail: an extra argument after the description that is not an option. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(ev_extra_arg, "fail", "ExtraArg", NULL,
         BB_FIELD(uint64_t, x, "An x.", "extra")); /* EXPECT-ERROR */
