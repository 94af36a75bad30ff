# backbeat and LTTng-UST side by side (issue 13): build-bench/bench/lttng_side, run by
# bench/lttng.sh (section `lttng` of scripts/bench.sh). Without lttng-ust (pkg-config) it is
# built without the LTTng rows; the script installs liblttng-ust-dev and reconfigures.
# SPDX-License-Identifier: MIT
pkg_check_modules(LTTNG_UST QUIET IMPORTED_TARGET lttng-ust)
add_executable(lttng_side ${CMAKE_CURRENT_SOURCE_DIR}/lttng_side.c)
target_link_libraries(lttng_side PRIVATE backbeat)
target_compile_definitions(lttng_side PRIVATE _GNU_SOURCE)
if(LTTNG_UST_FOUND)
  target_sources(lttng_side PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/lttng_probes.c)
  target_include_directories(lttng_side PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_compile_definitions(lttng_side PRIVATE BB_HAVE_LTTNG)
  target_link_libraries(lttng_side PRIVATE PkgConfig::LTTNG_UST ${CMAKE_DL_LIBS})
endif()
