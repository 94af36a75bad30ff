# Scaling benchmark (bench/scale.sh): gen_scale writes dumps whose shape stresses one path
# (wide schemas, many enum labels, big interned strings, many Meta sections, zero-filled
# shards); `make bench_scale` times each case at size n and 2n and prints the ratios.
# SPDX-License-Identifier: MIT
add_executable(gen_scale ${CMAKE_CURRENT_SOURCE_DIR}/scale/gen_scale.c)
target_link_libraries(gen_scale PRIVATE backbeat)
add_custom_target(bench_scale
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/scale.sh ${CMAKE_BINARY_DIR}
  DEPENDS gen_scale backbeat_cli
  USES_TERMINAL)
