/* error_set.h — the one way the libraries fill a caller's bb_error (error.h): clear it on
 * success, set it from a printf format, or build it piece by piece without stdio (the dump
 * writer's messages, async-signal-safe). Every setter accepts err == NULL. Internal. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_COMMON_ERROR_SET_H
#define BB_COMMON_ERROR_SET_H

#include <stddef.h>
#include <stdint.h>

#include "backbeat/error.h"

/* BB_OK, offset UINT64_MAX, empty message. */
void bb__err_clear(bb_error *err);

/* `st` and `offset`; the message is "PREFIX: " (when prefix is non-NULL) then the formatted
 * text, truncated to fit. Returns `st`. Not async-signal-safe. */
bb_status bb__err_set(bb_error *err, bb_status st, uint64_t offset, const char *prefix,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* A message built without stdio (async-signal-safe): begin, then append pieces. */
typedef struct bb__errmsg {
    bb_error *err;
    size_t len;
} bb__errmsg;
bb__errmsg bb__errmsg_begin(bb_error *err, bb_status st, uint64_t offset);
/* Append at most `max` bytes of NUL-terminated s (NULL appends "(null)"), truncating to fit. */
void bb__errmsg_strn(bb__errmsg *m, const char *s, size_t max);
void bb__errmsg_str(bb__errmsg *m, const char *s);
/* Append the decimal form of v. */
void bb__errmsg_u64(bb__errmsg *m, uint64_t v);

#endif /* BB_COMMON_ERROR_SET_H */
