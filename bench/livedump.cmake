# Live dumps of a busy process (issue 37): per-shard completeness of bb_global_dump() in process
# and of `backbeat recover --force` / `watch` from outside: build-bench/bench/live_dump, run by
# scripts/bench.sh (section `livedump`).
# SPDX-License-Identifier: MIT
add_executable(live_dump ${CMAKE_CURRENT_SOURCE_DIR}/live_dump.c)
target_link_libraries(live_dump PRIVATE backbeat backbeat_read Threads::Threads)
target_compile_definitions(live_dump PRIVATE _GNU_SOURCE)
