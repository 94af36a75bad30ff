/* bool_word.h — the one home of the words a BACKBEAT_* boolean accepts: 1/true/yes/on and
 * 0/false/no/off, in any case. The configuration table checks them, and code that must read a
 * variable before (or without) the global recorder, such as cpu_hold.c, reads them here. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_COMMON_BOOL_WORD_H
#define BB_COMMON_BOOL_WORD_H

#include <stdbool.h>

/* Store in *out whether `s` is a true or a false word and return true; return false (and leave
 * *out alone) when `s` is NULL or neither. Async-signal-safe, no allocation. */
bool bb__bool_word(const char *s, bool *out);

#endif /* BB_COMMON_BOOL_WORD_H */
