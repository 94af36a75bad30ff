/* Compile-fail: a sentinel on a bool field. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(bad_sentinel_bool, "fail", "SentinelBool", NULL, /* EXPECT-ERROR */
         BB_FIELD(bool, flag, NULL, BB_SENTINEL(1)));
