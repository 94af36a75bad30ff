# Tests of file-backed rings and `backbeat recover` (issue 12, docs/RING_FILE.md): end-to-end
# scenarios that SIGKILL a real child (tests/capture/ring/), unit tests of damaged ring files,
# and the ring file fuzz target's smoke run.
# SPDX-License-Identifier: MIT
set(BB_RING_DIR ${CMAKE_CURRENT_SOURCE_DIR}/capture/ring)
add_library(bb_ring_plugin MODULE ${BB_RING_DIR}/ring_plugin.c)
target_link_libraries(bb_ring_plugin PRIVATE backbeat)
add_executable(ring_child ${BB_RING_DIR}/ring_child.c)
target_compile_definitions(ring_child PRIVATE _GNU_SOURCE)
target_link_libraries(ring_child PRIVATE backbeat Threads::Threads ${CMAKE_DL_LIBS})
bb_test(ring_api SOURCES ${BB_RING_DIR}/ring_api_test.c)

if(TARGET backbeat_cli)
  add_executable(ring_e2e ${BB_RING_DIR}/ring_e2e.c ${BB_RING_DIR}/ring_proc.c)
  target_link_libraries(ring_e2e PRIVATE backbeat backbeat_read bb_test_support Threads::Threads)
  target_compile_definitions(ring_e2e PRIVATE _GNU_SOURCE BB_CLI="$<TARGET_FILE:backbeat_cli>"
    BB_RING_CHILD="$<TARGET_FILE:ring_child>" BB_RING_PLUGIN="$<TARGET_FILE:bb_ring_plugin>")
  target_include_directories(ring_e2e PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_compile_options(ring_e2e PRIVATE $<$<C_COMPILER_ID:GNU>:-Wno-format-truncation>)
  add_dependencies(ring_e2e backbeat_cli ring_child bb_ring_plugin)
  foreach(sc heavy shared plugin churn live crash exit keep fallback fork cli oom)
    add_test(NAME ring_e2e_${sc} COMMAND ring_e2e ${sc})
    set(labels "")
    if(sc MATCHES "heavy|shared|churn")
      set(labels concurrent)
    endif()
    set_tests_properties(ring_e2e_${sc} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180
      LABELS "${labels}")
  endforeach()
endif()

# Damaged ring files, and the fuzz target's smoke run (fuzz/fuzz_ringfile.c over a ring file
# this process writes and fixed-seed mutants of it). -DBB_FUZZ=ON with clang also builds the
# libFuzzer target: build/tests/fuzz_ringfile [corpus dir].
bb_test(ringfile_fuzz_smoke INTERNAL SOURCES ${CMAKE_SOURCE_DIR}/fuzz/fuzz_ringfile.c
        ${CMAKE_CURRENT_SOURCE_DIR}/cli/ringfile_fuzz_smoke.c LIBS bb_cli_parts)
if(BB_FUZZ)
  add_executable(fuzz_ringfile ${CMAKE_SOURCE_DIR}/fuzz/fuzz_ringfile.c)
  target_include_directories(fuzz_ringfile PRIVATE ${CMAKE_SOURCE_DIR}/include ${CMAKE_SOURCE_DIR}/src)
  target_compile_definitions(fuzz_ringfile PRIVATE _GNU_SOURCE)
  target_compile_options(fuzz_ringfile PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_options(fuzz_ringfile PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_ringfile PRIVATE bb_cli_parts Threads::Threads ${CMAKE_DL_LIBS})
endif()

# Reading the ring file of a running process (issue 19.3): 8 writer threads, small rings, the
# live file read again and again by the library (snapshot, follow) and `recover --force`;
# every record checked against its writer's counter, 20 rounds.
if(TARGET backbeat_cli)
  add_executable(ring_live_test ${CMAKE_CURRENT_SOURCE_DIR}/read/ring_live_test.c
                 ${BB_RING_DIR}/ring_proc.c)
  target_link_libraries(ring_live_test PRIVATE backbeat_read bb_test_support Threads::Threads)
  target_compile_definitions(ring_live_test PRIVATE _GNU_SOURCE BB_CLI="$<TARGET_FILE:backbeat_cli>"
    BB_RING_CHILD="$<TARGET_FILE:ring_child>")
  add_dependencies(ring_live_test backbeat_cli ring_child)
  add_test(NAME ring_live_reads COMMAND ring_live_test)
  set_tests_properties(ring_live_reads PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 240 LABELS concurrent)
endif()

# A snapshot of a running process's ring file without SCHED_FIFO (BACKBEAT_LIVE_RT=0, what an
# unprivileged reader gets) keeps every ring: 8 writers on 2 x 16 MiB, 4 snapshots, each ring
# over 90 % of its window, nothing torn or twice (issue 37: the catch-up rounds, the copy oldest
# first, one SEEK_HOLE per copy).
if(TARGET backbeat_cli)
  add_executable(ring_live_complete_test ${CMAKE_CURRENT_SOURCE_DIR}/read/ring_live_complete_test.c
                 ${BB_RING_DIR}/ring_proc.c)
  target_link_libraries(ring_live_complete_test PRIVATE backbeat_read bb_test_support
                        Threads::Threads)
  target_compile_definitions(ring_live_complete_test PRIVATE _GNU_SOURCE
    BB_RING_CHILD="$<TARGET_FILE:ring_child>")
  add_dependencies(ring_live_complete_test ring_child)
  add_test(NAME ring_live_complete COMMAND ring_live_complete_test)
  set_tests_properties(ring_live_complete PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
  # the same with 2 x 64 MiB: a copy longer than a time slice (issue 37: 3-33 % kept before)
  add_test(NAME ring_live_complete_64 COMMAND ring_live_complete_test 64)
  set_tests_properties(ring_live_complete_64 PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
endif()

# A follower at position 0 (it started on an empty ring) lapped before its next call: the bytes
# lost are reported, nothing returned twice or invented (issue 22). In-process, deterministic.
add_executable(ring_follow_lap_test ${CMAKE_CURRENT_SOURCE_DIR}/read/ring_follow_lap_test.c)
target_link_libraries(ring_follow_lap_test PRIVATE backbeat backbeat_read)
target_compile_definitions(ring_follow_lap_test PRIVATE _GNU_SOURCE)
add_test(NAME ring_follow_lapped_at_zero COMMAND ring_follow_lap_test)
set_tests_properties(ring_follow_lapped_at_zero PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)

# The record-level follow call (issue 37): records equal to those written and to the dump
# path's across many calls, laps counted exactly, no torn record under a writer thread
# (concurrent: TSan too), interned strings through recycled generations.
add_executable(ring_follow_records_test ${CMAKE_CURRENT_SOURCE_DIR}/read/ring_follow_records_test.c)
target_link_libraries(ring_follow_records_test PRIVATE backbeat backbeat_read Threads::Threads)
target_compile_definitions(ring_follow_records_test PRIVATE _GNU_SOURCE)
foreach(sc exact lap live intern)
  add_test(NAME ring_follow_records_${sc} COMMAND ring_follow_records_test ${sc})
  set(labels "")
  if(sc STREQUAL "live")
    set(labels concurrent) # a writer thread and a follower in one process
  endif()
  set_tests_properties(ring_follow_records_${sc} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60
    LABELS "${labels}")
endforeach()

# Crafted ring files with a time and RSS ceiling per CLI run (issue 19.4: every announcement
# claiming the whole ring, a sparse 8 GiB file) and FIFOs as inputs (19.5).
if(TARGET backbeat_cli)
  add_executable(ring_hostile_test ${CMAKE_CURRENT_SOURCE_DIR}/read/ring_hostile_test.c)
  target_link_libraries(ring_hostile_test PRIVATE backbeat backbeat_read)
  target_include_directories(ring_hostile_test PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_compile_definitions(ring_hostile_test PRIVATE _GNU_SOURCE BB_CLI="$<TARGET_FILE:backbeat_cli>")
  add_dependencies(ring_hostile_test backbeat_cli)
  add_test(NAME ring_hostile_files COMMAND ring_hostile_test)
  set_tests_properties(ring_hostile_files PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()

# `backbeat tail` over running and dead processes (issue 22): every printed record checked
# against its writer, a schema registered mid-run, exit after drain, SIGINT, a dead file; the
# follow latency is printed.
if(TARGET backbeat_cli)
  add_executable(tail_test ${CMAKE_CURRENT_SOURCE_DIR}/cli/tail_test.c ${BB_RING_DIR}/ring_proc.c)
  target_link_libraries(tail_test PRIVATE bb_test_support Threads::Threads)
  target_compile_definitions(tail_test PRIVATE _GNU_SOURCE BB_CLI="$<TARGET_FILE:backbeat_cli>"
    BB_RING_CHILD="$<TARGET_FILE:ring_child>" BB_RING_PLUGIN="$<TARGET_FILE:bb_ring_plugin>")
  add_dependencies(tail_test backbeat_cli ring_child bb_ring_plugin)
  target_include_directories(tail_test PRIVATE ${CMAKE_SOURCE_DIR}/src)
  foreach(sc follow flood dead truncated rewritten headjump)
    add_test(NAME cli_tail_${sc} COMMAND tail_test ${sc})
    # TSAN_OPTIONS: a read of a truncated mapping that faults inside TSan's own atomic load
    # is taken by TSan's deadly-signal handler ("BUS on unknown address", exit 66) before the
    # reader's SIGBUS guard; handle_sigbus=0 leaves SIGBUS to the program, as in other builds.
    set_tests_properties(cli_tail_${sc} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120 LABELS concurrent
      ENVIRONMENT "TSAN_OPTIONS=handle_sigbus=0")
  endforeach()
endif()

# bb_ring_snapshot_extra_fd (what `backbeat watch` writes): records a reader adds to a ring
# file's snapshot, in a Shard of their own, with their schemas and strings.
bb_test(ring_extra SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/read/ring_extra_test.c)
# The follow buffers made ready while a running writer is quiet (issue 37): none while it moves,
# charged to the process's budget once, given back on close, none for a file read once.
bb_test(ring_follow_ready INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/read/ring_follow_ready_test.c)
add_executable(ring_follow_slow_test ${CMAKE_CURRENT_SOURCE_DIR}/read/ring_follow_slow_test.c)
target_link_libraries(ring_follow_slow_test PRIVATE backbeat backbeat_read)
target_compile_definitions(ring_follow_slow_test PRIVATE _GNU_SOURCE)
add_test(NAME ring_follow_slow COMMAND ring_follow_slow_test)
set_tests_properties(ring_follow_slow PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 60)

# A ring-file recorder's intern table in generations (issue 38): 1 000 000 distinct strings
# through a 4096-string table; the file recovered after SIGKILL and a live follower resolve
# every record's own string; a storage recycled under the reader never yields another string;
# a version 2 file still reads.
if(TARGET backbeat_cli)
  add_executable(ring_intern_gens ${BB_RING_DIR}/ring_intern_gens.c)
  target_link_libraries(ring_intern_gens PRIVATE backbeat backbeat_read Threads::Threads)
  target_include_directories(ring_intern_gens PRIVATE ${CMAKE_SOURCE_DIR}/src)
  target_compile_definitions(ring_intern_gens PRIVATE _GNU_SOURCE BB_CLI="$<TARGET_FILE:backbeat_cli>")
  add_dependencies(ring_intern_gens backbeat_cli)
  foreach(sc recover follow compat)
    add_test(NAME ring_intern_gens_${sc} COMMAND ring_intern_gens ${sc})
    set(labels "")
    if(sc STREQUAL "follow")
      set(labels concurrent) # a writer thread and a follower in one process (TSan too)
    endif()
    set_tests_properties(ring_intern_gens_${sc} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
      LABELS "${labels}")
  endforeach()
endif()
