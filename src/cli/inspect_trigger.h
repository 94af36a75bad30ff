/* inspect_trigger.h — `backbeat inspect`'s account of why a dump was taken (its
 * backbeat::Trigger records). */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_INSPECT_TRIGGER_H
#define BACKBEAT_CLI_INSPECT_TRIGGER_H

#include <stdbool.h>
#include <stddef.h>

#include "backbeat/reader.h"
#include "emit/obuf.h"

/* Write each backbeat::Trigger record of `d` to `b`: a text line each ("  trigger in instance
 * ..., shard N: rule=... event=... ts=..."), or JSON objects separated by commas (json).
 * Returns how many; 0 (and nothing written) for a dump no trigger took. b NULL: count only. */
size_t cli_inspect_triggers(em_obuf *b, const bb_dump *d, bool json);

#endif /* BACKBEAT_CLI_INSPECT_TRIGGER_H */
