/* cw.h — what the crash-where test program, its shared library and its plugin share: the
 * attributes that keep each test function a frame of its own at -O2 (no inlining, no cloning,
 * no tail call). */
/* SPDX-License-Identifier: MIT */
#ifndef BB_TEST_CW_H
#define BB_TEST_CW_H

#if defined(__clang__)
#define CW_FN __attribute__((noinline, used))
#else
#define CW_FN __attribute__((noinline, noclone, used))
#endif
/* After a call: keeps it a call, not a jump (no sibling call), so the caller stays on the stack. */
#define CW_KEEP() __asm__ volatile("" ::: "memory")

/* libcw_lib.so: lib_entry -> lib_mid -> lib_store (a NULL store). */
int lib_entry(int x);

#endif
