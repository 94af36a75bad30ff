# Log lines side by side (issue 41): build-bench/bench/log_side (BB_LOG, BB_RECORD, spdlog's async
# logger, LTTng-UST tracef, fprintf) and log_read (the read side's formatting rate), run by
# bench/log.sh (section `log` of scripts/bench.sh). Without spdlog or lttng-ust their rows are
# omitted; the script installs libspdlog-dev and liblttng-ust-dev and reconfigures.
# SPDX-License-Identifier: MIT
find_package(spdlog QUIET)
pkg_check_modules(LOG_LTTNG_UST QUIET IMPORTED_TARGET lttng-ust)
add_executable(log_side ${CMAKE_CURRENT_SOURCE_DIR}/log_side.cpp)
target_link_libraries(log_side PRIVATE backbeat Threads::Threads)
target_compile_definitions(log_side PRIVATE _GNU_SOURCE)
if(spdlog_FOUND)
  target_compile_definitions(log_side PRIVATE BB_HAVE_SPDLOG)
  target_link_libraries(log_side PRIVATE spdlog::spdlog)
endif()
if(LOG_LTTNG_UST_FOUND)
  target_compile_definitions(log_side PRIVATE BB_HAVE_LTTNG)
  target_link_libraries(log_side PRIVATE PkgConfig::LOG_LTTNG_UST ${CMAKE_DL_LIBS})
endif()
if(TARGET bb_emit)
  add_executable(log_read ${CMAKE_CURRENT_SOURCE_DIR}/log_read.c)
  target_link_libraries(log_read PRIVATE backbeat bb_emit)
  target_compile_definitions(log_read PRIVATE _GNU_SOURCE)
endif()
