/* intern_advice.h — why a recorder's intern table refused strings, in words for the program's
 * operator (what the global recorder prints once on stderr): the intern table (intern.c) knows
 * whether a larger BACKBEAT_INTERN_LIMIT can help. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_INTERN_ADVICE_H
#define BACKBEAT_INTERN_ADVICE_H

#include <stddef.h>

#include "backbeat/recorder.h"

/* The advice for `rec`'s refusals so far (NUL-terminated into buf[cap]): too long strings, a
 * table too small for generations, or rings that name more strings than the table holds. */
void bb__intern_advice(const bb_recorder *rec, char *buf, size_t cap);

#endif /* BACKBEAT_INTERN_ADVICE_H */
