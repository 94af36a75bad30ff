/* Compile-fail: a field macro without its description fails at the field's line, naming it. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(ev_no_desc, "fail", "NoDesc", NULL, BB_FIELD(uint32_t, len, "Length."),
         BB_FIELD(uint64_t, x)); /* EXPECT-ERROR */
