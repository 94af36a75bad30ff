// cxx_inline_test.cpp — C++: an inline function holding BB_LOG and BB_RECORD, used from two
// translation units, links (the discarded copy's restartable-sequence descriptor goes with it)
// and records from both: two log lines read back, two other records.
// SPDX-License-Identifier: MIT
#include <cstring>

#include "check.h"
#include "cxx_inline.h"
#include "lines.h"

int main() {
    bb_recorder *r = bb_recorder_new(1, 1 << 20);
    bb_recorder_enable(r, true);
    cxi_from_a(r);
    cxi_both(r, 2);
    size_t n = 0, others = 0;
    test_line *l = test_log_lines(r, &n, &others);
    CHECK(l && n == 2 && others == 2, "%zu log lines, %zu other records (want 2, 2)", n, others);
    if (l && n == 2)
        CHECK(!strcmp(l[0].msg, "inline 1") && !strcmp(l[1].msg, "inline 2"), "\"%s\" \"%s\"",
              l[0].msg, l[1].msg);
    free(l);
    bb_recorder_free(r);
    return failures ? 1 : 0;
}
