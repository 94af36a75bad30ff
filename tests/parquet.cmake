# Tests of the Parquet encoder (src/parquet) and of convert's table writer (src/convert):
# drivers below call them directly; the checks themselves are Node scripts (tests/js/parquet_*.mjs) that
# read the files back with DuckDB and hyparquet (installed by `npm ci --prefix tests/js`).
# SPDX-License-Identifier: MIT
set(BB_PQ_DIR ${CMAKE_CURRENT_SOURCE_DIR}/parquet)
set(BB_CONV_DIR ${CMAKE_CURRENT_SOURCE_DIR}/table)

# Drivers (not tests by themselves): pq_lowlevel drives the encoder alone (src/parquet),
# pq_convert the table writer (src/convert), pq_gendump writes dumps through libbackbeat.
add_executable(pq_lowlevel ${BB_PQ_DIR}/pq_lowlevel.c)
target_compile_definitions(pq_lowlevel PRIVATE _GNU_SOURCE)
target_link_libraries(pq_lowlevel PRIVATE bb_parquet)
add_executable(pq_convert ${BB_CONV_DIR}/pq_convert.c)
target_compile_definitions(pq_convert PRIVATE _GNU_SOURCE)
target_link_libraries(pq_convert PRIVATE bb_convert)
add_executable(pq_gendump ${BB_CONV_DIR}/pq_gendump.c)
target_compile_definitions(pq_gendump PRIVATE _GNU_SOURCE)
target_link_libraries(pq_gendump PRIVATE backbeat)

set(BB_PQ_CONVERT $<TARGET_FILE:backbeat_cli>)
set(BB_PQ_CONVERT_KIND cli)

function(bb_node_test name script)
  add_test(NAME ${name} COMMAND node ${CMAKE_CURRENT_SOURCE_DIR}/js/${script} ${ARGN})
  set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77
    ENVIRONMENT "BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR}")
endfunction()

bb_node_test(parquet_lowlevel parquet_lowlevel.mjs $<TARGET_FILE:pq_lowlevel>)
bb_node_test(parquet_golden parquet_golden.mjs ${BB_PQ_CONVERT_KIND} ${BB_PQ_CONVERT})
# The same through the table writer called directly (no CLI in between).
bb_node_test(parquet_golden_driver parquet_golden.mjs driver $<TARGET_FILE:pq_convert>)
bb_node_test(parquet_stats parquet_stats.mjs ${BB_PQ_CONVERT_KIND} ${BB_PQ_CONVERT}
             $<TARGET_FILE:pq_gendump>)

# The RLE / bit-packing hybrid encoder against a reference decoder.
bb_test(parquet_rle SOURCES ${BB_PQ_DIR}/pq_rle_test.c LIBS bb_parquet)
# A column's chunk buffer kept across row groups, released, and what is written into it.
bb_test(parquet_chunk_keep SOURCES ${BB_PQ_DIR}/pq_chunk_keep_test.c LIBS bb_parquet)
bb_test(parquet_col_run SOURCES ${BB_PQ_DIR}/pq_col_run_test.c LIBS bb_parquet)
bb_test(parquet_defer SOURCES ${BB_PQ_DIR}/pq_defer_test.c LIBS bb_parquet)
bb_node_test(parquet_clash parquet_clash.mjs ${BB_PQ_CONVERT_KIND} ${BB_PQ_CONVERT}
             $<TARGET_FILE:pq_gendump>)
bb_node_test(parquet_codecs parquet_codecs.mjs ${BB_PQ_CONVERT} $<TARGET_FILE:pq_gendump>)
bb_node_test(parquet_dataset parquet_dataset.mjs ${BB_PQ_CONVERT})
# two appenders at once (processes): the lock and the renames
set_tests_properties(parquet_dataset PROPERTIES LABELS concurrent)
# Hostile datasets: planted part names, symlinks inside, a kill at every step of an append
# (then a retry: exact rows), a bad partitioning file, a failed first append.
bb_node_test(dataset_safety dataset_safety.mjs ${BB_PQ_CONVERT})
# The duplicate-key index kept sorted; index files of older layouts (a sorted run per append,
# any order) read correctly; a rewrite of overlapping appends keeps each record once.
bb_node_test(dataset_index dataset_index.mjs ${BB_PQ_CONVERT} $<TARGET_FILE:pq_gendump>
             $<TARGET_FILE:fleet_gen>)
bb_node_test(parquet_wide parquet_wide.mjs ${BB_PQ_CONVERT_KIND} ${BB_PQ_CONVERT}
             $<TARGET_FILE:pq_gendump>)
# Many long interned strings: read back exactly, dictionary kept, budget unaffected.
# dataset_gen: a merge-shaped dump of many small instances, an instance with a hostile host
# (issue 43, findings 3-5; tests/js/dataset_hostile.mjs).
add_executable(dataset_gen ${BB_CONV_DIR}/dataset_gen.c)
target_link_libraries(dataset_gen PRIVATE backbeat)
add_executable(rusage_run ${BB_CONV_DIR}/rusage_run.c)
# Hostile datasets by shape (issue 43): 1 024 instances in one dump cost what a one-file
# conversion costs (peak RSS side by side, a part's footer lists its instance only); invalid
# UTF-8 and long host names as partition values DuckDB reads; a failed append creates nothing
# and its message keeps its reason.
bb_node_test(dataset_hostile dataset_hostile.mjs ${BB_PQ_CONVERT} $<TARGET_FILE:dataset_gen>
             $<TARGET_FILE:rusage_run>)
if(BB_SANITIZE) # a sanitizer's shadow memory and quarantine make peak RSS no measure of the code
  set_tests_properties(dataset_hostile PROPERTIES ENVIRONMENT
    "BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR};BB_TEST_SANITIZED=1")
endif()
add_executable(pq_genstrings ${BB_CONV_DIR}/pq_genstrings.c)
target_compile_definitions(pq_genstrings PRIVATE _GNU_SOURCE)
target_link_libraries(pq_genstrings PRIVATE backbeat)
bb_node_test(parquet_strings parquet_strings.mjs ${BB_PQ_CONVERT_KIND} ${BB_PQ_CONVERT}
             $<TARGET_FILE:pq_genstrings>)

# The fleet: three builds of one event set on four hosts (fleet_gen), converted one by one
# into a dataset and all at once, read as one table by DuckDB (views.sql and a plain
# read_parquet), Polars (nodejs-polars) and Arrow's Rust reader (parquet-wasm).
add_executable(fleet_gen ${BB_CONV_DIR}/fleet_gen.c)
target_link_libraries(fleet_gen PRIVATE backbeat)
bb_node_test(parquet_fleet fleet_check.mjs ${BB_PQ_CONVERT} $<TARGET_FILE:fleet_gen>)
# One Parquet schema for every part (issue 23): 3 builds x 2 hosts appended in build order and
# in reverse, plain DuckDB read_parquet and Polars scan_parquet after every append, pruning,
# --no-rewrite, kills at every step of a rewriting append then a retry.
bb_node_test(dataset_schema dataset_schema.mjs ${BB_PQ_CONVERT} $<TARGET_FILE:fleet_gen>)
# views.sql after appends of builds 1 then 2 (build 2's view set last), re-appends that add
# no row change no file.
bb_node_test(dataset_views dataset_views.mjs ${BB_PQ_CONVERT} $<TARGET_FILE:fleet_gen>)

# convert --threads N: the bytes of --threads 1 for every N (codecs, row-group cuts by rows and
# by budget, filters, the wide table, traces, datasets), the failure path; read back by DuckDB.
bb_node_test(parquet_threads parquet_threads.mjs ${BB_PQ_CONVERT} $<TARGET_FILE:pq_gendump>)
add_test(NAME convert_threads COMMAND bash ${BB_CONV_DIR}/convert_threads.sh ${BB_PQ_CONVERT}
         $<TARGET_FILE:pq_gendump> ${CMAKE_CURRENT_BINARY_DIR}/convert_threads_work)
set_tests_properties(parquet_threads convert_threads PROPERTIES LABELS concurrent)

# convert's own memory (peak RssAnon of the child) under fixed ceilings on a 5 M-record dump:
# the model keeps runs, not per-record locators, and the writers stream (issue 25).
# no-sanitize: sanitizer builds have their own shadow memory.
add_test(NAME convert_memory COMMAND bash ${BB_CONV_DIR}/convert_memory.sh ${BB_PQ_CONVERT}
         $<TARGET_FILE:pq_gendump> ${CMAKE_CURRENT_BINARY_DIR}/convert_memory_work)
set_tests_properties(convert_memory PROPERTIES LABELS "cli;no-sanitize" TIMEOUT 600)

# Log records (issue 41): the `log` view of the demo's table read back by DuckDB equals
# `backbeat log`'s lines for the same dump; a log site's string argument is its text.
bb_node_test(parquet_log parquet_log.mjs ${BB_PQ_CONVERT} $<TARGET_FILE:demo>)
