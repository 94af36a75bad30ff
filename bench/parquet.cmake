# Benchmark of the Parquet conversion (bench/convert_parquet.sh): `make bench_parquet` runs it
# on a generated 10-million-record dump against DuckDB's writer (one thread). Needs the Node
# readers (npm ci --prefix tests/js).
# SPDX-License-Identifier: MIT
add_custom_target(bench_parquet
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/convert_parquet.sh ${CMAKE_BINARY_DIR}
  DEPENDS pq_gendump pq_convert
  USES_TERMINAL)
