# QA end-to-end checks of what a user runs (tests/qa/): the README's demo through DuckDB and
# the DevTools trace engine. Node tests exit 77 (skipped) without `npm ci --prefix tests/js`.
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
