# The README's demo: `make demo` builds it and scripts/demo.sh runs build/examples/demo OUT.bb.
# SPDX-License-Identifier: MIT
add_executable(demo ${CMAKE_CURRENT_SOURCE_DIR}/demo.c)
target_link_libraries(demo PRIVATE backbeat Threads::Threads)
target_compile_definitions(demo PRIVATE _GNU_SOURCE)
