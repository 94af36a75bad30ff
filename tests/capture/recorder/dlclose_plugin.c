/* dlclose_plugin.c — the instrumented plugin of recorder_dlclose (dlclose_host.c): its records
 * go through the inline commit path, so the restartable sequence's descriptor lives in this
 * object, which the host unloads while the recording threads go on. */
/* SPDX-License-Identifier: MIT */
#include <backbeat/backbeat.h>

BB_EVENT(plugin_ev, "test::dlclose", "PluginRecord", NULL, BB_FIELD(uint64_t, thread, NULL),
         BB_FIELD(uint64_t, seq, NULL), BB_FIELD(uint64_t, check, NULL));

/* Record `n` events of thread `thread` into `rec`. */
__attribute__((visibility("default"))) void bb_test_plugin_record(bb_recorder *rec, uint64_t thread,
                                                                  uint64_t n) {
    for (uint64_t i = 0; i < n; i++)
        BB_RECORD(rec, plugin_ev, .thread = thread, .seq = i,
                  .check = (thread + 1) * 0x9E3779B97F4A7C15ull ^ i);
}
