# Tests of event definition (include/backbeat/event.h), event ids and the registry.
set(BB_EV ${CMAKE_CURRENT_SOURCE_DIR}/events)
bb_test(events_ids SOURCES ${BB_EV}/ids.c)
bb_test(events_fixtures SOURCES ${BB_EV}/fixtures.c)
