# Install and consume like any C library (tests/install/): `cmake --install` of this build into
# a temporary prefix, a consumer outside the tree built through pkg-config and find_package,
# shared and static, run and read by the installed CLI; the same after moving the prefix; the
# man page; headers alone. no-sanitize: the consumers link with a plain `cc`, which cannot
# resolve a sanitizer build's instrumented libraries. The README's Install section is run
# literally by install_readme. Both install this build: one at a time (RESOURCE_LOCK).
# SPDX-License-Identifier: MIT
find_program(BB_INSTALL_BASH bash REQUIRED)
add_test(NAME install_consume
         COMMAND ${BB_INSTALL_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/install/install_test.sh
                 ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/install_work/consume)
set_tests_properties(install_consume PROPERTIES LABELS "install;no-sanitize"
                     SKIP_RETURN_CODE 77 RESOURCE_LOCK bb_install TIMEOUT 900)
add_test(NAME install_readme
         COMMAND ${BB_INSTALL_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/install/readme_install_check.sh
                 ${CMAKE_SOURCE_DIR} ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_BINARY_DIR}/install_work/readme)
set_tests_properties(install_readme PROPERTIES LABELS "install;qa;no-sanitize"
                     SKIP_RETURN_CODE 77 RESOURCE_LOCK bb_install TIMEOUT 600)
