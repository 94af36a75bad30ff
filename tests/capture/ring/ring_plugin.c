/* ring_plugin.c — a dlopen'ed plugin for the ring file tests (ring_child.c): it registers an
 * event and a view set only once loaded, after the ring file exists, and records events whose
 * interned strings are made at run time, so a recovered dump shows that both reached the file. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "backbeat/backbeat.h"

BB_EVENT(ring_plugin_ev, "ring_plugin", "Late", "registered by a plugin after start",
         BB_FIELD(uint64_t, n, "the n-th call"), BB_INTERN_DYN_F(label, "made at run time"),
         BB_FIELD(uint32_t, _pad, NULL));
BB_VIEWS(ring_plugin_views, "CREATE VIEW ring_plugin_late AS SELECT 42 AS answer;");

/* Record `count` events numbered from `first`, each with the string "late-<n mod 4096>" (a
 * bounded set: the intern table holds 16384 strings by default). */
static void plugin_run(uint64_t first, uint64_t count) {
    for (uint64_t n = first; n < first + count; n++) {
        char s[32];
        snprintf(s, sizeof s, "late-%llu", (unsigned long long)(n % 4096));
        BB_GRECORD(ring_plugin_ev, .n = n, .label = bb_intern_str(bb_global(), s));
    }
}

/* Found with dlsym (a data symbol: ISO C has no object-to-function pointer cast). */
struct ring_plugin_api {
    void (*run)(uint64_t first, uint64_t count);
};
extern const struct ring_plugin_api ring_plugin_api;
const struct ring_plugin_api ring_plugin_api = {plugin_run};
