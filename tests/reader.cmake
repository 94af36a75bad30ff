# Tests of the dump reader (src/lib/reader.c, utf8.c) and the multi-dump model (src/lib/model.c).
set(BB_READER_TEST_DIR ${CMAKE_CURRENT_SOURCE_DIR}/reader)
bb_test(reader_golden SOURCES ${BB_READER_TEST_DIR}/golden.c ${BB_READER_TEST_DIR}/dump_json.c)
bb_test(model_golden SOURCES ${BB_READER_TEST_DIR}/multi.c ${BB_READER_TEST_DIR}/dump_json.c
        ${BB_READER_TEST_DIR}/model_json.c)
bb_test(reader_hostile SOURCES ${BB_READER_TEST_DIR}/hostile.c)
