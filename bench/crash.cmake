# Crash dumps' module list (issue 40): the cost of 1 000 dlopen/dlclose with crash dumps armed
# and not, and of a crash with 1 000 plugins loaded: build/bench/crash_dlopen, run by
# scripts/bench.sh (section `crash`).
# SPDX-License-Identifier: MIT
add_library(crash_dlopen_plugin MODULE ${PROJECT_SOURCE_DIR}/tests/global/crash/plugin.c)
set_target_properties(crash_dlopen_plugin PROPERTIES PREFIX "" OUTPUT_NAME crash_dlopen_plugin)
add_executable(crash_dlopen ${CMAKE_CURRENT_SOURCE_DIR}/crash_dlopen.c)
target_compile_definitions(crash_dlopen PRIVATE _GNU_SOURCE)
target_link_libraries(crash_dlopen PRIVATE backbeat ${CMAKE_DL_LIBS})
add_dependencies(crash_dlopen crash_dlopen_plugin)
