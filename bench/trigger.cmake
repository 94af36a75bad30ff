# The costs of condition triggers (issue 39): build-bench/bench/trigger_hotpath, run by
# scripts/bench.sh (section `trigger`, part of `make bench`).
# SPDX-License-Identifier: MIT
add_executable(trigger_hotpath ${CMAKE_CURRENT_SOURCE_DIR}/trigger_hotpath.c)
target_link_libraries(trigger_hotpath PRIVATE backbeat Threads::Threads)
target_compile_definitions(trigger_hotpath PRIVATE _GNU_SOURCE)
