# Tests of log lines (include/backbeat/log.h, src/capture/log_site.c) and their formatting
# (src/logfmt/): every conversion against snprintf, every argument type, the string bound.
# SPDX-License-Identifier: MIT
set(BB_LF ${CMAKE_CURRENT_SOURCE_DIR}/logfmt)
bb_test(logfmt_format INTERNAL SOURCES ${BB_LF}/format_test.c LIBS bb_emit)
target_include_directories(logfmt_format PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support ${BB_LF})
bb_test(logfmt_threads INTERNAL SOURCES ${BB_LF}/threads_test.c LIBS bb_emit LABELS concurrent)
target_include_directories(logfmt_threads PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support ${BB_LF})
add_library(bb_log_plugin MODULE ${BB_LF}/plugin.c)
target_link_libraries(bb_log_plugin PRIVATE backbeat)
bb_test(logfmt_plugin SOURCES ${BB_LF}/plugin_test.c LIBS bb_emit)
target_include_directories(logfmt_plugin PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support ${BB_LF})
target_compile_definitions(logfmt_plugin PRIVATE BB_LOG_PLUGIN_PATH="$<TARGET_FILE:bb_log_plugin>")
add_dependencies(logfmt_plugin bb_log_plugin)
bb_test(logfmt_number INTERNAL SOURCES ${BB_LF}/number_test.c LIBS bb_emit)
target_include_directories(logfmt_number PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support ${BB_LF})
bb_test(logfmt_file INTERNAL SOURCES ${BB_LF}/file_test.c LIBS bb_emit)
target_include_directories(logfmt_file PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support ${BB_LF})
bb_test(logfmt_enum INTERNAL SOURCES ${BB_LF}/enum_test.c LIBS bb_emit)
target_include_directories(logfmt_enum PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support ${BB_LF})
bb_test(logfmt_cxx INTERNAL SOURCES ${BB_LF}/cxx_test.cpp LIBS bb_emit)
target_include_directories(logfmt_cxx PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support ${BB_LF})
bb_test(logfmt_cxx_inline INTERNAL SOURCES ${BB_LF}/cxx_inline_test.cpp ${BB_LF}/cxx_inline_a.cpp
        LIBS bb_emit)
target_include_directories(logfmt_cxx_inline PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support ${BB_LF})
# A format that does not match its arguments fails to compile under -Werror (C and C++, gcc's
# -Wformat); the same file with matching arguments compiles (the control).
foreach(lang c c++)
  add_test(NAME logfmt_mismatch_fails_${lang}
           COMMAND sh -c "out=$(\"$0\" -x $1 -Wall -Werror -fsyntax-only -DBB_TEST_MISMATCH -I$2 $3 2>&1) && exit 1; echo \"$out\" | grep -q \"format\""
                   ${CMAKE_C_COMPILER} ${lang} ${CMAKE_SOURCE_DIR}/include ${BB_LF}/mismatch.c)
  add_test(NAME logfmt_bad_level_fails_${lang}
           COMMAND sh -c "out=$(\"$0\" -x $1 -Wall -Werror -fsyntax-only -DBB_TEST_BAD_LEVEL -I$2 $3 2>&1) && exit 1; echo \"$out\" | grep -q \"must be a constant BB_TRACE\""
                   ${CMAKE_C_COMPILER} ${lang} ${CMAKE_SOURCE_DIR}/include ${BB_LF}/mismatch.c)
  add_test(NAME logfmt_mismatch_control_${lang}
           COMMAND ${CMAKE_C_COMPILER} -x ${lang} -Wall -Werror -fsyntax-only
                   -I${CMAKE_SOURCE_DIR}/include ${BB_LF}/mismatch.c)
endforeach()
bb_test(logfmt_dump_on_log SOURCES ${BB_LF}/dump_on_log.c LIBS bb_emit)
target_include_directories(logfmt_dump_on_log PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/support ${BB_LF})
# The CLI's readers of log lines over the demo's dumps: backbeat log (levels, several dumps in
# one order) and the trace's log instants.
add_test(NAME logfmt_cli COMMAND sh ${BB_LF}/cli_log.sh $<TARGET_FILE:backbeat_cli>
                                 $<TARGET_FILE:demo>)
