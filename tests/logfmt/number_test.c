/* number_test.c — lf_number (src/logfmt/number.c) against snprintf: every combination of the
 * flags - + ' ' # 0, widths, precisions, conversions d i u o x X and values at the edges. */
/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "logfmt/logfmt.h"

int main(void) {
    static const int64_t values[] = {
        0, 1, -1, 7, 8, 10, -10, 255, 4096, -123456789, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN};
    static const char convs[] = "diuoxX";
    static const int widths[] = {-1, 0, 1, 5, 24};
    static const int precs[] = {-1, 0, 1, 3, 22};
    static const char flag_chars[] = "-+ #0";
    size_t checked = 0;
    for (size_t c = 0; c < sizeof convs - 1; c++)
        for (unsigned fl = 0; fl < 32; fl++)
            for (size_t w = 0; w < sizeof widths / sizeof *widths; w++)
                for (size_t p = 0; p < sizeof precs / sizeof *precs; p++)
                    for (size_t v = 0; v < sizeof values / sizeof *values; v++) {
                        char f[32], want[128], got[128];
                        int n = 0;
                        f[n++] = '%';
                        for (int k = 0; k < 5; k++)
                            if (fl >> k & 1) f[n++] = flag_chars[k];
                        if (widths[w] >= 0) n += sprintf(f + n, "%d", widths[w]);
                        if (precs[p] >= 0) n += sprintf(f + n, ".%d", precs[p]);
                        sprintf(f + n, "ll%c", convs[c]);
                        bool sgn = convs[c] == 'd' || convs[c] == 'i';
                        int64_t x = values[v];
                        if (sgn) snprintf(want, sizeof want, f, (long long)x);
                        else snprintf(want, sizeof want, f, (unsigned long long)x);
                        lf_numspec sp = {fl & 1,      fl >> 1 & 1, fl >> 2 & 1, fl >> 3 & 1,
                                         fl >> 4 & 1, widths[w],   precs[p],    convs[c]};
                        bool neg = sgn && x < 0;
                        uint64_t mag = neg ? 0 - (uint64_t)x : (uint64_t)x;
                        size_t len = lf_number(&sp, neg, mag, got, sizeof got - 1);
                        got[len] = '\0';
                        CHECK(!strcmp(got, want), "%s of %" PRId64 ": got \"%s\" want \"%s\"", f, x,
                              got, want);
                        checked++;
                    }
    /* A short buffer: the first cap bytes, as snprintf would keep them. */
    char small[4];
    lf_numspec sp = {false, false, false, false, false, 10, -1, 'd'};
    CHECK(lf_number(&sp, false, 42, small, sizeof small) == sizeof small, "bounded");
    CHECK(!memcmp(small, "    ", 4), "bounded text");
    printf("number_test: %zu conversions compared with snprintf\n", checked);
    return failures ? 1 : 0;
}
