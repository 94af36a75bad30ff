# The README's first example (examples/hello.c), built and run by ctest (tests/readme.cmake).
# SPDX-License-Identifier: MIT
add_executable(hello ${CMAKE_CURRENT_SOURCE_DIR}/hello.c)
target_link_libraries(hello PRIVATE backbeat)
