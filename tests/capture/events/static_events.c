/* static_events.c — an event defined in a static library (linked by events_objects). The
 * executable calls static_lib_desc(), which pulls this object file into the link. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"

BB_EVENT(static_lib_event, "staticlib", "Event", NULL, BB_FIELD(uint64_t, v, NULL));

bb_event_desc *static_lib_desc(void);
bb_event_desc *static_lib_desc(void) { return BB_DESC(static_lib_event); }
