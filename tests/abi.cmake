# The ABI of the shared libraries: exactly the committed symbol lists are exported (tests/abi/),
# sonames are versioned, and bb_version agrees with version.h.
# SPDX-License-Identifier: MIT
foreach(lib backbeat backbeat_read)
  get_target_property(_out ${lib} OUTPUT_NAME)
  add_test(NAME abi_exports_${_out}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/abi/check_exports.sh $<TARGET_FILE:${lib}>
                   ${CMAKE_CURRENT_SOURCE_DIR}/abi/lib${_out}.symbols)
  add_test(NAME abi_soname_${_out}
           COMMAND sh -c "readelf -d \"$1\" | grep -q \"Library soname: \\[lib$2.so.${PROJECT_VERSION_MAJOR}\\]\""
                   sh $<TARGET_FILE:${lib}> ${_out})
endforeach()
bb_test(abi_version SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/abi/version_test.c)
