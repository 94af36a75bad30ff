/* mismatch.c — must NOT compile under -Werror: the format asks for an int, the argument is a
 * string (logfmt.cmake runs the compiler and expects it to fail at the format). */
/* SPDX-License-Identifier: MIT */
#include "backbeat/log.h"

void f(bb_recorder *r);
void f(bb_recorder *r) {
#ifdef BB_TEST_MISMATCH
    BB_LOG(r, BB_INFO, "count %d", "twelve");
#else
    BB_LOG(r, BB_INFO, "count %d", 12);
#endif
}
