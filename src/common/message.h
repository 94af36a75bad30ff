/* message.h — the one home of the library's stderr lines: every message the library writes on
 * its host program's stderr is "backbeat[PID]: YYYYMMDDThhmmssmmmZ MESSAGE" (UTC, milliseconds),
 * so it can be told apart and dated in a service's error log (issue 38). Internal. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_COMMON_MESSAGE_H
#define BB_COMMON_MESSAGE_H

#include <stdint.h>

/* Format `unix_ns` as YYYYMMDDThhmmssmmmZ (19 chars + NUL) into out[20]. Async-signal-safe. */
void bb__utc_stamp(uint64_t unix_ns, char out[20]);

/* Write "backbeat[PID]: STAMP " then `message` (truncated to about 1 KiB) and a newline on
 * stderr in one write(2). Async-signal-safe (no malloc, no stdio, no locale). */
void bb__message(const char *message);

#endif /* BB_COMMON_MESSAGE_H */
