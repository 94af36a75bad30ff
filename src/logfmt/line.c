/* line.c — a log record as one line of a log file: time, level, file:line, message. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "logfmt/logfmt.h"

size_t lf_line(const lf_site *site, const bb_rschema *schema, const bb_record *rec,
               const bb_rinstance *inst, const char *who, char *out, size_t cap) {
    if (cap < 2) return 0;
    int n = snprintf(
        out, cap, "%llu.%09llu %s%s%-5s %.*s:%u ", (unsigned long long)(rec->ts / 1000000000u),
        (unsigned long long)(rec->ts % 1000000000u), who ? who : "", who ? " " : "",
        lf_level_name(site->level), (int)site->file.len, site->file.ptr, (unsigned)site->line);
    size_t len = n < 0 ? 0 : (size_t)n < cap - 1 ? (size_t)n : cap - 1;
    return len + lf_format(site, schema, rec->fields, inst, out + len, cap - len);
}
