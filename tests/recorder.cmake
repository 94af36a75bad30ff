# Tests of the recorder (src/lib/recorder*.c, clock.c, cpu.c, intern.c, span.c).
set(BB_REC ${CMAKE_CURRENT_SOURCE_DIR}/recorder)
bb_test(recorder_basic SOURCES ${BB_REC}/basic.c ${BB_REC}/rec_util.c)
# The same without rseq (glibc tunable): the CPU hint falls back to the thread-pointer hash.
add_test(NAME recorder_basic_no_rseq COMMAND recorder_basic)
set_tests_properties(recorder_basic_no_rseq PROPERTIES
  ENVIRONMENT "GLIBC_TUNABLES=glibc.pthread.rseq=0;BACKBEAT_COMPAT_DIR=${BB_TEST_COMPAT_DIR}")
bb_test(recorder_wrap SOURCES ${BB_REC}/wrap.c ${BB_REC}/rec_util.c)
bb_test(recorder_concurrent SOURCES ${BB_REC}/concurrent.c ${BB_REC}/rec_util.c LABELS concurrent)
