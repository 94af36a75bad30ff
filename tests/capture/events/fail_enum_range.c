/* Compile-fail: an enum value that does not fit the repr type (300 in a uint8_t). */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_ENUM(bad_range, uint8_t, (BAD_OK, 1, "ok"), (BAD_BIG, 300, "big")); /* EXPECT-ERROR */
