# Tests of file-backed rings and `backbeat recover` (issue 12, docs/RING_FILE.md): end-to-end
# scenarios that SIGKILL a real child (tests/capture/ring/), unit tests of damaged ring files,
# and the ring file fuzz target's smoke run.
# SPDX-License-Identifier: MIT
set(BB_RING_DIR ${CMAKE_CURRENT_SOURCE_DIR}/capture/ring)
add_library(bb_ring_plugin MODULE ${BB_RING_DIR}/ring_plugin.c)
target_link_libraries(bb_ring_plugin PRIVATE backbeat)
add_executable(ring_child ${BB_RING_DIR}/ring_child.c)
target_compile_definitions(ring_child PRIVATE _GNU_SOURCE)
target_link_libraries(ring_child PRIVATE backbeat Threads::Threads ${CMAKE_DL_LIBS})

if(TARGET backbeat_cli)
  bb_test(ring_e2e SOURCES ${BB_RING_DIR}/ring_e2e.c ${BB_RING_DIR}/ring_proc.c)
  target_compile_definitions(ring_e2e PRIVATE BB_CLI="$<TARGET_FILE:backbeat_cli>"
    BB_RING_CHILD="$<TARGET_FILE:ring_child>" BB_RING_PLUGIN="$<TARGET_FILE:bb_ring_plugin>")
  target_include_directories(ring_e2e PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_compile_options(ring_e2e PRIVATE $<$<C_COMPILER_ID:GNU>:-Wno-format-truncation>)
  add_dependencies(ring_e2e backbeat_cli ring_child bb_ring_plugin)
  set_tests_properties(ring_e2e PROPERTIES DISABLED TRUE) # the scenarios below run it
  foreach(sc heavy shared plugin churn live exit keep fallback oom)
    add_test(NAME ring_e2e_${sc} COMMAND ring_e2e ${sc})
    set(labels "")
    if(sc MATCHES "heavy|shared|churn")
      set(labels concurrent)
    endif()
    set_tests_properties(ring_e2e_${sc} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180
      LABELS "${labels}")
  endforeach()
endif()
