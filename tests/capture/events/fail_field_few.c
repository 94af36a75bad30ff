/* Compile-fail: a field macro with only a type fails at the field's line. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(ev_field_few, "fail", "FieldFew", NULL, BB_KEY(uint32_t)); /* EXPECT-ERROR */
