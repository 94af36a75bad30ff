# `backbeat top` over running and dead processes (issue 22): exact counts per event, process and
# shard against processes writing known numbers of records, a --scan directory with a FIFO and
# a garbage file, a dead process's file, usage errors, SIGINT / SIGTERM.
# SPDX-License-Identifier: MIT
if(TARGET backbeat_cli)
  add_executable(top_test ${CMAKE_CURRENT_SOURCE_DIR}/cli/top_test.c)
  target_link_libraries(top_test PRIVATE backbeat Threads::Threads)
  target_compile_definitions(top_test PRIVATE _GNU_SOURCE BB_CLI="$<TARGET_FILE:backbeat_cli>")
  add_dependencies(top_test backbeat_cli)
  foreach(sc rates dead args signal)
    add_test(NAME cli_top_${sc} COMMAND top_test ${sc})
    set_tests_properties(cli_top_${sc} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60 LABELS concurrent)
  endforeach()
endif()
