# The Debian packages (debian/, tests/deb/): dpkg-buildpackage builds them from a copy of the
# source tree, lintian reports no error, and the consumer of tests/install/consumer/ is built
# against the packages extracted into a throwaway root and read by the extracted CLI.
# no-sanitize: the package build is its own (Debian's flags), and the consumers link with a plain
# `cc`. The package build compiles the project once more: one at a time with the install tests.
# SPDX-License-Identifier: MIT
find_program(BB_DEB_BASH bash REQUIRED)
add_test(NAME deb_packages
         COMMAND ${BB_DEB_BASH} ${CMAKE_CURRENT_SOURCE_DIR}/deb/deb_test.sh
                 ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/deb_work)
set_tests_properties(deb_packages PROPERTIES LABELS "deb;no-sanitize"
                     SKIP_RETURN_CODE 77 RESOURCE_LOCK bb_install TIMEOUT 900)
