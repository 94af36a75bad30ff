# The README's first example must build, run and write a dump the CLI reads back with the
# event it recorded.
# SPDX-License-Identifier: MIT
add_test(NAME readme_example
         COMMAND sh -c "$<TARGET_FILE:hello> \"$1\" && $<TARGET_FILE:backbeat_cli> convert \"$1\" -f trace -o - | grep -c '\"name\":\"my_app::net::PacketSent\"' | grep -qx 3"
                 sh ${CMAKE_CURRENT_BINARY_DIR}/readme_example.bb)
# The user guide's asynchronous-span example (docs/guide/instrument.md): three requests whose
# exits come from another callback, in another order, make three complete slices in the trace.
add_test(NAME readme_async_span
         COMMAND sh -c "$<TARGET_FILE:async_span> \"$1\" && $<TARGET_FILE:backbeat_cli> convert \"$1\" -f trace -o - | grep -c '\"ph\":\"X\".*\"name\":\"my_app::rpc::Request\"' | grep -qx 3"
                 sh ${CMAKE_CURRENT_BINARY_DIR}/readme_async_span.bb)
