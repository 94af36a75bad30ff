# QA end-to-end checks of what a user runs (tests/qa/), each a regression test of a bug found
# by following the README and docs: the demo's views in DuckDB and its trace in the DevTools
# trace engine, CLI edge cases, BACKBEAT_SIGNAL before first use, the README's first example
# run literally. Node tests exit 77 (skipped) without `npm ci --prefix tests/js`.
# SPDX-License-Identifier: MIT
find_program(BB_QA_NODE node)
if(BB_QA_NODE)
  add_test(NAME qa_demo COMMAND ${BB_QA_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/qa/demo_check.mjs
           $<TARGET_FILE:demo> $<TARGET_FILE:backbeat_cli> ${CMAKE_CURRENT_BINARY_DIR}/qa_work/demo)
  set_tests_properties(qa_demo PROPERTIES SKIP_RETURN_CODE 77 LABELS "qa"
    ENVIRONMENT "BB_NODE_MODULES=${BB_NODE_MODULES}")
endif()
find_program(BB_QA_BASH bash)
add_test(NAME qa_cli_edges COMMAND ${BB_QA_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/qa/cli_edges.sh
         $<TARGET_FILE:backbeat_cli> ${CMAKE_CURRENT_BINARY_DIR}/qa_work/cli_edges)
set_tests_properties(qa_cli_edges PROPERTIES SKIP_RETURN_CODE 77 LABELS "qa"
  ENVIRONMENT "BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR}")
# BACKBEAT_SIGNAL before the global recorder's first use must not kill the program.
bb_test(qa_early_signal SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/qa/early_signal.c LABELS qa)
# The README's first example, C block and shell block, literally (paths pointed at this tree),
# and the guide's asynchronous-span block (docs/guide/instrument.md) against examples/async_span.c.
# no-sanitize: the README compiles with a plain `cc` against build/lib, which in a
# sanitizer build is an instrumented library that a plain link cannot resolve.
add_test(NAME qa_readme COMMAND ${BB_QA_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/qa/readme_check.sh
         ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/qa_work/readme)
set_tests_properties(qa_readme PROPERTIES LABELS "qa;no-sanitize")
# View sets whose last statement lacks its ';' still load from the views.sql sidecar.
add_executable(qa_views_gen ${CMAKE_CURRENT_SOURCE_DIR}/qa/views_gen.c)
target_link_libraries(qa_views_gen PRIVATE backbeat)
if(BB_QA_NODE)
  add_test(NAME qa_views_unterminated
           COMMAND ${BB_QA_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/qa/views_check.mjs
           $<TARGET_FILE:qa_views_gen> $<TARGET_FILE:backbeat_cli> ${CMAKE_CURRENT_BINARY_DIR}/qa_work/views)
  set_tests_properties(qa_views_unterminated PROPERTIES SKIP_RETURN_CODE 77 LABELS "qa"
    ENVIRONMENT "BB_NODE_MODULES=${BB_NODE_MODULES}")
endif()
# Every source file names its license (SPDX), as LICENSE and the package metadata do.
add_test(NAME qa_spdx COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/qa/spdx_check.sh ${CMAKE_SOURCE_DIR})
set_tests_properties(qa_spdx PROPERTIES SKIP_RETURN_CODE 77 LABELS "qa")
# The CLI's documentation against one list of its options (tests/qa/cli_options.txt): every
# option in --help, the manual page, the guide's CLI section (docs/guide/reference.md) and
# `backbeat skill`.
add_test(NAME qa_cli_drift COMMAND ${BB_QA_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/qa/cli_drift.sh
         ${CMAKE_SOURCE_DIR} $<TARGET_FILE:backbeat_cli> ${CMAKE_CURRENT_BINARY_DIR}/qa_work/cli_drift)
set_tests_properties(qa_cli_drift PROPERTIES SKIP_RETURN_CODE 77 LABELS "qa")
