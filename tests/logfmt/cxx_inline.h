// cxx_inline.h — a log line and a record in an inline function used from two translation units
// (cxx_inline_a.cpp, cxx_inline_test.cpp): the linker keeps one copy of the function; the
// restartable sequence's descriptor of the discarded copy must go with it (a link error before).
// SPDX-License-Identifier: MIT
#ifndef BB_TEST_CXX_INLINE_H
#define BB_TEST_CXX_INLINE_H
#include "backbeat/event.h"
#include "backbeat/log.h"
#include "backbeat/recorder.h"

BB_EVENT(cxi_tick, "cxi", "Tick", NULL, BB_FIELD(uint64_t, v, NULL));

inline void cxi_both(bb_recorder *r, int v) {
    BB_LOG(r, BB_INFO, "inline %d", v);
    BB_RECORD(r, cxi_tick, .v = static_cast<uint64_t>(v));
}

void cxi_from_a(bb_recorder *r);
#endif
