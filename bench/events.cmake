# Benchmark of the event-definition layer (ids, registry).
# SPDX-License-Identifier: MIT
add_executable(bench_events ${CMAKE_CURRENT_SOURCE_DIR}/events/bench_events.c)
target_link_libraries(bench_events PRIVATE backbeat)
