/* plugin.c — the crash-where test's dlopened plugin: a NULL store three calls deep. */
/* SPDX-License-Identifier: MIT */
#include <stdint.h>

#include "cw.h"

volatile uintptr_t cw_plugin_null;

CW_FN int plugin_store(int x) {
    *(volatile int *)cw_plugin_null = x;
    return x + 1;
}

CW_FN int plugin_mid(int x) {
    int r = plugin_store(x + 1);
    CW_KEEP();
    return r;
}

CW_FN int plugin_entry(int x) {
    int r = plugin_mid(x + 1);
    CW_KEEP();
    return r;
}
