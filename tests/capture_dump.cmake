# Tests of the .bb dump writer (src/capture/dump_writer.c).
# SPDX-License-Identifier: MIT
bb_test(writer_bytes SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/capture/dump/writer_bytes.c)
bb_test(writer_errors SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/capture/dump/writer_errors.c)
bb_test(writer_golden SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/capture/dump/writer_golden.c)
# Interposes write() and malloc() in the executable: the sanitizer runtimes intercept the same
# symbols, so it runs in the plain build only.
bb_test(writer_fd SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/capture/dump/writer_fd.c LABELS no-sanitize)
