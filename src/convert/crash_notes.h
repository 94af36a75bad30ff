/* convert/crash_notes.h — the inputs' crashes with their stacks symbolized on this host
 * (symbols/), handed to the writers as convert_opts.crashes. Internal to the convert room. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_CRASH_NOTES_H
#define BB_CONVERT_CRASH_NOTES_H

#include <stdbool.h>
#include <stddef.h>

#include "backbeat/reader.h"
#include "emit/writers.h"

typedef struct cv_crashes {
    convert_crash *notes;
    size_t n;
} cv_crashes;

/* The crashes of the n dumps, symbolized (module files searched in `symbols` first, when not
 * NULL). False with a message (out of memory). */
bool cv_crashes_open(bb_dump *const *dumps, size_t n, const char *symbols, cv_crashes *out,
                     bb_error *err);
void cv_crashes_close(cv_crashes *c);

#endif /* BB_CONVERT_CRASH_NOTES_H */
