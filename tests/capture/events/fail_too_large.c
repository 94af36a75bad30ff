/* Compile-fail: a record larger than BB_MAX_RECORD_SIZE (65519 bytes). */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(bad_too_large, "fail", "TooLarge", NULL, /* EXPECT-ERROR */
         BB_FIELD(uint8_t[65520], blob, NULL));
