/* plugin.c — a dlopen'ed plugin with log call sites of its own (plugin_test.c loads it). */
/* SPDX-License-Identifier: MIT */
#include "backbeat/log.h"

void plugin_log(bb_recorder *rec, int n);
void plugin_log(bb_recorder *rec, int n) {
    BB_LOG(rec, BB_WARN, "from the plugin: %d (%s)", n, "plugin");
}
