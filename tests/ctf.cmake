# Tests of the CTF writer (src/ctf): ctf_check.mjs converts the golden dumps and generated ones
# (ctf_gen: names TSDL cannot take as they are; cli_gen: spans of two processes; pq_gendump:
# every field type) to CTF and to Parquet, reads the trace with babeltrace2 and compares record
# by record. Skipped (77) without babeltrace2, node_modules (npm ci --prefix tests/js) or the
# golden dumps.
# SPDX-License-Identifier: MIT
add_executable(ctf_gen ${CMAKE_CURRENT_SOURCE_DIR}/ctf/ctf_gen.c)
target_compile_definitions(ctf_gen PRIVATE _GNU_SOURCE)
target_link_libraries(ctf_gen PRIVATE backbeat)

find_program(BB_NODE node)
if(BB_NODE)
  add_test(NAME ctf_babeltrace COMMAND ${BB_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/ctf/ctf_check.mjs
           $<TARGET_FILE:backbeat_cli> $<TARGET_FILE:ctf_gen> $<TARGET_FILE:cli_gen>
           $<TARGET_FILE:pq_gendump> ${CMAKE_CURRENT_BINARY_DIR}/ctf_work)
  set_tests_properties(ctf_babeltrace PROPERTIES SKIP_RETURN_CODE 77 LABELS "cli"
    ENVIRONMENT "BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR};BB_NODE_MODULES=${BB_NODE_MODULES}")
endif()
