/* inspect_crash.h — `backbeat inspect`'s crash section: the crashes of a dump with their
 * stacks symbolized, as text (printed first) or as the JSON key "crashes". */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_INSPECT_CRASH_H
#define BACKBEAT_CLI_INSPECT_CRASH_H

#include <stdbool.h>

#include "backbeat/reader.h"
#include "emit/obuf.h"
#include "symbols/symbols.h"

/* Print the crashes of `d` (nothing when it has none): text, or `"crashes":[...],` in JSON.
 * Returns false (with a message on stderr) when they could not be read. */
bool cli_inspect_crashes(em_obuf *b, const bb_dump *d, sy_symbolizer *sym, bool json);

#endif /* BACKBEAT_CLI_INSPECT_CRASH_H */
