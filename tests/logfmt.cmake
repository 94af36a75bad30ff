# Tests of log lines (include/backbeat/log.h, src/capture/log_site.c) and their formatting
# (src/logfmt/): every conversion against snprintf, every argument type, the string bound.
# SPDX-License-Identifier: MIT
set(BB_LF ${CMAKE_CURRENT_SOURCE_DIR}/logfmt)
bb_test(logfmt_format INTERNAL SOURCES ${BB_LF}/format_test.c LIBS bb_emit)
target_include_directories(logfmt_format PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support ${BB_LF})
