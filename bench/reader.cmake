# Reader + model benchmark: build/bench/bench_reader_model [millions] [shards] [unsorted_permille]
# SPDX-License-Identifier: MIT
add_executable(bench_reader_model ${CMAKE_CURRENT_SOURCE_DIR}/reader/model_bench.c)
target_link_libraries(bench_reader_model PRIVATE backbeat_static backbeat_read_static)
