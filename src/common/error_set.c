/* error_set.c — filling a caller's bb_error (see error_set.h). */
/* SPDX-License-Identifier: MIT */
#include "common/error_set.h"

#include <stdarg.h>
#include <stdio.h>

void bb__err_clear(bb_error *err) {
    if (!err) return;
    err->status = BB_OK;
    err->offset = UINT64_MAX;
    err->message[0] = '\0';
}

bb_status bb__err_set(bb_error *err, bb_status st, uint64_t offset, const char *prefix,
                      const char *fmt, ...) {
    if (!err) return st;
    err->status = st;
    err->offset = offset;
    int n = prefix ? snprintf(err->message, sizeof err->message, "%s: ", prefix) : 0;
    if (n < 0) n = 0;
    if ((size_t)n < sizeof err->message) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message + n, sizeof err->message - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return st;
}

bb__errmsg bb__errmsg_begin(bb_error *err, bb_status st, uint64_t offset) {
    bb__errmsg m = {err, 0};
    if (err) {
        err->status = st;
        err->offset = offset;
        err->message[0] = '\0';
    }
    return m;
}

void bb__errmsg_strn(bb__errmsg *m, const char *s, size_t max) {
    if (!m->err) return;
    if (!s) s = "(null)";
    size_t cap = sizeof m->err->message - 1;
    for (size_t i = 0; s[i] && i < max && m->len < cap; i++) m->err->message[m->len++] = s[i];
    m->err->message[m->len] = '\0';
}

void bb__errmsg_str(bb__errmsg *m, const char *s) { bb__errmsg_strn(m, s, (size_t)-1); }

void bb__errmsg_u64(bb__errmsg *m, uint64_t v) {
    char tmp[24], out[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
    out[n] = '\0';
    bb__errmsg_str(m, out);
}
