/* format_test.c — every printf conversion a log line can hold, recorded with BB_LOG, read back
 * and formatted by src/logfmt, compared with snprintf of the same format and values; every
 * argument type; strings under, at and over BB_LOG_STR_MAX; the site's level, file, line and
 * function; the run-time level. */
/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "backbeat/log.h"
#include "check.h"
#include "lines.h"

#define MAXC 256
static char want[MAXC][512];
static int want_line[MAXC];
static size_t nwant;

/* Record the line and what snprintf makes of it. */
#define CASE(...)                                               \
    do {                                                        \
        BB_LOG(r, BB_INFO, __VA_ARGS__);                        \
        snprintf(want[nwant], sizeof want[nwant], __VA_ARGS__); \
        want_line[nwant++] = __LINE__;                          \
    } while (0)

enum color { RED = 1, GREEN = 2 };

static void integers(bb_recorder *r) {
    signed char sc = -5;
    unsigned char uc = 250;
    short s = -31000;
    unsigned short us = 65000;
    long l = -1234567890123L;
    unsigned long ul = 18446744073709551615UL;
    long long ll = INT64_MIN;
    unsigned long long ull = UINT64_MAX;
    char c = 'Z';
    bool b = true;
    enum color col = GREEN;
    CASE("d=%d i=%i neg=%d zero=%d", 42, -7, INT32_MIN, 0);
    CASE("[%5d] [%-5d] [%05d] [%+d] [% d] [%.3d] [%8.3d] [%-+8.4d]", 42, 42, 42, 42, 42, 7, 7, 7);
    CASE("u=%u o=%o x=%x X=%X #o=%#o #x=%#x #X=%#X", 4000000000u, 8u, 255u, 255u, 8u, 255u, 0u);
    CASE("hh=%hhd %hhu h=%hd %hu", sc, uc, s, us);
    CASE("l=%ld %lu ll=%lld %llu", l, ul, ll, ull);
    CASE("PRI %" PRId8 " %" PRIu16 " %" PRIx32 " %" PRId64 " %" PRIu64 " %" PRIX64, (int8_t)-8,
         (uint16_t)65535, (uint32_t)0xdeadbeef, (int64_t)-9, (uint64_t)UINT64_MAX,
         (uint64_t)0xabcdef);
    CASE("j=%jd %ju z=%zu %zd t=%td", (intmax_t)-3, (uintmax_t)3, (size_t)123456789012u,
         (ssize_t)-2, (ptrdiff_t)-77);
    CASE("c=%c [%3c] [%-3c] char-as-int=%d", 'q', 'r', 's', c);
    CASE("bool=%d enum=%d %u", b, col, (unsigned)RED);
    CASE("star [%*d] [%-*d] [%*d] [%.*d] [%*.*d]", 6, 1, 6, 2, -6, 3, 4, 5, 8, 3, 9);
    CASE("%% literal %%%d%%", 5);
}

static void floats(bb_recorder *r) {
    double d = 3.14159265358979;
    float f = 2.5f;
    long double ld = 1.25L;
    CASE("f=%f %.2f %10.3f %-10.1f| %+f %08.2f", d, d, d, d, d, -d);
    CASE("e=%e %.3E %12.2e g=%g %G %.10g %#g", d, 1e-300, 6.02e23, d, 1e20, d, 1.0);
    CASE("a=%a %A %.3a", d, 0.1, 1.0);
    CASE("F=%F inf=%f nan=%f -inf=%e", d, 1.0 / 0.0, 0.0 / 0.0, -1.0 / 0.0);
    CASE("float=%f %g", f, (double)f);
    CASE("L=%Lf %Le %Lg", ld, ld, ld);
    CASE("star %.*f [%*.*e]", 3, d, 14, 2, d);
}

static void strings_and_pointers(bb_recorder *r) {
    char arr[16] = "array";
    const char *cs = "const";
    char *ms = arr;
    int x = 0;
    CASE("s=%s [%10s] [%-10s] [%.3s] [%8.2s]", "lit", cs, ms, arr, "precision");
    CASE("empty=[%s]", "");
    CASE("p=%p null=%p", (void *)&x, (void *)NULL);
    CASE("const p=%p", (const void *)cs);
    CASE("mixed %d %s %f %c %lu %s", 1, "two", 3.0, '4', 5ul, "six");
    CASE("no args at all");
}

/* POSIX's positional "%n$" (gcc warns of them only under -Wpedantic), C23's %b / %B (glibc 2.35
 * prints them; gcc's -Wformat knows them only under -std=c2x) and %lc,
 * which the reader prints as UTF-8 whatever its locale (snprintf in the C locale fails). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
static void c23_and_wide(bb_recorder *r) {
    CASE("%2$s, %1$s! (%3$d)", "world", "hello", 42); /* POSIX positional arguments */
    CASE("[%1$*2$d] [%1$-*2$d] [%3$.*2$f] %3$g", 7, 5, 3.14159);
    CASE("b=%b [%#b] [%#B] [%08b] [%-6b] %hhb y=%d", 5u, 5u, 6u, 3u, 2u, (unsigned char)255, 2);
    CASE("lc=%lc [%3lc] [%-3lc] %lc", (wint_t)'A', (wint_t)0xe9, (wint_t)0x263a, (wint_t)0x1f600);
    snprintf(want[nwant - 1], sizeof want[nwant - 1],
             "lc=A [ \xc3\xa9] [\xe2\x98\xba] \xf0\x9f\x98\x80");
}
#pragma GCC diagnostic pop

/* A string of exactly n bytes. */
static const char *str_of(size_t n) {
    static char s[100];
    memset(s, 'a', n);
    for (size_t i = 0; i < n; i++) s[i] = (char)('a' + i % 26);
    s[n] = '\0';
    return s;
}

int main(void) {
    bb_recorder *r = bb_recorder_new(1, 1 << 20);
    bb_recorder_enable(r, true);
    bb_log_level_set(BB_TRACE);
    integers(r);
    floats(r);
    strings_and_pointers(r);
    c23_and_wide(r);
    size_t nfmt = nwant;
    /* Strings under, at and over the bound, NULL, interned (any length). */
    char under[BB_LOG_STR_MAX], at[BB_LOG_STR_MAX + 1], over[BB_LOG_STR_MAX + 2], lng[90];
    snprintf(under, sizeof under, "%s", str_of(BB_LOG_STR_MAX - 1));
    snprintf(at, sizeof at, "%s", str_of(BB_LOG_STR_MAX));
    snprintf(over, sizeof over, "%s", str_of(BB_LOG_STR_MAX + 1));
    snprintf(lng, sizeof lng, "%s", str_of(89));
    const char *null = NULL;
    BB_LOG(r, BB_DEBUG, "under=%s", under);
    BB_LOG(r, BB_DEBUG, "at=%s", at);
    BB_LOG(r, BB_DEBUG, "over=%s [%.40s] [%.5s]", over, over, over);
    BB_LOG(r, BB_DEBUG, "null=%s", null);
    BB_LOG(r, BB_DEBUG, "interned=%s [%.5s]", BB_I(lng), BB_I("abcdefgh"));
    /* The run-time level: below it nothing is recorded, nor are the arguments evaluated. */
    int evaluated = 0;
    bb_log_level_set(BB_WARN);
    BB_LOG(r, BB_INFO, "not recorded %d", ++evaluated);
    BB_LOG(r, BB_ERROR, "recorded %d", ++evaluated);
    CHECK(bb_log_level() == BB_WARN, "level %d", bb_log_level());
    int lv = -1;
    CHECK(bb_log_level_parse("Warning", &lv) && lv == BB_WARN, "parse %d", lv);
    CHECK(!bb_log_level_parse("loud", &lv), "parse of a bad name");
    CHECK(evaluated == 1, "arguments of a line below the level were evaluated (%d)", evaluated);
    bb_log_level_set(BB_INFO);
    /* A cut inside a UTF-8 character drops the character's bytes that were kept. */
    BB_LOG(r, BB_INFO, "%s", "123456789012345678901234567890\xc3\xa9 and more");
    BB_LOG(r, BB_INFO, "%s", "12345678901234567890123456789\xe2\x82\xac and more");

    size_t n = 0, others = 0;
    test_line *lines = test_log_lines(r, &n, &others);
    CHECK(lines != NULL, "read back");
    CHECK(n == nfmt + 8, "%zu lines, want %zu", n, nfmt + 8);
    CHECK(others == 0, "%zu other records", others);
    for (size_t i = 0; lines && i < nfmt && i < n; i++) {
        CHECK(strcmp(lines[i].msg, want[i]) == 0, "line %d:\n  got  \"%s\"\n  want \"%s\"",
              want_line[i], lines[i].msg, want[i]);
        CHECK(lines[i].level == BB_INFO, "level %d", lines[i].level);
        CHECK(lines[i].line == (uint32_t)want_line[i], "site line %u want %d", lines[i].line,
              want_line[i]);
        CHECK(strstr(lines[i].file, "format_test.c") != NULL, "file %s", lines[i].file);
    }
    CHECK(!strcmp(lines[0].function, "integers"), "function %s", lines[0].function);
    char w[200];
    if (n == nfmt + 8) {
        test_line *t = lines + nfmt;
        snprintf(w, sizeof w, "under=%s", under);
        CHECK(!strcmp(t[0].msg, w), "got %s want %s", t[0].msg, w);
        CHECK(t[0].level == BB_DEBUG, "level %d", t[0].level);
        snprintf(w, sizeof w, "at=%s", at);
        CHECK(!strcmp(t[1].msg, w), "got %s want %s", t[1].msg, w);
        snprintf(w, sizeof w, "over=%.*s... [%.*s...] [%.5s]", BB_LOG_STR_MAX, over, BB_LOG_STR_MAX,
                 over, over);
        CHECK(!strcmp(t[2].msg, w), "got %s want %s", t[2].msg, w);
        CHECK(!strcmp(t[3].msg, "null=(null)"), "got %s", t[3].msg);
        snprintf(w, sizeof w, "interned=%s [abcde]", lng);
        CHECK(!strcmp(t[4].msg, w), "got %s want %s", t[4].msg, w);
        CHECK(!strcmp(t[5].msg, "recorded 1"), "got %s", t[5].msg);
        CHECK(t[5].level == BB_ERROR, "level %d", t[5].level);
        CHECK(!strcmp(t[6].msg, "123456789012345678901234567890..."), "got %s", t[6].msg);
        CHECK(!strcmp(t[7].msg, "12345678901234567890123456789..."), "got %s", t[7].msg);
    }
    free(lines);
    bb_recorder_free(r);
    return failures ? 1 : 0;
}
