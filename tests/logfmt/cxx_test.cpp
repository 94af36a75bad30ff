// cxx_test.cpp — BB_LOG from C++: every argument type including enums (plain and scoped, and a
// BB_ENUM through BB_E, read as its label) and std::string's c_str(), in a template and a lambda,
// read back and compared with snprintf.
// SPDX-License-Identifier: MIT
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "backbeat/event.h"
#include "backbeat/log.h"
#include "check.h"
#include "lines.h"

enum plain { P_ONE = 1 };
enum class scoped : uint8_t { two = 2 };
BB_ENUM(cx_phase, int32_t, (CX_START, -1, "start"), (CX_RUN, 3, "running"));

template <class T> static void log_value(bb_recorder *r, T v) {
    BB_LOG(r, BB_DEBUG, "template %lld", static_cast<long long>(v));
}

int main() {
    bb_recorder *r = bb_recorder_new(1, 1 << 20);
    bb_recorder_enable(r, true);
    bb_log_level_set(BB_TRACE);
    std::string s = "a std::string";
    char want[4][256];
    BB_LOG(r, BB_INFO, "%d %u %hhd %s %p %.2f %c %s", P_ONE, static_cast<unsigned>(scoped::two),
           static_cast<signed char>(-3), s.c_str(), static_cast<void *>(nullptr), 2.5, 'x',
           BB_I("interned"));
    snprintf(want[0], sizeof want[0], "%d %u %hhd %s %p %.2f %c %s", P_ONE,
             static_cast<unsigned>(scoped::two), static_cast<signed char>(-3), s.c_str(),
             static_cast<void *>(nullptr), 2.5, 'x', "interned");
    log_value(r, 42);
    log_value(r, uint16_t(7));
    auto lam = [r](double d) { BB_LOG(r, BB_ERROR, "lambda %g", d); };
    lam(0.125);
    cx_phase ph = CX_START;
    int calls = 0;
    auto next = [&calls]() { return ++calls; };
    BB_LOG(r, BB_INFO, "phase %d [%-9d] %u %x n=%d", BB_E(cx_phase, ph), BB_E(cx_phase, CX_RUN),
           BB_E(cx_phase, -7), BB_E(cx_phase, CX_RUN), BB_E(cx_phase, next()));
    size_t n = 0;
    test_line *l = test_log_lines(r, &n, nullptr);
    CHECK(calls == 1, "BB_E's value evaluated %d times", calls);
    CHECK(n == 5, "%zu lines", n);
    if (n == 5) {
        CHECK(!strcmp(l[4].msg, "phase start [running  ] 4294967289 3 n=1"), "%s", l[4].msg);
        CHECK(!strcmp(l[0].msg, want[0]), "got %s want %s", l[0].msg, want[0]);
        CHECK(!strcmp(l[1].msg, "template 42"), "%s", l[1].msg);
        CHECK(!strcmp(l[2].msg, "template 7"), "%s", l[2].msg);
        CHECK(!strcmp(l[3].msg, "lambda 0.125") && l[3].level == BB_ERROR, "%s", l[3].msg);
    }
    free(l);
    bb_recorder_free(r);
    return failures ? 1 : 0;
}
