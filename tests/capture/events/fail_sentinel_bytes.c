/* Compile-fail: a sentinel on a bytes field. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(bad_sentinel_bytes, "fail", "SentinelBytes", NULL, /* EXPECT-ERROR */
         BB_FIELD(uint8_t[8], digest, NULL, BB_UNIT("x"), BB_SENTINEL(0)));
