# Tests of the conversion stage (src/convert, convert/convert.h) through its own API, without
# the CLI: convert_api converts the golden dumps to Parquet and a trace and checks the bytes
# equal `backbeat convert`'s, and that a failure is a bb_error with nothing printed; the record
# filters (convert/filter.h) against a count by hand; cv_convert with filters and
# cv_dataset_append against `backbeat convert` given the same options.
# SPDX-License-Identifier: MIT
add_executable(convert_api ${CMAKE_CURRENT_SOURCE_DIR}/convert/convert_api_test.c)
target_compile_definitions(convert_api PRIVATE _GNU_SOURCE)
target_link_libraries(convert_api PRIVATE bb_convert)
add_test(NAME convert_api COMMAND convert_api $<TARGET_FILE:backbeat_cli>
         ${CMAKE_CURRENT_BINARY_DIR}/convert_api_work)
set_tests_properties(convert_api PROPERTIES SKIP_RETURN_CODE 77 LABELS "cli"
  ENVIRONMENT "BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR}")

# The trace's field plan and the in-place number writers against the generic paths they replace.
bb_test(convert_trace_fields INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/trace/trace_fields_test.c
        LIBS bb_convert)

# The worker pool of convert --threads: tasks once each, idle work taken by idle workers only.
bb_test(convert_workpool INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/emit/workpool_test.c
        LIBS bb_convert LABELS concurrent)
