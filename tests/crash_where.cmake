# Where it crashed (issue 40): a program built -O2 -fomit-frame-pointer crashes in each mode
# (tests/global/crash/prog.c) with BACKBEAT_DUMP_ON_CRASH=1; tests/global/crash/crash_where.sh
# checks the dump's signal and its symbolized frames (inspect --json), a stripped build's
# module+offsets against addr2line on the unstripped copy, and --symbols with a separate debug
# file. One ctest per mode.
# SPDX-License-Identifier: MIT
set(CW_DIR ${CMAKE_CURRENT_SOURCE_DIR}/global/crash)
set(CW_FLAGS -O2 -fomit-frame-pointer -g)
add_library(cw_lib SHARED ${CW_DIR}/lib.c)
target_compile_options(cw_lib PRIVATE ${CW_FLAGS})
set_target_properties(cw_lib PROPERTIES OUTPUT_NAME cw_lib LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/cw)
add_library(cw_plugin MODULE ${CW_DIR}/plugin.c)
target_compile_options(cw_plugin PRIVATE ${CW_FLAGS})
set_target_properties(cw_plugin PROPERTIES PREFIX "" OUTPUT_NAME cw_plugin
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/cw)
add_executable(cw_prog ${CW_DIR}/prog.c)
target_compile_options(cw_prog PRIVATE ${CW_FLAGS})
target_compile_definitions(cw_prog PRIVATE _GNU_SOURCE)
target_link_libraries(cw_prog PRIVATE backbeat cw_lib Threads::Threads ${CMAKE_DL_LIBS})
set_target_properties(cw_prog PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/cw)

set(CW_MODES main thread lib plugin assert fpe bus overflow handler double stripped debugfile outputs)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  list(APPEND CW_MODES badstack) # the stack walk faulting: x86-64 assembly
endif()
foreach(mode ${CW_MODES})
  add_test(NAME crash_where_${mode}
           COMMAND sh ${CW_DIR}/crash_where.sh ${mode} $<TARGET_FILE:cw_prog>
                   $<TARGET_FILE:cw_plugin> $<TARGET_FILE:backbeat_cli>
                   ${CMAKE_CURRENT_BINARY_DIR}/cw/work-${mode})
  set_tests_properties(crash_where_${mode} PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77)
endforeach()
