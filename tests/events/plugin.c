/* plugin.c — a dlopen'ed plugin defining events and a view set (loaded by events_objects).
 * Its fixture::Unused duplicates no id in the executable. */
#include "backbeat/event.h"

BB_EVENT(plugin_a, "plugin", "A", NULL, BB_KEY(uint64_t, k, NULL));
BB_SPAN_ENTER_EVENT(plugin_span, "plugin", "Span", NULL, BB_SPAN_ID(uint64_t, span, NULL));
BB_EVENT(plugin_marker, "plugin", "Marker", NULL);
BB_VIEWS(plugin_views, "CREATE VIEW plugin AS SELECT 2;");

/* Looked up with dlsym (a data symbol: ISO C has no object-to-function pointer cast). */
extern const bb_event_desc *const plugin_a_desc;
const bb_event_desc *const plugin_a_desc = BB_DESC(plugin_a);
