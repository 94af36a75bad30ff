# Global recorder benchmark: BB_GRECORD against BB_RECORD into a local recorder (issue 5):
# build-bench/bench/global_hotpath, run by scripts/bench.sh (section `global`, part of `make bench`).
# SPDX-License-Identifier: MIT
add_executable(global_hotpath ${CMAKE_CURRENT_SOURCE_DIR}/global_hotpath.c)
target_link_libraries(global_hotpath PRIVATE backbeat Threads::Threads)
