# Tests of the global recorder (issue 5): unit tests of its parts (configuration, naming,
# throttle/limits, dumper) and end-to-end tests with real child processes (tests/global/).
# SPDX-License-Identifier: MIT
function(bb_global_unit name)
  bb_test(${name} INTERNAL ${ARGN})
  # test paths are built with snprintf into fixed buffers on purpose
  target_compile_options(${name} PRIVATE $<$<C_COMPILER_ID:GNU>:-Wno-format-truncation>)
endfunction()

bb_global_unit(global_config SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/global/config_test.c)
bb_global_unit(global_name SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/global/name_test.c)
bb_global_unit(global_policy SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/global/policy_test.c)
bb_global_unit(global_dumper SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/global/dumper_test.c
               LABELS concurrent)

# End-to-end: child.c is the program under test (configured only through the environment),
# e2e_test.c drives it, one ctest per scenario. Crash scenarios set ASAN_OPTIONS in the child
# (handle_segv=0 etc.) so our handlers, not the sanitizer's, run under the ASan pass too.
add_executable(global_child ${CMAKE_CURRENT_SOURCE_DIR}/global/child.c)
target_compile_definitions(global_child PRIVATE _GNU_SOURCE)
target_link_libraries(global_child PRIVATE backbeat Threads::Threads)

add_executable(global_e2e ${CMAKE_CURRENT_SOURCE_DIR}/global/e2e_test.c)
target_compile_definitions(global_e2e PRIVATE _GNU_SOURCE BB_CHILD="$<TARGET_FILE:global_child>")
if(TARGET backbeat_cli)
  target_compile_definitions(global_e2e PRIVATE BB_CLI="$<TARGET_FILE:backbeat_cli>")
  add_dependencies(global_e2e backbeat_cli)
else()
  target_compile_definitions(global_e2e PRIVATE BB_CLI="")
endif()
target_include_directories(global_e2e PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_compile_options(global_e2e PRIVATE $<$<C_COMPILER_ID:GNU>:-Wno-format-truncation>)
target_link_libraries(global_e2e PRIVATE backbeat_static backbeat_read_static bb_test_support Threads::Threads)
add_dependencies(global_e2e global_child)

foreach(sc traced segv abort overflow chain fpe ill bus thread storm trigexit sigchain keep-oldest keep-newest unwritable badenv
           naming fork fsize early toverflow threads)
  add_test(NAME global_e2e_${sc} COMMAND global_e2e ${sc})
  set(labels "")
  if(sc STREQUAL "storm" OR sc STREQUAL "traced")
    set(labels concurrent)
  endif()
  set_tests_properties(global_e2e_${sc} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
    ENVIRONMENT "BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR}" LABELS "${labels}")
endforeach()

bb_test(global_lazy SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/global/lazy_test.c LABELS concurrent)

bb_test(global_compiled_out SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/global/co_main.c
        ${CMAKE_CURRENT_SOURCE_DIR}/global/co_off.c)
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/global/co_off.c PROPERTIES
                            COMPILE_DEFINITIONS BACKBEAT_COMPILED_OUT)

bb_test(global_cxx SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/global/cxx_test.cpp)
# The docs' BACKBEAT_* tables (docs/ENVIRONMENT.md, and the user guide's production chapter,
# docs/guide/production.md) are the code's table, row for row (`global_config_doc --print`
# prints it to paste).
add_executable(global_config_doc ${CMAKE_CURRENT_SOURCE_DIR}/global/config_doc.c)
target_compile_definitions(global_config_doc PRIVATE _GNU_SOURCE)
target_include_directories(global_config_doc PRIVATE ${CMAKE_SOURCE_DIR}/src)
target_link_libraries(global_config_doc PRIVATE backbeat_static Threads::Threads)
add_test(NAME global_config_doc COMMAND global_config_doc ${CMAKE_SOURCE_DIR}/docs/ENVIRONMENT.md
         ${CMAKE_SOURCE_DIR}/docs/guide/production.md)
# BACKBEAT_INTERN_LIMIT: the table's size, the full table counted, reported once, in the dump.
bb_test(global_intern_limit SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/global/intern_limit_test.c)
# The dump signal's handler replaced by the program, or already taken at load, is warned about
# (tests/global/startup_check.sh).
add_executable(global_startup_prog ${CMAKE_CURRENT_SOURCE_DIR}/global/startup_prog.c)
target_link_libraries(global_startup_prog PRIVATE backbeat ${CMAKE_DL_LIBS})
add_executable(global_startup_prog_dl ${CMAKE_CURRENT_SOURCE_DIR}/global/startup_prog.c)
target_compile_definitions(global_startup_prog_dl PRIVATE BB_STARTUP_NO_LINK)
target_link_libraries(global_startup_prog_dl PRIVATE ${CMAKE_DL_LIBS})
target_include_directories(global_startup_prog_dl PRIVATE ${CMAKE_SOURCE_DIR}/include)
add_test(NAME global_startup
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/global/startup_check.sh
                 $<TARGET_FILE:global_startup_prog> $<TARGET_FILE:global_startup_prog_dl>
                 $<TARGET_FILE:backbeat> ${CMAKE_CURRENT_BINARY_DIR}/global_startup_work)
set_tests_properties(global_startup PROPERTIES LABELS "no-sanitize")
# Every dump carries the program's view set, per link mode x build time x exit path
# (issue 38 finding 2; tests/global/views_check.sh prints the table).
add_executable(global_views_shared ${CMAKE_CURRENT_SOURCE_DIR}/global/views_prog.c)
target_link_libraries(global_views_shared PRIVATE backbeat)
add_executable(global_views_static ${CMAKE_CURRENT_SOURCE_DIR}/global/views_prog.c)
target_link_libraries(global_views_static PRIVATE backbeat_static Threads::Threads)
if(TARGET backbeat_cli)
  add_test(NAME global_views
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/global/views_check.sh
                   $<TARGET_FILE:global_views_shared> $<TARGET_FILE:global_views_static>
                   $<TARGET_FILE:backbeat_cli> ${CMAKE_CURRENT_BINARY_DIR}/global_views_work)
  set_tests_properties(global_views PROPERTIES LABELS "no-sanitize" TIMEOUT 60)
endif()
# A cleared environment keeps the settings; nothing recorded, nothing written (issue 38, 5 and 7).
foreach(link shared static)
  add_test(NAME global_env_${link}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/global/env_check.sh
                   $<TARGET_FILE:global_views_${link}> ${CMAKE_CURRENT_BINARY_DIR}/global_env_${link})
  set_tests_properties(global_env_${link} PROPERTIES TIMEOUT 60)
endforeach()
# An nginx-like daemon in a crash loop: the directory's budget, views, span ids, quiet control
# commands (issue 38; tests/global/daemon_check.sh).
add_executable(global_daemon_prog ${CMAKE_CURRENT_SOURCE_DIR}/global/daemon_prog.c)
target_compile_definitions(global_daemon_prog PRIVATE _GNU_SOURCE)
target_link_libraries(global_daemon_prog PRIVATE backbeat)
if(TARGET backbeat_cli)
  add_test(NAME global_daemon
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/global/daemon_check.sh
                   $<TARGET_FILE:global_daemon_prog> $<TARGET_FILE:backbeat_cli>
                   ${CMAKE_CURRENT_BINARY_DIR}/global_daemon_work)
  set_tests_properties(global_daemon PROPERTIES LABELS "no-sanitize" TIMEOUT 120)
endif()
# The directory budget and ring files (issue 38, outside-in findings 2-5): liveness by the
# writer's flock (not its pid), crash dumps remove their ring file, a ring file evicts nothing
# and reports late, the program's name survives argv rewriting (tests/global/budget_check.sh).
add_executable(global_budget_prog ${CMAKE_CURRENT_SOURCE_DIR}/global/budget_prog.c)
target_compile_definitions(global_budget_prog PRIVATE _GNU_SOURCE)
target_link_libraries(global_budget_prog PRIVATE backbeat)
if(TARGET backbeat_cli)
  add_test(NAME global_budget_rings
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/global/budget_check.sh
                   $<TARGET_FILE:global_budget_prog> $<TARGET_FILE:backbeat_cli>
                   ${CMAKE_CURRENT_BINARY_DIR}/global_budget_work)
  set_tests_properties(global_budget_rings PROPERTIES LABELS "no-sanitize" TIMEOUT 60)
endif()
