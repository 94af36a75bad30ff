/* foreign_plugin.c — a plugin built as if against other backbeat headers (compiled with another
 * BB__ABI_LAYOUT by tests/capture_abi.cmake): its events and view set must be refused at
 * registration, and its inline records and function-form records must never reach the host's
 * recorder (loaded by abi_refuse.c). */
/* SPDX-License-Identifier: MIT */
#include "backbeat/backbeat.h"

BB_EVENT(foreign_ev, "foreign", "Event", NULL, BB_KEY(uint64_t, k, NULL));
BB_VIEWS(foreign_views, "CREATE VIEW foreign_view AS SELECT 1;");

/* Record `n` events inline and once through the function form; returns the function form's
 * status. */
static int foreign_record(bb_recorder *rec, int n) {
    for (int i = 0; i < n; i++) BB_RECORD(rec, foreign_ev, .k = (uint64_t)i);
    foreign_ev ev = {.k = 7};
    return (int)bb_record_event(rec, BB_DESC(foreign_ev), &ev, sizeof ev);
}

/* Found with dlsym (a data symbol: ISO C has no object-to-function pointer cast). */
struct foreign_api {
    int (*record)(bb_recorder *rec, int n);
};
extern const struct foreign_api foreign_api;
const struct foreign_api foreign_api = {foreign_record};
