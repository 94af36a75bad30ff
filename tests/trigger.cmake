# Trigger rules (issue 39): the grammar and binding (tests/trigger/), in-process triggers on a
# recorder of the program's own (tests/catch/).
# SPDX-License-Identifier: MIT
bb_test(trigger_rule INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/trigger/rule_test.c)
bb_test(catch_recorder SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/catch/catch_test.c LABELS concurrent)
bb_test(catch_global SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/catch/global_trigger_test.c)
bb_test(catch_exit SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/catch/exit_trigger_test.c)
# The global recorder built at load: no warning for rules naming the program's events, one for a
# rule naming none, every stderr line prefixed "backbeat[PID]: STAMP" (issue 38).
bb_test(catch_warn SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/catch/trigger_warn_test.c)
# `log >= error` (issue 41): one dump holding the info lines before the first error.
bb_test(catch_log SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/catch/log_trigger_test.c)
# A triggered dump of the demo (one slow request) says why it was taken: `inspect` (text and
# --json) shows the rule, the matching record and the after-window.
if(TARGET backbeat_cli AND TARGET demo)
  add_test(NAME cli_inspect_trigger COMMAND sh -c
    "d=$(mktemp -d) && $<TARGET_FILE:demo> --trigger 'span demo::kv::RequestBegin > 50ms' $d >/dev/null && \
     $<TARGET_FILE:backbeat_cli> inspect $d/demo-trigger.bb | grep -q '^triggers: 1$' && \
     $<TARGET_FILE:backbeat_cli> inspect --json $d/demo-trigger.bb | grep -q '\"triggers\":\\[{\"instance_id\":\"[0-9a-f]*\",\"recorded_in_shard\":[0-9]*,\"ts\":\"[0-9]*\",\"span_id\":\"*[0-9]*\"*,\"after_ns\":40000000,\"duration_ns\":[0-9]*,\"rule\":\"span demo::kv::RequestBegin > 50ms\",\"event\":\"demo::kv::RequestBegin\",\"shard\":[0-9]*,\"hung\":[a-z]*}\\]' && \
     rm -rf $d")
endif()
# `backbeat watch` on a running process and on one that dies within the after-window.
if(TARGET backbeat_cli AND TARGET demo)
  add_test(NAME cli_watch COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli/watch_test.sh
           $<TARGET_FILE:backbeat_cli> $<TARGET_FILE:demo> ${CMAKE_CURRENT_BINARY_DIR}/cli_watch_work)
endif()
# What fired a triggered dump, in its outputs: the Parquet footer's key-value metadata (read by
# DuckDB and hyparquet) and the trace's "trigger: RULE" instant on the matching record's thread
# (plain JSON and @paulirish/trace_engine).
if(TARGET backbeat_cli AND TARGET demo)
  bb_node_test(convert_trigger trigger_outputs.mjs $<TARGET_FILE:backbeat_cli> $<TARGET_FILE:demo>)
  set_tests_properties(convert_trigger PROPERTIES TIMEOUT 120)
endif()
