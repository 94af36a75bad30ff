# Interning benchmark: a record with bb_intern of a repeated key against the same record with a
# constant id, one and two threads (issue 21): build-bench/bench/intern_hotpath, run by
# scripts/bench.sh (section `intern`, part of `make bench`).
# SPDX-License-Identifier: MIT
add_executable(intern_hotpath ${CMAKE_CURRENT_SOURCE_DIR}/intern_hotpath.c)
target_link_libraries(intern_hotpath PRIVATE backbeat Threads::Threads)
