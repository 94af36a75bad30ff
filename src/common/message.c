/* message.c — the library's stderr lines with their "backbeat[PID]: STAMP " prefix, and the UTC
 * stamp they (and dump file names) carry (see common/message.h). */
/* SPDX-License-Identifier: MIT */
#include "common/message.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

static void put_digits(char *out, uint64_t v, int n) {
    for (int i = n - 1; i >= 0; i--) {
        out[i] = (char)('0' + v % 10);
        v /= 10;
    }
}

void bb__utc_stamp(uint64_t unix_ns, char out[20]) {
    uint64_t ms_total = unix_ns / 1000000ull;
    uint64_t secs = ms_total / 1000, ms = ms_total % 1000;
    uint64_t days = secs / 86400, sod = secs % 86400;
    /* Civil date from days since 1970-01-01 (proleptic Gregorian), in 400-year eras that
     * start on March 1st so the leap day is the last day of an era-year. */
    uint64_t z = days + 719468;
    uint64_t era = z / 146097;
    uint64_t doe = z - era * 146097;
    uint64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    uint64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    uint64_t mp = (5 * doy + 2) / 153;
    uint64_t d = doy - (153 * mp + 2) / 5 + 1;
    uint64_t m = mp < 10 ? mp + 3 : mp - 9;
    uint64_t y = yoe + era * 400 + (m <= 2 ? 1 : 0);
    if (y > 9999) y = 9999;
    put_digits(out, y, 4);
    put_digits(out + 4, m, 2);
    put_digits(out + 6, d, 2);
    out[8] = 'T';
    put_digits(out + 9, sod / 3600, 2);
    put_digits(out + 11, sod / 60 % 60, 2);
    put_digits(out + 13, sod % 60, 2);
    put_digits(out + 15, ms, 3);
    out[18] = 'Z';
    out[19] = '\0';
}

/* Append NUL-terminated s at line[*len] while it fits before `cap`. */
static void add(char *line, size_t cap, size_t *len, const char *s) {
    while (*s && *len < cap) line[(*len)++] = *s++;
}

void bb__message(const char *message) {
    char line[1024], num[24], ts[20];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    bb__utc_stamp((uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec, ts);
    uint64_t pid = (uint64_t)getpid();
    int n = 0;
    do num[sizeof num - 2 - n++] = (char)('0' + pid % 10);
    while ((pid /= 10) > 0);
    num[sizeof num - 1] = '\0';
    size_t len = 0, cap = sizeof line - 1; /* room for the newline */
    add(line, cap, &len, "backbeat[");
    add(line, cap, &len, num + sizeof num - 1 - n);
    add(line, cap, &len, "]: ");
    add(line, cap, &len, ts);
    add(line, cap, &len, " ");
    add(line, cap, &len, message ? message : "");
    line[len++] = '\n';
    ssize_t r;
    do r = write(STDERR_FILENO, line, len);
    while (r < 0 && errno == EINTR);
}
