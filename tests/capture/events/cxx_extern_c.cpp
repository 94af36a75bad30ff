// cxx_extern_c.cpp — event.h included inside an extern "C" block still compiles as C++17
// (its templates are declared extern "C++"). Compile-only test.
// SPDX-License-Identifier: MIT
extern "C" {
#include "backbeat/event.h"
}

BB_ENUM(xc_kind, uint16_t, (XC_A, 1, "a"));
BB_EVENT(xc_event, "cxx", "ExternC", NULL,
         BB_FIELD(uint8_t[2], raw, NULL),
         BB_ENUM_F(xc_kind, kind, NULL));
static_assert(BB_RECORD_SIZE(xc_event) == 4, "record size");
