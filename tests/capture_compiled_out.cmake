# BACKBEAT_COMPILED_OUT keeps type-checking every record and span macro while emitting nothing:
# the demo (which uses all of them) compiles warning-free that way, and a misspelled span field
# is still a compile error.
# SPDX-License-Identifier: MIT
set(BB_CO_FLAGS -std=gnu11 -Wall -Wextra -Wpedantic -Werror -D_GNU_SOURCE -DBACKBEAT_COMPILED_OUT
    -I${CMAKE_SOURCE_DIR}/include -fsyntax-only)
add_test(NAME compiled_out_demo_clean
         COMMAND ${CMAKE_C_COMPILER} ${BB_CO_FLAGS} ${CMAKE_SOURCE_DIR}/examples/demo.c)
add_test(NAME compiled_out_span_typecheck
         COMMAND ${CMAKE_C_COMPILER} ${BB_CO_FLAGS} ${CMAKE_CURRENT_SOURCE_DIR}/capture/recorder/fail_co_span_field.c)
set_tests_properties(compiled_out_span_typecheck PROPERTIES WILL_FAIL FALSE
                     PASS_REGULAR_EXPRESSION "(no member named|field designator).*no_such_field")
