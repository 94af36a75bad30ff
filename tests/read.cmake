# Tests of the dump reader (src/read/reader.c, src/read/utf8.c) and the multi-dump model (src/read/model.c).
# SPDX-License-Identifier: MIT
set(BB_READER_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/read)
bb_test(reader_golden SOURCES ${BB_READER_TEST_DIR}/golden.c ${BB_READER_TEST_DIR}/dump_json.c)
bb_test(model_golden SOURCES ${BB_READER_TEST_DIR}/multi.c ${BB_READER_TEST_DIR}/dump_json.c
        ${BB_READER_TEST_DIR}/model_json.c)
bb_test(reader_hostile SOURCES ${BB_READER_TEST_DIR}/hostile.c)

# Fuzzing. The smoke run feeds the golden dumps and fixed-seed mutants of them through the fuzz
# entry point (under ASan in the sanitizer pass). -DBB_FUZZ=ON with clang also builds the real
# libFuzzer target: build/tests/fuzz_reader [corpus dir] (the option BB_FUZZ is declared in
# fuzz.cmake, with the whole-CLI targets).
bb_test(reader_fuzz_smoke SOURCES ${BB_FUZZ_DIR}/fuzz_reader.c ${BB_FUZZ_DIR}/smoke_main.c)
if(BB_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "BB_FUZZ=ON needs clang (CC=clang)")
  endif()
  # The library sources are compiled into the target so they get coverage instrumentation.
  # The read library's sources are compiled into the target (coverage instrumentation); the
  # format sources with them (the ring-file reader encodes its dumps with them).
  file(GLOB BB_FUZZ_LIB_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/common/*.c
       ${CMAKE_SOURCE_DIR}/src/format/*.c ${CMAKE_SOURCE_DIR}/src/read/*.c)
  add_executable(fuzz_reader ${BB_FUZZ_DIR}/fuzz_reader.c ${BB_FUZZ_LIB_SOURCES})
  target_include_directories(fuzz_reader PRIVATE ${CMAKE_SOURCE_DIR}/include
                                                 ${CMAKE_SOURCE_DIR}/src)
  target_compile_definitions(fuzz_reader PRIVATE _GNU_SOURCE)
  target_compile_options(fuzz_reader PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(fuzz_reader PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_reader PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
endif()
bb_test(model_cache INTERNAL SOURCES ${BB_READER_TEST_DIR}/model_cache_test.c) # INTERNAL: read/model_cache.h
# The page-cache advice of a dump larger than the memory, taken on a small one (pq_gendump's).
bb_test(model_cooled INTERNAL SOURCES ${BB_READER_TEST_DIR}/model_cooled.c) # INTERNAL: model_priv.h
set_property(TEST model_cooled APPEND PROPERTY ENVIRONMENT "BB_GENDUMP=$<TARGET_FILE:pq_gendump>")
bb_test(model_order INTERNAL SOURCES ${BB_READER_TEST_DIR}/model_order.c) # INTERNAL: read/model_transient.h
bb_test(model_threads SOURCES ${BB_READER_TEST_DIR}/model_threads.c LABELS concurrent)
