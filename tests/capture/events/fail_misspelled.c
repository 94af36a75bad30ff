/* Compile-fail: a misspelled field macro inside BB_EVENT fails at the BB_EVENT line, quoting it. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(ev_misspelled, "fail", "Misspelled", NULL, /* EXPECT-ERROR */
         BB_FIELD(uint32_t, len, "Length."), BB_FEILD(uint64_t, x, "d"));
