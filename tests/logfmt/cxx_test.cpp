// cxx_test.cpp — BB_LOG from C++: every argument type including enums (plain and scoped) and
// std::string's c_str(), in a template and a lambda, read back and compared with snprintf.
// SPDX-License-Identifier: MIT
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "backbeat/log.h"
#include "check.h"
#include "lines.h"

enum plain { P_ONE = 1 };
enum class scoped : uint8_t { two = 2 };

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
    size_t n = 0;
    test_line *l = test_log_lines(r, &n, nullptr);
    CHECK(n == 4, "%zu lines", n);
    if (n == 4) {
        CHECK(!strcmp(l[0].msg, want[0]), "got %s want %s", l[0].msg, want[0]);
        CHECK(!strcmp(l[1].msg, "template 42"), "%s", l[1].msg);
        CHECK(!strcmp(l[2].msg, "template 7"), "%s", l[2].msg);
        CHECK(!strcmp(l[3].msg, "lambda 0.125") && l[3].level == BB_ERROR, "%s", l[3].msg);
    }
    free(l);
    bb_recorder_free(r);
    return failures ? 1 : 0;
}
