/* plugin.c — a dlopen'ed plugin defining events and a view set (loaded by events_objects).
 * It records through the executable's recorder (one registry and one library per process). */
/* SPDX-License-Identifier: MIT */
#include "backbeat/backbeat.h"

BB_EVENT(plugin_a, "plugin", "A", NULL, BB_KEY(uint64_t, k, NULL));
BB_SPAN_ENTER_EVENT(plugin_span, "plugin", "Span", NULL, BB_SPAN_ID(uint64_t, span, NULL));
BB_EVENT(plugin_marker, "plugin", "Marker", NULL);
BB_VIEWS(plugin_views, "CREATE VIEW plugin AS SELECT 2;");

/* Record one of each event into `rec`, at manual-clock times ts, ts+1, ts+2. */
static void plugin_record(bb_recorder *rec, uint64_t ts) {
    bb_recorder_clock_set(rec, ts);
    BB_RECORD(rec, plugin_a, .k = 0xABCDEF);
    bb_recorder_clock_set(rec, ts + 1);
    BB_RECORD(rec, plugin_span, .span = 77);
    bb_recorder_clock_set(rec, ts + 2);
    BB_RECORD(rec, plugin_marker);
}

/* What the executable finds with dlsym: a data symbol (ISO C has no object-to-function pointer
 * cast), holding a descriptor and the recording function. */
struct plugin_api {
    const bb_event_desc *a;
    void (*record)(bb_recorder *rec, uint64_t ts);
};
extern const struct plugin_api plugin_api;
const struct plugin_api plugin_api = {BB_DESC(plugin_a), plugin_record};
