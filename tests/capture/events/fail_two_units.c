/* Compile-fail: a field with two units. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(bad_two_units, "fail", "TwoUnits", NULL, /* EXPECT-ERROR */
         BB_FIELD(uint32_t, len, NULL, BB_UNIT("bytes"), BB_SENTINEL(0), BB_UNIT("B")));
