/* Compile-fail: a field type the format cannot carry (float). */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(bad_type, "fail", "Type", NULL, /* EXPECT-ERROR */
         BB_FIELD(float, ratio, NULL));
