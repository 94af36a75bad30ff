# Tests of src/common/ (errors, bytes, the version, a copy's hold on a CPU).
# SPDX-License-Identifier: MIT
# BACKBEAT_LIVE_RT=0 keeps a live copy's CPU hold from taking SCHED_FIFO (issue 37).
bb_test(common_cpu_hold INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/common/cpu_hold_test.c)
# The words a BACKBEAT_* boolean accepts: one home for the config table and cpu_hold.c.
bb_test(common_bool_word INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/common/bool_word_test.c)
