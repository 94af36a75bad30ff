# Recorder hot-path benchmark (issue 3): build-bench/bench/hotpath, run by scripts/bench.sh
# (section `hotpath`, part of `make bench`).
# SPDX-License-Identifier: MIT
add_executable(hotpath ${CMAKE_CURRENT_SOURCE_DIR}/hotpath.c)
target_link_libraries(hotpath PRIVATE backbeat Threads::Threads)
target_compile_definitions(hotpath PRIVATE _GNU_SOURCE)
# Dump cost and its effect on writers (issue 13): build-bench/bench/dump_cost (section `dump`).
add_executable(dump_cost ${CMAKE_CURRENT_SOURCE_DIR}/dump_cost.c)
target_link_libraries(dump_cost PRIVATE backbeat backbeat_read Threads::Threads)
target_compile_definitions(dump_cost PRIVATE _GNU_SOURCE)
# Footprint (issue 25): RSS of a program before its first record, with and without the library.
add_executable(footprint ${CMAKE_CURRENT_SOURCE_DIR}/footprint.c)
target_link_libraries(footprint PRIVATE backbeat)
add_executable(footprint_bare ${CMAKE_CURRENT_SOURCE_DIR}/footprint.c)
target_compile_definitions(footprint_bare PRIVATE FP_BARE)
