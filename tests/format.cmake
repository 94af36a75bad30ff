# Tests of the wire encoding (src/format): the section encoder against hand-built bytes.
# SPDX-License-Identifier: MIT
bb_test(format_sections INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/format/sections_test.c)
