# Tests of the global recorder (issue 5): unit tests of its parts (configuration, naming,
# throttle/limits, dumper) and end-to-end tests with real child processes (tests/global/).
function(bb_global_unit name)
  bb_test(${name} ${ARGN})
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src/lib)
  # test paths are built with snprintf into fixed buffers on purpose
  target_compile_options(${name} PRIVATE $<$<C_COMPILER_ID:GNU>:-Wno-format-truncation>)
endfunction()

bb_global_unit(global_config SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/global/config_test.c)
bb_global_unit(global_name SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/global/name_test.c)
bb_global_unit(global_policy SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/global/policy_test.c)
bb_global_unit(global_dumper SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/global/dumper_test.c
               LABELS concurrent)
