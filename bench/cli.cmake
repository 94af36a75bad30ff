# CLI benchmark (trace conversion throughput, merge, inspect): `make bench_cli`, or the `cli`
# section of scripts/bench.sh. Uses the tests' dump generator (tests/cli/cli_gen.c).
# SPDX-License-Identifier: MIT
if(TARGET cli_gen AND TARGET backbeat_cli)
  add_custom_target(bench_cli
    COMMAND bash ${CMAKE_SOURCE_DIR}/scripts/bench.sh ${CMAKE_BINARY_DIR} cli
    DEPENDS backbeat_cli cli_gen USES_TERMINAL)
endif()
