# Self-test of the shared test support (the JSON parser every golden-vector test relies on).
# SPDX-License-Identifier: MIT
bb_test(test_json_support SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/support_selftest/json_selftest.c)
