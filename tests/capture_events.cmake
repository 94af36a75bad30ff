# Tests of event definition (include/backbeat/event.h), event ids and the registry.
# SPDX-License-Identifier: MIT
set(BB_EV ${CMAKE_CURRENT_SOURCE_DIR}/capture/events)
set(BB_EV_FLAGS -std=gnu11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only)
set(BB_EV_CXXFLAGS -x c++ -std=c++17 -Wall -Wextra -Wpedantic -Werror -fsyntax-only)

bb_test(events_ids SOURCES ${BB_EV}/ids.c)
bb_test(events_fixtures SOURCES ${BB_EV}/fixtures.c)

# Compile-fail tests: the compiler runs on a small file, once as C and once as C++17, and must
# fail with a FIRST error line (first_error.sh) that is at the file's line marked
# /* EXPECT-ERROR */ and matches the regex (which names the event and the problem; `.?`
# absorbs gcc's \' quoting).
set(BB_EV_FIRST_ERROR sh ${BB_EV}/first_error.sh)
function(bb_compile_fail name regex)
  add_test(NAME events_${name}_c
           COMMAND ${BB_EV_FIRST_ERROR} ${CMAKE_C_COMPILER} ${BB_EV_FLAGS}
                   -I${CMAKE_SOURCE_DIR}/include -- ${BB_EV}/${name}.c "${regex}")
  add_test(NAME events_${name}_cxx
           COMMAND ${BB_EV_FIRST_ERROR} ${CMAKE_CXX_COMPILER} ${BB_EV_CXXFLAGS}
                   -I${CMAKE_SOURCE_DIR}/include -- ${BB_EV}/${name}.c "${regex}")
endfunction()
set(Q ".?'")
# The layout errors (at the BB_EVENT / BB_ENUM line).
bb_compile_fail(fail_padding
  "event ${Q}bad_padding${Q}: implicit padding before field ${Q}b${Q}")
bb_compile_fail(fail_tail_padding "event ${Q}bad_tail${Q}: implicit padding at the end")
bb_compile_fail(fail_span_missing
  "event ${Q}bad_span_missing${Q}: a span enter/exit event needs exactly one BB_SPAN_ID")
bb_compile_fail(fail_span_twice
  "event ${Q}bad_span_twice${Q}: a span enter/exit event needs exactly one BB_SPAN_ID")
bb_compile_fail(fail_span_type
  "event ${Q}bad_span_type${Q}: span_id field ${Q}span${Q} must be uint64_t")
bb_compile_fail(fail_parent_type
  "event ${Q}bad_parent_type${Q}: parent_span_id field ${Q}parent${Q} must be uint64_t")
bb_compile_fail(fail_sentinel_bool
  "event ${Q}bad_sentinel_bool${Q}: sentinel on non-integer field ${Q}flag${Q}")
bb_compile_fail(fail_sentinel_bytes
  "event ${Q}bad_sentinel_bytes${Q}: sentinel on non-integer field ${Q}digest${Q}")
bb_compile_fail(fail_too_large
  "event ${Q}bad_too_large${Q}: record larger than BB_MAX_RECORD_SIZE")
bb_compile_fail(fail_type "event ${Q}bad_type${Q}: field ${Q}ratio${Q} has an unsupported type")
bb_compile_fail(fail_enum_range
  "enum ${Q}bad_range${Q}: the value of BAD_BIG does not fit the repr type")
bb_compile_fail(fail_two_units
  "event ${Q}bad_two_units${Q}: field ${Q}len${Q} has more than one BB_UNIT or BB_SENTINEL")
# Slips in the macros' arguments (at the field's line where a field macro is at fault).
bb_compile_fail(fail_no_desc
  "event ${Q}ev_no_desc${Q}: field ${Q}x${Q}: the description is missing")
bb_compile_fail(fail_field_few
  "event ${Q}ev_field_few${Q}: field \\(uint32_t\\): the name and the description are missing")
bb_compile_fail(fail_extra_arg
  "event ${Q}ev_extra_arg${Q}: field ${Q}x${Q}: ${Q}.*extra.*${Q} is not an option")
bb_compile_fail(fail_span_args
  "event ${Q}ev_span_args${Q}: field \\(uint64_t, span, .*\\): wrong number of arguments; the form is BB_SPAN_ID")
bb_compile_fail(fail_misspelled
  "event ${Q}ev_misspelled${Q}: ${Q}BB_FEILD\\(uint64_t, x, .*\\)${Q} is not a field macro")
bb_compile_fail(fail_option_place
  "event ${Q}ev_option_place${Q}: an option \\(BB_UNIT or BB_SENTINEL\\) is given as a field")
bb_compile_fail(fail_option_first
  "event ${Q}ev_option_first${Q}: field ${Q}ms${Q}: the description is missing or after an option")
bb_compile_fail(fail_event_args
  "event ${Q}ev_event_args${Q}: argument 4 must be the description")
bb_compile_fail(fail_event_few "BB_EVENT\\(ev_event_few, \\.\\.\\.\\): too few arguments")
# The control: the same flags accept a correct file (so the failures above are the checks).
add_test(NAME events_compile_ok_c
         COMMAND ${CMAKE_C_COMPILER} ${BB_EV_FLAGS} -I${CMAKE_SOURCE_DIR}/include ${BB_EV}/fail_ok.c)
add_test(NAME events_compile_ok_cxx
         COMMAND ${CMAKE_CXX_COMPILER} ${BB_EV_CXXFLAGS} -I${CMAKE_SOURCE_DIR}/include
                 ${BB_EV}/fail_ok.c)
# event.h and detail/event_*.h are system headers (so that diagnostics land at the user's line);
# BB__EVENT_NOT_SYSTEM_HEADER compiles them as ordinary headers: the machinery is warning-free.
foreach(src fail_ok freestanding)
  add_test(NAME events_header_warnings_${src}_c
           COMMAND ${CMAKE_C_COMPILER} ${BB_EV_FLAGS} -DBB__EVENT_NOT_SYSTEM_HEADER
                   -I${CMAKE_SOURCE_DIR}/include ${BB_EV}/${src}.c)
  add_test(NAME events_header_warnings_${src}_cxx
           COMMAND ${CMAKE_CXX_COMPILER} ${BB_EV_CXXFLAGS} -DBB__EVENT_NOT_SYSTEM_HEADER
                   -I${CMAKE_SOURCE_DIR}/include ${BB_EV}/${src}.c)
endforeach()

# The generated maps are what the generator makes: run it to a temporary file and compare.
find_package(Python3 COMPONENTS Interpreter REQUIRED)
add_test(NAME events_map_generated
         COMMAND sh -c "\"$0\" \"$1\" -o \"$2\" && diff -u \"$3\" \"$2\""
                 ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/gen-event-maps.py
                 ${CMAKE_CURRENT_BINARY_DIR}/event_map.generated.h
                 ${CMAKE_SOURCE_DIR}/include/backbeat/detail/event_map.h)

# Freestanding: only the compiler's own headers are on the include path.
foreach(lang C CXX)
  execute_process(COMMAND ${CMAKE_${lang}_COMPILER} -print-file-name=include
                  OUTPUT_VARIABLE BB_EV_CC_INCLUDE OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(lang STREQUAL "C")
    set(flags ${BB_EV_FLAGS})
  else()
    set(flags ${BB_EV_CXXFLAGS})
  endif()
  add_test(NAME events_freestanding_${lang}
           COMMAND ${CMAKE_${lang}_COMPILER} ${flags} -ffreestanding -nostdinc
                   -isystem ${BB_EV_CC_INCLUDE} -I${CMAKE_SOURCE_DIR}/include
                   ${BB_EV}/freestanding.c)
endforeach()

# C++17: compile and run.
bb_test(events_cxx SOURCES ${BB_EV}/cxx.cpp)
target_include_directories(events_cxx PRIVATE ${BB_EV})

# Registration from every kind of object: executable, shared library, static library, plugin.
add_library(bb_events_shlib SHARED ${BB_EV}/shlib_events.c)
target_link_libraries(bb_events_shlib PRIVATE backbeat)
add_library(bb_events_staticlib STATIC ${BB_EV}/static_events.c)
target_link_libraries(bb_events_staticlib PRIVATE backbeat)
add_library(bb_events_plugin MODULE ${BB_EV}/plugin.c)
target_link_libraries(bb_events_plugin PRIVATE backbeat)
bb_test(events_objects SOURCES ${BB_EV}/objects.c LIBS bb_events_shlib bb_events_staticlib)
target_compile_definitions(events_objects PRIVATE
                           BB_PLUGIN_PATH="$<TARGET_FILE:bb_events_plugin>")
add_dependencies(events_objects bb_events_plugin)

# The registry's contract, and its concurrency (TSan runs the `concurrent` label).
bb_test(events_registry SOURCES ${BB_EV}/registry.c)
bb_test(events_registry_threads SOURCES ${BB_EV}/registry_threads.c LABELS concurrent)

# Round trips: every field type, role, enum width, sentinel, interned kind, span phase and a
# zero-field marker, written to a dump and read back.
bb_test(events_roundtrip_dump SOURCES ${BB_EV}/roundtrip_dump.c ${BB_EV}/roundtrip_check.c)
bb_test(events_roundtrip_recorder SOURCES ${BB_EV}/roundtrip_recorder.c ${BB_EV}/roundtrip_check.c)
# fork() while other threads modify the registry (not under TSan: fork in a multithreaded
# program is outside what its runtime supports well).
bb_test(events_registry_fork SOURCES ${BB_EV}/registry_fork.c)
# Under ASan the child's exit-time leak check (LSan's LockAllocator) waits forever on an
# allocator lock a churner held at fork: clang 14's allocator takes no lock around fork, and the
# registry's remove mallocs its unloaded copies (gdb on a stuck child: __lsan::LockAllocator <-
# CheckForLeaks <- exit; about 1 run in 5). The registry's own lock is released in the child
# (pthread_atfork in registry.c), which is what this test checks; leaks are checked elsewhere.
if(BB_SANITIZE MATCHES "address")
  set_tests_properties(events_registry_fork PROPERTIES ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()
add_test(NAME events_compile_cxx_extern_c
         COMMAND ${CMAKE_CXX_COMPILER} ${BB_EV_CXXFLAGS} -I${CMAKE_SOURCE_DIR}/include
                 ${BB_EV}/cxx_extern_c.cpp)

# Strict standard modes: the public headers, the README's example, the guide's asynchronous-span
# example and a translation unit using every feature compile warning-free (as errors) as
# C99/C11/C17/gnu99/gnu11/gnu17/gnu2x and C++11/14/17/20 with gcc and clang (those installed), no
# feature-test macro defined.
find_program(BB_STRICT_GCC gcc)
find_program(BB_STRICT_CLANG clang)
find_program(BB_STRICT_GXX g++)
find_program(BB_STRICT_CLANGXX clang++)
string(JOIN " " BB_STRICT_CCS ${BB_STRICT_GCC} ${BB_STRICT_CLANG})
string(JOIN " " BB_STRICT_CXXS ${BB_STRICT_GXX} ${BB_STRICT_CLANGXX})
add_test(NAME events_strict_modes
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/capture/strict/strict_modes.sh
                 ${CMAKE_SOURCE_DIR}/include "${BB_STRICT_CCS}" "${BB_STRICT_CXXS}"
                 ${CMAKE_CURRENT_SOURCE_DIR}/capture/strict/all_features.c
                 ${CMAKE_CURRENT_SOURCE_DIR}/capture/strict/log_features.c
                 ${CMAKE_SOURCE_DIR}/examples/hello.c ${CMAKE_SOURCE_DIR}/examples/async_span.c)

# BB_VIEWS in a header included by three files: one view set in snapshots and dumps.
bb_test(views_dedup SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/capture/views/views_dedup.c
        ${CMAKE_CURRENT_SOURCE_DIR}/capture/views/tu_a.c ${CMAKE_CURRENT_SOURCE_DIR}/capture/views/tu_b.c)
