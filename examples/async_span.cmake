# The user guide's asynchronous-span example (examples/async_span.c, docs/guide/instrument.md),
# built and run by ctest (tests/readme.cmake).
# SPDX-License-Identifier: MIT
add_executable(async_span ${CMAKE_CURRENT_SOURCE_DIR}/async_span.c)
target_link_libraries(async_span PRIVATE backbeat)
