/* cli/options.c — parsers of option values: integers, hex ids, time bounds (see cli_util.h). */
/* SPDX-License-Identifier: MIT */
#include "cli/cli_util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

bool cli_parse_u64(const char *s, bool allow_hex, uint64_t *out) {
    if (!s || !*s) return false;
    unsigned base = 10;
    if (allow_hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
        if (!*s) return false;
    }
    uint64_t v = 0;
    for (; *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9') d = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f') d = (unsigned)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F') d = (unsigned)(*s - 'A' + 10);
        else return false;
        if (v > (UINT64_MAX - d) / base) return false;
        v = v * base + d;
    }
    *out = v;
    return true;
}

bool cli_parse_hex64(const char *s, uint64_t *out) {
    if (!s) return false;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    size_t n = strlen(s);
    if (n == 0 || n > 16) return false;
    uint64_t v = 0;
    for (; *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9') d = (unsigned)(*s - '0');
        else if (*s >= 'a' && *s <= 'f') d = (unsigned)(*s - 'a' + 10);
        else if (*s >= 'A' && *s <= 'F') d = (unsigned)(*s - 'A' + 10);
        else return false;
        v = (v << 4) | d;
    }
    *out = v;
    return true;
}

bool cli_parse_int(const char *s, long lo, long hi, int *out) {
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
    *out = (int)v;
    return true;
}

bool cli_parse_time(const char *s, uint64_t *ns, bool *relative) {
    if (!s || !*s) return false;
    *relative = false;
    if (*s != '+') return cli_parse_u64(s, false, ns);
    *relative = true;
    s++;
    /* integer part, optional fraction, then a unit */
    uint64_t ip = 0;
    int digits = 0;
    while (*s >= '0' && *s <= '9') {
        uint64_t d = (uint64_t)(*s - '0');
        if (ip > (UINT64_MAX - d) / 10) return false;
        ip = ip * 10 + d;
        s++;
        digits++;
    }
    uint64_t frac = 0, frac_scale = 1;
    if (*s == '.') {
        s++;
        while (*s >= '0' && *s <= '9') {
            if (frac_scale < 1000000000000ull) {
                frac = frac * 10 + (uint64_t)(*s - '0');
                frac_scale *= 10;
            }
            s++;
            digits++;
        }
    }
    if (!digits) return false;
    uint64_t mult;
    if (!strcmp(s, "s")) mult = 1000000000ull;
    else if (!strcmp(s, "ms")) mult = 1000000ull;
    else if (!strcmp(s, "us")) mult = 1000ull;
    else if (!strcmp(s, "ns") || !*s) mult = 1ull;
    else return false;
    if (ip > UINT64_MAX / mult) return false;
    uint64_t v = ip * mult;
    /* frac / frac_scale * mult, exactly enough for ns resolution */
    uint64_t f = (uint64_t)((long double)frac * (long double)mult / (long double)frac_scale + 0.5L);
    if (v > UINT64_MAX - f) return false;
    *ns = v + f;
    return true;
}
