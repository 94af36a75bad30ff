/* Compile-fail: BB_EVENT with too few arguments. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(ev_event_few, "fail"); /* EXPECT-ERROR */
