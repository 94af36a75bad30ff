# Release builds (tests/release/): the fully static musl CLI of each Linux target
# (scripts/build-static.sh), checked with readelf and run in an empty root against the dynamic
# CLI's output for a golden dump (aarch64 under qemu-aarch64-static), a from-scratch rebuild
# compared byte for byte, the release archives packaged twice and compared (scripts/release.sh),
# install.sh end to end against a loopback HTTP server, and shellcheck of the shipped scripts.
# Labelled no-sanitize: they build and run their own binaries, not the sanitized ones.
# Packages: scripts/install-deps.sh --test (which implies --static).
# SPDX-License-Identifier: MIT
find_program(BB_RELEASE_BASH bash)
set(BB_RELEASE_DIR ${CMAKE_CURRENT_BINARY_DIR}/release_work)
set(BB_RELEASE_SCRIPTS ${CMAKE_CURRENT_SOURCE_DIR}/release)

add_test(NAME release_build_static
         COMMAND ${BB_RELEASE_BASH} ${BB_RELEASE_SCRIPTS}/build_static.sh ${CMAKE_SOURCE_DIR} ${BB_RELEASE_DIR})
set_tests_properties(release_build_static PROPERTIES FIXTURES_SETUP release_bin TIMEOUT 900)

foreach(t x86_64 aarch64)
  add_test(NAME release_static_${t}
           COMMAND ${BB_RELEASE_BASH} ${BB_RELEASE_SCRIPTS}/static_check.sh ${t}-linux-musl
                   ${BB_RELEASE_DIR}/bin/${t}-linux-musl/backbeat $<TARGET_FILE:backbeat_cli>
                   ${BB_RELEASE_DIR}/run-${t})
  set_tests_properties(release_static_${t} PROPERTIES FIXTURES_REQUIRED release_bin
    ENVIRONMENT "BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR}")
endforeach()

# Every codec the release binary's `convert --help` lists works; the others are refused.
add_test(NAME release_codecs_x86_64
         COMMAND ${BB_RELEASE_BASH} ${BB_RELEASE_SCRIPTS}/codecs_check.sh
                 ${BB_RELEASE_DIR}/bin/x86_64-linux-musl/backbeat ${BB_RELEASE_DIR}/codecs)
set_tests_properties(release_codecs_x86_64 PROPERTIES FIXTURES_REQUIRED release_bin
  ENVIRONMENT "BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR}")

add_test(NAME release_static_reproducible
         COMMAND ${BB_RELEASE_BASH} ${BB_RELEASE_SCRIPTS}/reproducible.sh ${CMAKE_SOURCE_DIR}
                 ${BB_RELEASE_DIR}/bin/x86_64-linux-musl/backbeat ${BB_RELEASE_DIR}/repro)
set_tests_properties(release_static_reproducible PROPERTIES FIXTURES_REQUIRED release_bin TIMEOUT 900)

add_test(NAME release_package
         COMMAND ${BB_RELEASE_BASH} ${BB_RELEASE_SCRIPTS}/package_check.sh ${CMAKE_SOURCE_DIR}
                 ${BB_RELEASE_DIR}/bin ${BB_RELEASE_DIR}/dist)
set_tests_properties(release_package PROPERTIES FIXTURES_REQUIRED release_bin FIXTURES_SETUP release_dist)

add_test(NAME release_install_sh
         COMMAND ${BB_RELEASE_BASH} ${BB_RELEASE_SCRIPTS}/install_sh_test.sh ${CMAKE_SOURCE_DIR}
                 ${BB_RELEASE_DIR}/dist/a ${BB_RELEASE_DIR}/install)
set_tests_properties(release_install_sh PROPERTIES FIXTURES_REQUIRED release_dist)

find_program(BB_SHELLCHECK shellcheck)
if(BB_SHELLCHECK)
  add_test(NAME release_shellcheck COMMAND ${BB_SHELLCHECK} install.sh scripts/release.sh scripts/ctest.sh scripts/install-deps.sh
           scripts/build-static.sh tests/release/build_static.sh tests/release/static_check.sh
           tests/release/reproducible.sh tests/release/package_check.sh tests/release/install_sh_test.sh
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
else()
  add_test(NAME release_shellcheck COMMAND sh -c "echo 'shellcheck not installed (scripts/install-deps.sh --test); skipped'; exit 77")
endif()

set_tests_properties(release_build_static release_static_x86_64 release_static_aarch64 release_codecs_x86_64
  release_static_reproducible release_package release_install_sh release_shellcheck
  PROPERTIES LABELS "release;no-sanitize" SKIP_RETURN_CODE 77)
