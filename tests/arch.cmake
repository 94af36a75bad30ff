# The tree's shape (issue 20, docs/ARCHITECTURE.md "No circles"): no two src/ files call each
# other, nor any longer loop of files (from this build's object files), and no function under
# src/ over 100 lines: scripts/check-circles.py. Since issue 36 also no header circle and no
# include against docs/ARCHITECTURE.md's "Rooms and arrows" table (upward, or another room's
# private header); the table is the only copy. `--prefixes`: every global symbol a room defines
# carries the room's prefix from that table; `--files`: every source file has its line in the
# document's "Rooms, file by file". arch_circles_selftest runs the script on small
# trees it must pass or fail, so the check itself can fail.
# SPDX-License-Identifier: MIT
find_program(BB_PYTHON3 python3)
if(BB_PYTHON3)
  add_test(NAME arch_circles COMMAND ${BB_PYTHON3} ${CMAKE_SOURCE_DIR}/scripts/check-circles.py
           --build ${CMAKE_BINARY_DIR} --src ${CMAKE_SOURCE_DIR}/src
           --allow ${CMAKE_SOURCE_DIR}/scripts/check-circles.allow --prefixes --files --top 5)
  add_test(NAME arch_circles_selftest COMMAND ${BB_PYTHON3}
           ${CMAKE_CURRENT_SOURCE_DIR}/arch/check_circles_test.py
           ${CMAKE_SOURCE_DIR}/scripts/check-circles.py)
  set_tests_properties(arch_circles arch_circles_selftest PROPERTIES LABELS "qa")
endif()

# One style (issue 36): every .c and .h of src/, include/ and tests/ as the committed
# .clang-format writes it (scripts/check-format.sh; clang-format 14, installed by `make test`).
add_test(NAME arch_format COMMAND ${CMAKE_SOURCE_DIR}/scripts/check-format.sh)
add_test(NAME arch_format_selftest COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/arch/check_format_test.sh
         ${CMAKE_SOURCE_DIR}/scripts/check-format.sh)
set_tests_properties(arch_format arch_format_selftest PROPERTIES LABELS "qa" SKIP_RETURN_CODE 77)
