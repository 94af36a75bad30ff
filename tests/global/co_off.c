/* co_off.c — compiled with -DBACKBEAT_COMPILED_OUT (tests/global.cmake): BB_GRECORD here must
 * compile (arguments type-checked) and do nothing at all, not even build the global recorder. */
/* SPDX-License-Identifier: MIT */
#include <backbeat/backbeat.h>

BB_EVENT(co_ev, "bbtest", "CompiledOut", "Never recorded.", BB_KEY(uint64_t, key, "A key."));

static int evaluated;

uint64_t co_side_effect(void);
uint64_t co_side_effect(void) {
    evaluated++;
    return 1;
}

/* Record n times through the global recorder; returns how often an argument was evaluated. */
int co_record(int n);
int co_record(int n) {
    for (int i = 0; i < n; i++) BB_GRECORD(co_ev, .key = co_side_effect());
    return evaluated;
}
