/* backbeat/log.h — log lines at the cost of a record: printf-style call sites whose arguments are
 * recorded by type and formatted only when a dump is read.
 * (This file is the contract; the machinery is in detail/log_impl.h and may change.)
 *
 *   BB_LOG(rec, BB_INFO, "accepted %s from port %u (%d pending)", peer, port, pending);
 *   BB_GLOG(BB_WARN, "retry %d of %d after %.1f ms", n, max, delay_ms);   // the global recorder
 *   BB_GLOG(BB_ERROR, "user %s: %" PRIu64 " bytes", BB_I(name), len);     // BB_I: interned
 *   BB_GLOG(BB_INFO, "peer is a %d", BB_E(role, r));   // BB_E: a BB_ENUM value, read as its label
 *
 * Levels: BB_TRACE, BB_DEBUG, BB_INFO, BB_WARN, BB_ERROR, BB_FATAL (0 to 5; BB_FATAL only
 * records, it does not stop the program).
 *
 * The format must be a string literal; the compiler checks it against the arguments exactly as
 * for printf (-Wformat, in -Wall: a mismatch is a warning, an error under -Werror). The
 * arguments are evaluated only when the line is recorded (like printf behind an `if`).
 * Each call site is an event schema of its own (namespace `backbeat.log`, name
 * `<file name>:<line>`, the level, file, line, function and format in its description:
 * docs/LOG_LINES.md), registered when the object that contains it is loaded (executable, static
 * or shared library, dlopen'ed plugin) and unregistered when it is unloaded, like BB_EVENT.
 * A record holds only the arguments, each stored by its C type:
 *   integers of every width (char, short, int, long, long long, signed or unsigned; bool;
 *     a plain enum constant or variable is its integer type),
 *   float and double (8 bytes), long double (stored as a double: precision beyond it is lost),
 *   void * (8 bytes; cast other object pointers to void *, which also makes %n impossible: its
 *     int * argument is refused),
 *   char strings (char *, const char *, char arrays): copied, at most BB_LOG_STR_MAX (31) bytes;
 *     a longer string is cut and marked truncated (its formatted text ends with "...", less any
 *     UTF-8 character the cut split), NULL
 *     reads as "(null)",
 *   BB_I(s): a char string interned (bb_intern_str: any length, one u32 in the record; each new
 *     string costs a lookup in the recorder's intern table).
 *   BB_E(enumname, value): a value of an enum declared with BB_ENUM (event.h), recorded with the
 *     enum's labels (8 bytes). The format check sees an int: write %d, %i or %u, which read
 *     back as the value's label (width and '-' applied as for %s), or as the number when the
 *     value has none; %x, %X, %o and %c always print the number. (Without BB_E, a BB_ENUM value
 *     is its repr integer: a BB_ENUM type is a typedef of it, which neither _Generic nor a C++
 *     template can tell apart.)
 * Any other argument type, more than 16 arguments, or a format that is not a literal fail to
 * compile. Wide strings (%ls) and %n are therefore refused.
 * LEVEL must be a constant expression: it is part of the call site, described once. A level
 * chosen at run time is two call sites (`if (bad) BB_GLOG(BB_ERROR, ...); else
 * BB_GLOG(BB_INFO, ...);`). Each argument also appears in unevaluated operands (sizeof,
 * _Generic, decltype) to find its kind, where C++ before C++20 refuses a lambda expression:
 * store the lambda's result in a variable first.
 *
 * Run-time level: a call below bb_log_level() costs one load and a branch (arguments not
 * evaluated). The level starts at BACKBEAT_LOG_LEVEL (trace, debug, info, warn, error, fatal or
 * off; default info) and is changed with bb_log_level_set. -DBACKBEAT_COMPILED_OUT removes the
 * calls (the format check stays, nothing is emitted).
 *
 * Reading: `backbeat log DUMP...` writes the formatted lines of several dumps and ring files in
 * one time order, `backbeat tail` prints log records as log lines, the Parquet table has a
 * `log` view, the trace shows each as an instant event with its message. Formatting follows
 * C's printf (src/logfmt/).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_LOG_H
#define BACKBEAT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "event.h"
#include "global.h"
#include "recorder.h"
#include "detail/export.h"

/* The levels, lowest first. */
#define BB_TRACE 0
#define BB_DEBUG 1
#define BB_INFO 2
#define BB_WARN 3
#define BB_ERROR 4
#define BB_FATAL 5
/* bb_log_level_set(BB_LOG_OFF) records no line. */
#define BB_LOG_OFF 6

/* The longest string argument copied into a record, in bytes. */
#define BB_LOG_STR_MAX 31

#ifdef __cplusplus
extern "C" {
#endif

/* Record only lines at `level` or above (BB_TRACE..BB_FATAL, or BB_LOG_OFF); process-wide. */
BB_API void bb_log_level_set(int level);
/* The current level. */
BB_API int bb_log_level(void);
/* The name of a level ("trace" ... "fatal"), NULL for another number. */
BB_API const char *bb_log_level_name(int level);
/* Parse a level name (any case; also "warning", "off") into *out; false if it is none. */
BB_API bool bb_log_level_parse(const char *name, int *out);

#ifdef __cplusplus
}
#endif

/* BB_LOG(rec, LEVEL, "format", args...): record one log line into `rec` (NULL records nothing). */
#define BB_LOG(...) BB__LOG_(BB__LOG_NA(__VA_ARGS__), __VA_ARGS__, ~)
/* BB_GLOG(LEVEL, "format", args...): BB_LOG into the global recorder (global.h). */
#define BB_GLOG(...) BB_LOG(bb_global(), __VA_ARGS__)
/* BB_I(s): a string argument recorded as an interned string (any length). */
#define BB_I(s) BB__LOG_ISTR(s)
/* BB_E(enumname, value): an argument of a BB_ENUM type, recorded with its labels. */
#define BB_E(e, v) BB__LOG_ENUM(e, v)

#include "detail/log_impl.h"

#endif /* BACKBEAT_LOG_H */
