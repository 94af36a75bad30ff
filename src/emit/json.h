/* emit/json.h — the one JSON string escaper of backbeat's tools, and the golden JSON's rule
 * for large integers (compat/README.md "JSON conventions").
 *
 * The escaper writes through a bb_text_fn (backbeat/reader.h), so each output buffer (the CLI's
 * em_obuf, the Parquet writer's pq_buf) adapts it in a few lines. Internal: hidden visibility.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_COMMON_JSON_H
#define BB_COMMON_JSON_H

#include <stddef.h>

#include "backbeat/reader.h"

/* Integers above 2^53 do not survive a JSON double: the golden JSON writes them as decimal
 * strings, smaller ones (2^53 itself included) as numbers. */
#define BB_JSON_SAFE_MAX 9007199254740992ull

/* Escape `len` bytes at `data` as the body of a JSON string literal (the quotes are the
 * caller's), passing the output to `fn` in pieces. The text is first decoded lossily
 * (bb_utf8_lossy_each: each maximal invalid UTF-8 subpart becomes U+FFFD, so valid UTF-8 goes
 * through unchanged); then '"' and '\' become \" and \\, newline, carriage return and tab
 * become \n, \r and \t, any other byte below 0x20 becomes \u00XX (lower-case hex), and the rest
 * is copied verbatim. Returns 0, or the first non-zero value `fn` returned. */
int em_json_escape_each(const void *data, size_t len, bb_text_fn fn, void *ctx);

#endif /* BB_COMMON_JSON_H */
