# Tests of the Parquet writer (src/cli/parquet_*.c, thrift_compact.c). The writer's sources are
# built into a small library so a test driver (tests/parquet/pq_convert.c) can call
# parquet_write directly; the checks themselves are Node scripts (tests/js/parquet_*.mjs) that
# read the files back with DuckDB and hyparquet (installed by `npm ci --prefix tests/js`).
set(BB_PQ_DIR ${CMAKE_CURRENT_SOURCE_DIR}/parquet)
file(GLOB BB_PQ_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/cli/parquet_*.c
     ${CMAKE_SOURCE_DIR}/src/cli/thrift_compact.c)
add_library(bb_parquet_writer STATIC ${BB_PQ_SOURCES})
target_include_directories(bb_parquet_writer PUBLIC ${CMAKE_SOURCE_DIR}/src/cli
                                                    ${CMAKE_SOURCE_DIR}/include)
target_compile_definitions(bb_parquet_writer PRIVATE _GNU_SOURCE
                           BB_VERSION_STRING="${PROJECT_VERSION}")
target_link_libraries(bb_parquet_writer PUBLIC backbeat PkgConfig::ZSTD)

# Drivers (not tests by themselves).
foreach(drv pq_convert pq_lowlevel pq_gendump)
  if(EXISTS ${BB_PQ_DIR}/${drv}.c)
    add_executable(${drv} ${BB_PQ_DIR}/${drv}.c)
    target_compile_definitions(${drv} PRIVATE _GNU_SOURCE)
    target_link_libraries(${drv} PRIVATE bb_parquet_writer backbeat)
  endif()
endforeach()

# Convert through the CLI when it is built, else through the driver.
set(BB_PQ_CONVERT $<TARGET_FILE:pq_convert>)
set(BB_PQ_CONVERT_KIND driver)
if(TARGET backbeat_cli)
  get_target_property(_bb_cli_type backbeat_cli TYPE)
  if(_bb_cli_type STREQUAL "EXECUTABLE")
    set(BB_PQ_CONVERT $<TARGET_FILE:backbeat_cli>)
    set(BB_PQ_CONVERT_KIND cli)
  endif()
endif()

function(bb_node_test name script)
  add_test(NAME ${name} COMMAND node ${CMAKE_CURRENT_SOURCE_DIR}/js/${script} ${ARGN})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77
    ENVIRONMENT "BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR}")
endfunction()

bb_node_test(parquet_lowlevel parquet_lowlevel.mjs $<TARGET_FILE:pq_lowlevel>)
bb_node_test(parquet_golden parquet_golden.mjs ${BB_PQ_CONVERT_KIND} ${BB_PQ_CONVERT})
bb_node_test(parquet_stats parquet_stats.mjs ${BB_PQ_CONVERT_KIND} ${BB_PQ_CONVERT}
             $<TARGET_FILE:pq_gendump>)

# The RLE / bit-packing hybrid encoder against a reference decoder.
bb_test(parquet_rle SOURCES ${BB_PQ_DIR}/pq_rle_test.c LIBS bb_parquet_writer)
bb_node_test(parquet_clash parquet_clash.mjs ${BB_PQ_CONVERT_KIND} ${BB_PQ_CONVERT}
             $<TARGET_FILE:pq_gendump>)
bb_node_test(parquet_wide parquet_wide.mjs ${BB_PQ_CONVERT_KIND} ${BB_PQ_CONVERT}
             $<TARGET_FILE:pq_gendump>)
