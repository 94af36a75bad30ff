# Trigger rules (issue 39): the grammar and binding (tests/trigger/), in-process triggers on a
# recorder of the program's own (tests/catch/).
# SPDX-License-Identifier: MIT
bb_test(trigger_rule INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/trigger/rule_test.c)
bb_test(catch_recorder SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/catch/catch_test.c LABELS concurrent)
bb_test(catch_global SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/catch/global_trigger_test.c)
