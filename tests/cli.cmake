# Tests of the `backbeat` CLI (src/cli): error paths, inspect --json, trace output (checked by
# the DevTools trace engine and by our own parse), merge. The Node tests need
# `npm ci --prefix tests/js`; without node_modules they exit 77 (skipped).
# SPDX-License-Identifier: MIT
add_executable(cli_gen ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_gen.c)
target_compile_definitions(cli_gen PRIVATE _GNU_SOURCE)
target_link_libraries(cli_gen PRIVATE backbeat)

set(BB_CLI_WORK ${CMAKE_CURRENT_BINARY_DIR}/cli_work)
find_program(BB_NODE node)
find_program(BB_BASH bash)

function(bb_cli_test name)
  cmake_parse_arguments(T "" "" "COMMAND;LABELS" ${ARGN})
  add_test(NAME ${name} COMMAND ${T_COMMAND})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77 LABELS "cli;${T_LABELS}"
    ENVIRONMENT "BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR};BB_NODE_MODULES=${BB_NODE_MODULES}")
endfunction()

bb_cli_test(cli_errors COMMAND ${BB_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_errors.sh
            $<TARGET_FILE:backbeat_cli> ${BB_CLI_WORK}/errors)
if(BB_NODE)
  # The views file moved with its Parquet file / dataset, loaded by scripts/query.mjs.
  bb_cli_test(cli_views_moved COMMAND ${BB_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cli/views_moved.sh
              $<TARGET_FILE:backbeat_cli> ${CMAKE_SOURCE_DIR} ${BB_CLI_WORK}/views_moved)
  bb_cli_test(cli_inspect_json COMMAND ${BB_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/inspect_check.mjs
              $<TARGET_FILE:backbeat_cli> ${BB_CLI_WORK}/inspect)
  bb_cli_test(cli_trace_golden COMMAND ${BB_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/js/trace_golden.mjs
              $<TARGET_FILE:backbeat_cli> ${BB_CLI_WORK}/trace_golden)
  bb_cli_test(cli_trace_spans COMMAND ${BB_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/js/trace_spans.mjs
              $<TARGET_FILE:backbeat_cli> $<TARGET_FILE:cli_gen> ${BB_CLI_WORK}/trace_spans)
  # Trace lanes by ancestry: interleaved unrelated requests on one shard (cli_gen async).
  bb_cli_test(cli_trace_async COMMAND ${BB_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/js/trace_async.mjs
              $<TARGET_FILE:backbeat_cli> $<TARGET_FILE:cli_gen> ${BB_CLI_WORK}/trace_async)
  # Random span trees: children outliving parents, migrations, equal timestamps.
  bb_cli_test(cli_trace_random COMMAND ${BB_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/js/trace_random.mjs
              $<TARGET_FILE:backbeat_cli> $<TARGET_FILE:cli_gen> ${BB_CLI_WORK}/trace_random)
  bb_cli_test(cli_convert_filters COMMAND ${BB_NODE}
              ${CMAKE_CURRENT_SOURCE_DIR}/cli/filters_check.mjs
              $<TARGET_FILE:backbeat_cli> ${BB_CLI_WORK}/filters)
  bb_cli_test(cli_merge COMMAND ${BB_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/merge_check.mjs
              $<TARGET_FILE:backbeat_cli> $<TARGET_FILE:cli_gen> ${BB_CLI_WORK}/merge)
endif()
bb_cli_test(cli_quiet COMMAND ${BB_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_quiet.sh
            $<TARGET_FILE:backbeat_cli> $<TARGET_FILE:cli_gen> ${BB_CLI_WORK}/quiet)
if(BB_NODE)
  bb_cli_test(cli_skill COMMAND ${BB_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/skill_check.mjs
              $<TARGET_FILE:backbeat_cli> ${BB_CLI_WORK}/skill)
endif()
bb_test(cli_u64map INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/read/u64map_test.c LIBS bb_cli_parts)
bb_test(cli_text INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/emit/text_test.c LIBS bb_convert)
bb_test(cli_ringfile INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cli/ringfile_test.c LIBS bb_cli_parts)
bb_test(cli_tail_json INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cli/tail_json_test.c LIBS bb_cli_parts)
bb_test(cli_widen INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/table/widen_test.c LIBS bb_convert)

# Robustness (issue "Reliability"): merge of dumps without shards or instances, of a dump with
# 65533 shards and no intern entries; output-file safety (inputs, modes, symlinks, stale
# temporaries, SIGHUP under nohup).
# The ring-file fuzz target's seed (fuzz/seeds.sh).
add_executable(ring_gen ${CMAKE_CURRENT_SOURCE_DIR}/cli/ring_gen.c)
target_link_libraries(ring_gen PRIVATE backbeat)
add_executable(robust_gen ${CMAKE_CURRENT_SOURCE_DIR}/cli/robust_gen.c)
target_link_libraries(robust_gen PRIVATE backbeat)
bb_cli_test(cli_robust COMMAND ${BB_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_robust.sh
            $<TARGET_FILE:backbeat_cli> $<TARGET_FILE:robust_gen> $<TARGET_FILE:cli_gen>
            ${BB_CLI_WORK}/robust)

# Forward compatibility (FORMAT.md): unknown section kinds skipped, unknown phases and roles read
# as none, by inspect, convert (both outputs) and merge.
add_executable(forward_patch ${CMAKE_CURRENT_SOURCE_DIR}/cli/forward_patch.c)
bb_cli_test(cli_forward COMMAND ${BB_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_forward.sh
            $<TARGET_FILE:backbeat_cli> $<TARGET_FILE:cli_gen> $<TARGET_FILE:forward_patch>
            ${BB_CLI_WORK}/forward)

# Hostile outputs: a full disk (file-size limit), a read-only directory, SIGTERM and SIGKILL
# mid-write.
bb_cli_test(cli_outputs COMMAND ${BB_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_outputs.sh
            $<TARGET_FILE:backbeat_cli> $<TARGET_FILE:cli_gen> ${BB_CLI_WORK}/outputs)

# A trace of two versions of one event name whose fields are all padding: the version's id is
# the only arg (an object opened with "{," was written before; tests/table/pad_only_gen.c).
add_executable(pad_only_gen ${CMAKE_CURRENT_SOURCE_DIR}/table/pad_only_gen.c)
target_link_libraries(pad_only_gen PRIVATE backbeat)
bb_cli_test(cli_trace_pad_only COMMAND ${BB_BASH}
            ${CMAKE_CURRENT_SOURCE_DIR}/table/trace_pad_only.sh
            $<TARGET_FILE:backbeat_cli> $<TARGET_FILE:pad_only_gen> ${BB_CLI_WORK}/pad_only)

# The OS pid of each instance (issue 38, docs/PROCESS_SECTION.md): dumps of a forked child and
# its parent, the global recorder's dump name, inspect, merge, the trace, the Parquet `pid`
# column read back by DuckDB and hyparquet, recover and tail of a ring file, golden vectors.
add_executable(pid_gen ${CMAKE_CURRENT_SOURCE_DIR}/cli/pid_gen.c)
target_compile_definitions(pid_gen PRIVATE _GNU_SOURCE)
target_link_libraries(pid_gen PRIVATE backbeat)
if(BB_NODE)
  bb_cli_test(cli_pid COMMAND ${BB_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/js/pid_check.mjs
              $<TARGET_FILE:backbeat_cli> $<TARGET_FILE:pid_gen> $<TARGET_FILE:ring_gen>
              ${BB_CLI_WORK}/pid)
endif()

# `tail --format jsonl` (issue 37: plans per event, integers written in place) against a
# rendering written independently in JavaScript: every field type, spans, log lines, two rings
# interleaved in time; `tail --format text` of the same file read back by line.
add_executable(tail_types_gen ${CMAKE_CURRENT_SOURCE_DIR}/cli/tail_types_gen.c)
target_compile_definitions(tail_types_gen PRIVATE _GNU_SOURCE)
target_link_libraries(tail_types_gen PRIVATE backbeat)
if(BB_NODE)
  bb_cli_test(cli_tail_types COMMAND ${BB_NODE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/tail_types_check.mjs
              $<TARGET_FILE:backbeat_cli> $<TARGET_FILE:tail_types_gen> ${BB_CLI_WORK}/tail_types)
endif()
