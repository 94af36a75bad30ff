/* plugin.c — a dlopen'ed plugin with log call sites of its own (plugin_test.c loads it), one
 * with a BB_E argument whose labels live in the plugin. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
#include "backbeat/log.h"

void plugin_log(bb_recorder *rec, int n);
void plugin_log(bb_recorder *rec, int n) {
    BB_LOG(rec, BB_WARN, "from the plugin: %d (%s)", n, "plugin");
}

BB_ENUM(pl_mode, uint8_t, (PL_SLOW, 0, "slow"), (PL_FAST, 1, "fast"));
void plugin_log_mode(bb_recorder *rec, int n);
void plugin_log_mode(bb_recorder *rec, int n) {
    BB_LOG(rec, BB_INFO, "plugin mode %d", BB_E(pl_mode, (uint8_t)(n & 1)));
}
