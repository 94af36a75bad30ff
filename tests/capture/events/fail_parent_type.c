/* Compile-fail: a parent_span_id field that is not uint64_t. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
BB_EVENT(bad_parent_type, "fail", "ParentType", NULL, /* EXPECT-ERROR */
         BB_PARENT_SPAN_ID(int64_t, parent, NULL));
