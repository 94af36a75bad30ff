# The follow table (issue 37): one paced writer against the follow API, `watch`, `top` and
# `tail --format jsonl`: build-bench/bench/follow_rate, run by scripts/bench.sh (section `follow`).
# SPDX-License-Identifier: MIT
add_executable(follow_rate ${CMAKE_CURRENT_SOURCE_DIR}/follow_rate.c)
target_link_libraries(follow_rate PRIVATE backbeat backbeat_read)
target_compile_definitions(follow_rate PRIVATE _GNU_SOURCE)
# The follow API's CPU per record apart from the scheduler (thread CPU time; bench/follow_cost.c).
add_executable(follow_cost ${CMAKE_CURRENT_SOURCE_DIR}/follow_cost.c)
target_link_libraries(follow_cost PRIVATE backbeat backbeat_read)
