/* Compile-fail: implicit padding between two fields must fail, naming the event and field. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(bad_padding, "fail", "Padding", NULL, /* EXPECT-ERROR */
         BB_FIELD(uint8_t, a, NULL), BB_FIELD(uint32_t, b, NULL));
