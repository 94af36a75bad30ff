# Tests of src/common/ (errors, bytes, the version, a copy's hold on a CPU).
# SPDX-License-Identifier: MIT
# BACKBEAT_LIVE_RT=0 keeps a live copy's CPU hold from taking SCHED_FIFO (issue 37).
bb_test(common_cpu_hold INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/common/cpu_hold_test.c)
