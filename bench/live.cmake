# The writer's hot path while `backbeat tail` / `backbeat top` follow its ring file (issue 22):
# build-bench/bench/live_hotpath, run by scripts/bench.sh (section `live`, part of `make bench`).
# SPDX-License-Identifier: MIT
add_executable(live_hotpath ${CMAKE_CURRENT_SOURCE_DIR}/live_hotpath.c)
target_link_libraries(live_hotpath PRIVATE backbeat Threads::Threads)
target_compile_definitions(live_hotpath PRIVATE _GNU_SOURCE)
