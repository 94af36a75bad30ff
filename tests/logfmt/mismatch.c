/* mismatch.c — must NOT compile under -Werror: the format asks for an int, the argument is a
 * string (logfmt.cmake runs the compiler and expects it to fail at the format); with
 * BB_TEST_BAD_LEVEL, a level out of BB_TRACE .. BB_FATAL must fail to compile. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/log.h"

void f(bb_recorder *r);
void f(bb_recorder *r) {
#ifdef BB_TEST_MISMATCH
    BB_LOG(r, BB_INFO, "count %d", "twelve");
#elif defined BB_TEST_BAD_LEVEL
    BB_LOG(r, BB_LOG_OFF, "count %d", 12);
#else
    BB_LOG(r, BB_INFO, "count %d", 12);
#endif
}
