# Tests of the recorder (src/capture/: recorder*.c, inflight.c, clock.c, cpu.c, intern.c, span.c).
# SPDX-License-Identifier: MIT
set(BB_REC ${CMAKE_CURRENT_SOURCE_DIR}/capture/recorder)
bb_test(recorder_basic SOURCES ${BB_REC}/basic.c ${BB_REC}/rec_util.c)
# The same without rseq (glibc tunable): the CPU hint falls back to the thread-pointer hash.
add_test(NAME recorder_basic_no_rseq COMMAND recorder_basic)
set_tests_properties(recorder_basic_no_rseq PROPERTIES
  ENVIRONMENT "GLIBC_TUNABLES=glibc.pthread.rseq=0;BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR}")
bb_test(recorder_wrap SOURCES ${BB_REC}/wrap.c ${BB_REC}/rec_util.c)
bb_test(recorder_concurrent SOURCES ${BB_REC}/concurrent.c ${BB_REC}/rec_util.c LABELS concurrent)
bb_test(recorder_signal SOURCES ${BB_REC}/signal.c ${BB_REC}/rec_util.c)
bb_test(recorder_inflight_crash SOURCES ${BB_REC}/inflight_crash.c ${BB_REC}/rec_util.c)
# BACKBEAT_COMPILED_OUT: the recording macros vanish (object code compared with a twin).
foreach(v out in twin)
  add_library(bb_compiled_${v} OBJECT ${BB_REC}/compiled_out.c)
  target_include_directories(bb_compiled_${v} PRIVATE ${CMAKE_SOURCE_DIR}/include)
  target_compile_options(bb_compiled_${v} PRIVATE -O2 -ffunction-sections)
endforeach()
target_compile_definitions(bb_compiled_out PRIVATE BACKBEAT_COMPILED_OUT)
target_compile_definitions(bb_compiled_twin PRIVATE CO_TWIN)
add_test(NAME recorder_compiled_out
  COMMAND sh ${BB_REC}/check_compiled_out.sh $<TARGET_OBJECTS:bb_compiled_out>
             $<TARGET_OBJECTS:bb_compiled_twin> $<TARGET_OBJECTS:bb_compiled_in>)
bb_test(recorder_cxx SOURCES ${BB_REC}/cxx.cc)
# Concurrency without rseq: shards chosen by the thread-pointer hash.
add_test(NAME recorder_concurrent_no_rseq COMMAND recorder_concurrent)
set_tests_properties(recorder_concurrent_no_rseq PROPERTIES LABELS concurrent
  ENVIRONMENT "GLIBC_TUNABLES=glibc.pthread.rseq=0;BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR}")
# Lapped writers (200 threads on 2 shards of 16 KiB, dumping meanwhile): no wrong record in any
# dump. Not labelled concurrent: lapped writers race on ring bytes by design (TSan would say so).
bb_test(recorder_lapped SOURCES ${BB_REC}/lapped.c ${BB_REC}/rec_util.c)
# A live dump of 8 threads recording back to back keeps every shard (issue 37).
bb_test(recorder_live_complete SOURCES ${BB_REC}/live_complete.c ${BB_REC}/rec_util.c)
set_tests_properties(recorder_live_complete PROPERTIES TIMEOUT 120)
# A dump to a file written from the live rings is the dump through their copies, byte for byte.
bb_test(recorder_dump_direct INTERNAL SOURCES ${BB_REC}/dump_direct.c ${BB_REC}/rec_util.c)
# The concurrent, lapped and live-dump tests with their dumps through bb_recorder_dump_path:
# direct when no writer moves, else written again through the copies (rec_util.c).
foreach(t concurrent lapped live_complete)
  add_test(NAME recorder_${t}_file COMMAND recorder_${t})
  set_tests_properties(recorder_${t}_file PROPERTIES TIMEOUT 120
    ENVIRONMENT "REC_DUMP_DIR=${CMAKE_CURRENT_BINARY_DIR};BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR}")
endforeach()
# The copy buffer a recorder keeps across dumps leaves no bytes of another shard or dump.
bb_test(recorder_scratch_reuse SOURCES ${BB_REC}/scratch_reuse.c ${BB_REC}/rec_util.c)
set_tests_properties(recorder_scratch_reuse PROPERTIES SKIP_RETURN_CODE 77)
set_tests_properties(recorder_lapped PROPERTIES TIMEOUT 120)
# Instruction budget of one record (ptrace single-stepping; counts in insn_budget.txt). Built at
# -O2 whatever the build type, like a user's release build; the _tight twin lowers every budget
# far below the count and must fail (the budget can fail).
bb_test(recorder_insn_budget SOURCES ${BB_REC}/insn_budget.c)
target_compile_options(recorder_insn_budget PRIVATE -O2)
target_compile_definitions(recorder_insn_budget PRIVATE
  IB_BUDGET_FILE="${BB_REC}/insn_budget.txt")
add_test(NAME recorder_insn_budget_tight COMMAND recorder_insn_budget ${BB_REC}/insn_budget.txt -1)
set_tests_properties(recorder_insn_budget_tight PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME recorder_insn_budget_no_rseq COMMAND recorder_insn_budget)
set_tests_properties(recorder_insn_budget_no_rseq PROPERTIES SKIP_RETURN_CODE 77
  ENVIRONMENT "GLIBC_TUNABLES=glibc.pthread.rseq=0")
# The commit path under stress (writers on every CPU, forced migrations, signals recording,
# small and large records, the ring's end, dumps back to back): rseq where the host allows it,
# and the fetch_add fallback. Not labelled concurrent (lapped fetch_add writers race by design).
bb_test(recorder_rseq_stress SOURCES ${BB_REC}/rseq_stress.c ${BB_REC}/rec_util.c)
set_tests_properties(recorder_rseq_stress PROPERTIES TIMEOUT 120)
add_test(NAME recorder_rseq_stress_fetch_add COMMAND recorder_rseq_stress)
set_tests_properties(recorder_rseq_stress_fetch_add PROPERTIES TIMEOUT 120
  ENVIRONMENT "BACKBEAT_COMMIT=fetch_add;BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR}")
add_test(NAME recorder_lapped_fetch_add COMMAND recorder_lapped)
set_tests_properties(recorder_lapped_fetch_add PROPERTIES TIMEOUT 120
  ENVIRONMENT "BACKBEAT_COMMIT=fetch_add;BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR}")
# A host that dlopens an instrumented plugin, records through it from several threads on the
# default commit path, dlcloses it and keeps running (signals, sleeps): no crash (issue 19.1).
add_library(bb_dlclose_plugin MODULE ${BB_REC}/dlclose_plugin.c)
target_link_libraries(bb_dlclose_plugin PRIVATE backbeat)
bb_test(recorder_dlclose SOURCES ${BB_REC}/dlclose_host.c ${BB_REC}/rec_util.c
        LIBS ${CMAKE_DL_LIBS})
target_compile_definitions(recorder_dlclose PRIVATE
                           DC_PLUGIN_PATH="$<TARGET_FILE:bb_dlclose_plugin>")
add_dependencies(recorder_dlclose bb_dlclose_plugin)
set_tests_properties(recorder_dlclose PROPERTIES TIMEOUT 120)
# A quiescent full ring dumped on the rseq path keeps every record of its window but the one
# the last copy's word padding may overlap (issue 25; src/format/rseq_margin.c).
bb_test(recorder_rseq_margin SOURCES ${BB_REC}/rseq_margin.c ${BB_REC}/rec_util.c)
# Intern generations (issue 38): 2 M distinct strings through a 4096-string table. Not labelled
# concurrent: its racing threads lap a 16 KiB ring while it is dumped (TSan would say so).
bb_test(recorder_intern_gens SOURCES ${BB_REC}/intern_gens.c ${BB_REC}/rec_util.c)
# A dump's Intern section holds exactly the ids its records name (issue 38), for dumps to
# memory, to a path and the signal-safe one, while the table turns generations over ~400 times.
bb_test(recorder_intern_exact SOURCES ${BB_REC}/intern_exact.c ${BB_REC}/rec_util.c)
# The default table keeps what two full rings written on two CPUs name (issue 38, from outside).
bb_test(recorder_intern_default SOURCES ${BB_REC}/intern_default.c ${BB_REC}/rec_util.c)
