/* lib.c — the crash-where test's shared library: a NULL store three calls deep. */
/* SPDX-License-Identifier: MIT */
#include <stdint.h>

#include "cw.h"

volatile uintptr_t cw_lib_null;

CW_FN int lib_store(int x) {
    *(volatile int *)cw_lib_null = x;
    return x + 1;
}

CW_FN int lib_mid(int x) {
    int r = lib_store(x + 1);
    CW_KEEP();
    return r;
}

CW_FN int lib_entry(int x) {
    int r = lib_mid(x + 1);
    CW_KEEP();
    return r;
}
