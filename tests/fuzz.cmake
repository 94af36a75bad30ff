# Whole-CLI fuzzing (fuzz/): the regression replay of tests/fuzz_regress/ through every CLI
# harness (a plain test, gcc or clang, so the plain and ASan suites rerun past findings), and,
# with -DBB_FUZZ=ON (clang), the libFuzzer targets fuzz_cli_convert_parquet,
# fuzz_cli_convert_trace, fuzz_cli_merge, fuzz_cli_inspect and fuzz_dataset (`convert --dataset`
# into a dataset with fuzzed partitioning, part counter, journal and index files; run by
# fuzz/run.sh; `make test-fuzz`), and fuzz_dataset's plain smoke run (fuzz_dataset_smoke). The
# reader's own target (fuzz_reader) is in read.cmake.
# SPDX-License-Identifier: MIT
option(BB_FUZZ "Build the libFuzzer targets (clang only)" OFF)
set(BB_FUZZ_DIR ${CMAKE_SOURCE_DIR}/fuzz)

add_executable(fuzz_cli_regress ${BB_FUZZ_DIR}/regress_main.c ${BB_FUZZ_DIR}/cli_harness.c)
target_compile_definitions(fuzz_cli_regress PRIVATE _GNU_SOURCE)
target_link_libraries(fuzz_cli_regress PRIVATE bb_cli_parts)
add_test(NAME fuzz_cli_regress
         COMMAND fuzz_cli_regress ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_regress)
set_tests_properties(fuzz_cli_regress PROPERTIES LABELS "cli;fuzz")

add_executable(fuzz_dataset_smoke ${BB_FUZZ_DIR}/dataset_smoke_main.c ${BB_FUZZ_DIR}/fuzz_dataset.c)
target_compile_definitions(fuzz_dataset_smoke PRIVATE _GNU_SOURCE)
target_link_libraries(fuzz_dataset_smoke PRIVATE bb_cli_parts)
add_test(NAME fuzz_dataset_smoke
         COMMAND fuzz_dataset_smoke ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_regress_dataset)
set_tests_properties(fuzz_dataset_smoke PROPERTIES LABELS "cli;fuzz" SKIP_RETURN_CODE 77)

if(BB_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "BB_FUZZ=ON needs clang (CC=clang)")
  endif()
  # Coverage instrumentation for everything the CLI is made of (the fuzzer steers by it).
  foreach(lib bb_common bb_format bb_read bb_parquet bb_emit bb_convert bb_merge bb_cli_parts)
    target_compile_options(${lib} PRIVATE -fsanitize=fuzzer-no-link)
  endforeach()
  add_executable(fuzz_dataset ${BB_FUZZ_DIR}/fuzz_dataset.c)
  target_compile_definitions(fuzz_dataset PRIVATE _GNU_SOURCE)
  target_compile_options(fuzz_dataset PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_dataset PRIVATE -fsanitize=fuzzer)
  target_link_libraries(fuzz_dataset PRIVATE bb_cli_parts)
  foreach(t convert_parquet convert_trace merge inspect)
    add_executable(fuzz_cli_${t} ${BB_FUZZ_DIR}/fuzz_cli_${t}.c ${BB_FUZZ_DIR}/cli_harness.c)
    target_compile_definitions(fuzz_cli_${t} PRIVATE _GNU_SOURCE)
    target_compile_options(fuzz_cli_${t} PRIVATE -fsanitize=fuzzer)
    target_link_options(fuzz_cli_${t} PRIVATE -fsanitize=fuzzer)
    target_link_libraries(fuzz_cli_${t} PRIVATE bb_cli_parts)
  endforeach()
endif()
