# Tests of event definition (include/backbeat/event.h), event ids and the registry.
set(BB_EV ${CMAKE_CURRENT_SOURCE_DIR}/capture/events)
set(BB_EV_FLAGS -std=gnu11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only)
set(BB_EV_CXXFLAGS -x c++ -std=c++17 -Wall -Wextra -Wpedantic -Werror -fsyntax-only)

bb_test(events_ids SOURCES ${BB_EV}/ids.c)
bb_test(events_fixtures SOURCES ${BB_EV}/fixtures.c)

# Compile-fail tests: the compiler runs on a small file and must fail with the layout error's
# message (the regex names the event and the problem; `.?` absorbs gcc's \' quoting), once as
# C and once as C++17.
function(bb_compile_fail name regex)
  add_test(NAME events_${name}_c
           COMMAND ${CMAKE_C_COMPILER} ${BB_EV_FLAGS} -I${CMAKE_SOURCE_DIR}/include
                   ${BB_EV}/${name}.c)
  add_test(NAME events_${name}_cxx
           COMMAND ${CMAKE_CXX_COMPILER} ${BB_EV_CXXFLAGS} -I${CMAKE_SOURCE_DIR}/include
                   ${BB_EV}/${name}.c)
  set_tests_properties(events_${name}_c events_${name}_cxx PROPERTIES
                       PASS_REGULAR_EXPRESSION "${regex}")
endfunction()
set(Q ".?'")
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
# The control: the same flags accept a correct file (so the failures above are the checks).
add_test(NAME events_compile_ok_c
         COMMAND ${CMAKE_C_COMPILER} ${BB_EV_FLAGS} -I${CMAKE_SOURCE_DIR}/include ${BB_EV}/fail_ok.c)
add_test(NAME events_compile_ok_cxx
         COMMAND ${CMAKE_CXX_COMPILER} ${BB_EV_CXXFLAGS} -I${CMAKE_SOURCE_DIR}/include
                 ${BB_EV}/fail_ok.c)

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
add_test(NAME events_compile_cxx_extern_c
         COMMAND ${CMAKE_CXX_COMPILER} ${BB_EV_CXXFLAGS} -I${CMAKE_SOURCE_DIR}/include
                 ${BB_EV}/cxx_extern_c.cpp)
