/* shlib_events.c — events defined in a shared library (linked by events_objects). It also
 * defines fixture::Tick, which the executable defines too: the registry holds both
 * descriptors but snapshots list the id once. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"

BB_EVENT(shlib_hello, "shlib", "Hello", "Defined in a shared library.",
         BB_FIELD(uint32_t, n, NULL));
BB_EVENT(fixture_tick, "fixture", "Tick", "A heartbeat marker.");
BB_VIEWS(shlib_views, "CREATE VIEW shlib AS SELECT 1;");

bb_event_desc *shlib_hello_desc(void);
bb_event_desc *shlib_hello_desc(void) { return BB_DESC(shlib_hello); }
