/* log_features.c — every kind of log.h argument in one translation unit, for the strict-mode
 * matrix (strict_modes.sh): C99..C2x and C++11..20, -pedantic -Werror -Wconversion. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"
#include "backbeat/log.h"

BB_ENUM(lf_state, int16_t, (LF_IDLE, -1, "idle"), (LF_BUSY, 1, "busy"));

void log_features(bb_recorder *r, const char *s, char *m, void *p);
void log_features(bb_recorder *r, const char *s, char *m, void *p) {
    char arr[8] = "abc";
    signed char sc = -1;
    unsigned char uc = 1;
    short sh = -2;
    unsigned short us = 2;
    long l = -3;
    unsigned long ul = 3;
    long long ll = -4;
    unsigned long long ull = 4;
    float f = 1.5f;
    long double ld = 2.5L;
    bool b = true;
    BB_LOG(r, BB_TRACE, "no arguments");
    BB_LOG(r, BB_DEBUG, "%c %hhd %hhu %hd %hu %d %u", 'c', sc, uc, sh, us, -5, 5u);
    BB_LOG(r, BB_INFO, "%ld %lu %lld %llu %f %Lf %d", l, ul, ll, ull, (double)f, ld, b);
    BB_LOG(r, BB_WARN, "%s %s %s %p %p %s", s, m, arr, p, (const void *)s, BB_I(s));
    BB_GLOG(BB_ERROR, "%g %d %u", 1.0, BB_E(lf_state, LF_BUSY), BB_E(lf_state, sh));
    BB_GLOG(BB_FATAL, "%d %d %d %d %d %d %d %d %d %d %d %d %d %d %d %d", 1, 2, 3, 4, 5, 6, 7, 8, 9,
            10, 11, 12, 13, 14, 15, 16);
    bb_log_level_set(bb_log_level());
}
