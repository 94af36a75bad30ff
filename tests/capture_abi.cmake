# Tests of the layout check (src/capture/abi.c): a plugin built with another BB__ABI_LAYOUT, as if
# against other headers, is refused and the host keeps recording.
# SPDX-License-Identifier: MIT
add_library(bb_foreign_plugin MODULE ${CMAKE_CURRENT_SOURCE_DIR}/capture/abi/foreign_plugin.c)
target_compile_definitions(bb_foreign_plugin PRIVATE BB__ABI_LAYOUT=0x62629999u)
target_link_libraries(bb_foreign_plugin PRIVATE backbeat)
bb_test(abi_refuse SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/capture/abi/abi_refuse.c LIBS ${CMAKE_DL_LIBS})
target_compile_definitions(abi_refuse PRIVATE BB_FOREIGN_PLUGIN="$<TARGET_FILE:bb_foreign_plugin>")
add_dependencies(abi_refuse bb_foreign_plugin)
