# Convert at scale (bench/convert_threads.sh): `make bench_threads` converts 10 M and 100 M
# record dumps to Parquet and to a trace with --threads 1 and every CPU, against DuckDB's writer.
# SPDX-License-Identifier: MIT
add_custom_target(bench_threads
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/convert_threads.sh ${CMAKE_BINARY_DIR}
  DEPENDS pq_gendump backbeat_cli
  USES_TERMINAL)
