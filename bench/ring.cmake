# File-backed rings vs anonymous rings on the hot path (issue 12): build-bench/bench/ring_hotpath,
# run by scripts/bench.sh (section `ring`, part of `make bench`).
# SPDX-License-Identifier: MIT
add_executable(ring_hotpath ${CMAKE_CURRENT_SOURCE_DIR}/ring_hotpath.c)
target_link_libraries(ring_hotpath PRIVATE backbeat Threads::Threads)
target_compile_definitions(ring_hotpath PRIVATE _GNU_SOURCE)
