/* line.c — a log record as one line of a log file: time, level, file:line, message (written
 * without snprintf: the read side's rate is bench/log_read.c's). */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "logfmt/logfmt.h"

/* Append n bytes of s at out[*at] while they fit before the NUL's place. */
static void add(char *out, size_t cap, size_t *at, const char *s, size_t n) {
    size_t k = cap - 1 - *at < n ? cap - 1 - *at : n;
    memcpy(out + *at, s, k);
    *at += k;
}

/* The decimal digits of v, at least `min` of them (zero-padded). */
static void add_uint(char *out, size_t cap, size_t *at, uint64_t v, int min) {
    char t[24];
    int n = 0;
    do t[sizeof t - 1 - n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0 || n < min);
    add(out, cap, at, t + sizeof t - n, (size_t)n);
}

size_t lf_line(const lf_site *site, const bb_rschema *schema, const bb_record *rec,
               const bb_rinstance *inst, const char *who, char *out, size_t cap) {
    if (cap < 2) return 0;
    size_t at = 0;
    const char *level = lf_level_name(site->level);
    size_t ln = strlen(level);
    add_uint(out, cap, &at, rec->ts / 1000000000u, 1);
    add(out, cap, &at, ".", 1);
    add_uint(out, cap, &at, rec->ts % 1000000000u, 9);
    add(out, cap, &at, " ", 1);
    if (who) add(out, cap, &at, who, strlen(who)), add(out, cap, &at, " ", 1);
    add(out, cap, &at, level, ln);
    add(out, cap, &at, "     ", ln < 5 ? 5 - ln + 1 : 1); /* %-5s and a space */
    add(out, cap, &at, site->file.ptr, site->file.len);
    add(out, cap, &at, ":", 1);
    add_uint(out, cap, &at, site->line, 1);
    add(out, cap, &at, " ", 1);
    out[at] = '\0';
    return at + lf_format(site, schema, rec->fields, inst, out + at, cap - at);
}
