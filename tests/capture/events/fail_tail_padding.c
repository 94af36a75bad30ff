/* Compile-fail: implicit padding at the end of the struct must fail, naming the event. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(bad_tail, "fail", "Tail", NULL, /* EXPECT-ERROR */
         BB_FIELD(uint64_t, a, NULL), BB_FIELD(uint8_t, b, NULL));
