/* cli_util.h — shared plumbing of the `backbeat` command-line tool.
 *
 * Messages (prefixed "backbeat: ", to stderr) and the exit-status convention (messages.c),
 * small option-value parsers (options.c), the temp-file-then-rename output discipline of
 * emit/outfile.h with its failures printed (output.c), progress reporting on stderr when
 * (and only when) stderr is a terminal (progress.c), and the inputs: dumps and ring files
 * (ring_input.c), growing arrays (grow.c). The buffered writer the subcommands print through
 * is emit/obuf.h.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_UTIL_H
#define BACKBEAT_CLI_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/model.h"
#include "backbeat/reader.h"
#include "emit/obuf.h"
#include "emit/outfile.h"

/* Exit statuses of every subcommand. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Print "backbeat: <message>\n" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "backbeat: <message>\nTry 'backbeat <cmd> --help'.\n" and return CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A library's warning callback (convert/convert.h, merge/merge.h): cli_error("%s", msg). */
void cli_warn(const char *msg, void *ctx);
/* cli_usage_error for what getopt_long returned instead of an option of `cmd`: ':' (the option
 * before optind lacks its value) or '?' (an unknown option). */
int cli_option_error(const char *cmd, int c, char **argv);

/* Parse a whole string as an unsigned decimal (or 0x-prefixed hex when `allow_hex`) integer.
 * Returns false on any junk, sign or overflow. */
bool cli_parse_u64(const char *s, bool allow_hex, uint64_t *out);
/* Parse a whole string as hex digits (an optional 0x prefix), at most 16 digits. */
bool cli_parse_hex64(const char *s, uint64_t *out);
/* Parse a whole string as a signed decimal int in [lo, hi]. */
bool cli_parse_int(const char *s, long lo, long hi, int *out);
/* Parse a time bound: absolute nanoseconds ("1700000000000000000") or relative to the first
 * record ("+1.5s", "+200ms", "+10us", "+5ns", "+42" = ns). Sets *relative. */
bool cli_parse_time(const char *s, uint64_t *ns, bool *relative);

/* Output file handling: write to a hidden temporary in the destination's directory, rename into
 * place on commit, unlink on abort (or when the process is interrupted by SIGINT/SIGTERM/
 * SIGHUP/SIGPIPE). "-" means stdout, and an existing non-regular file (FIFO, device) is written
 * in place (nothing to rename). */
typedef em_out cli_out;

/* True, with "cannot write OUT: it is the input IN", when `out` names the same file (device and
 * inode) as one of the n inputs. */
bool cli_out_is_input(const char *out, char *const *inputs, size_t n);
/* Open `path` for writing. On failure prints "cannot write PATH: reason" and returns false. */
bool cli_out_open(cli_out *o, const char *path);
/* Close and rename into place. On failure prints a message, removes the temporary, returns
 * false. */
bool cli_out_commit(cli_out *o);
/* Close and remove the temporary (no-op on stdout). */
void cli_out_abort(cli_out *o);
/* The whole file `path` is `len` bytes of `data`, written through cli_out (a temporary renamed
 * into place), fsync'ed first when `sync`. On failure prints "cannot write PATH: reason",
 * leaves no file behind and returns false. */
bool cli_write_file(const char *path, const void *data, size_t len, bool sync);

/* Progress on stderr, only when stderr is a TTY: "records done/total (rate/s)", at most ~5 times
 * a second; cli_progress_done clears the line. */
typedef struct cli_progress {
    bool enabled;
    const char *label;
    uint64_t start_ns;
    uint64_t last_ns;
} cli_progress;
void cli_progress_init(cli_progress *p, const char *label);
void cli_progress_update(uint64_t done, uint64_t total, void *ctx); /* ctx = cli_progress* */
void cli_progress_done(cli_progress *p);

/* Make the array at *array (a pointer to a T *, `size` bytes a T) hold at least `need` elements:
 * its capacity *cap doubled (from `first` when 0) until it does. False when out of memory (the
 * array is then as it was). */
bool cli_grow(void *array, size_t *cap, size_t need, size_t size, size_t first);

/* Monotonic nanoseconds (for progress and benchmarks). */
uint64_t cli_now_ns(void);

/* Open every dump in `paths` through the stage (convert/inputs.h: ring files are recovered in
 * memory, as `backbeat recover` does, with a warning when their process still runs); on failure
 * prints the message (naming the file) and returns false, nothing left open. `*dumps` is an
 * array of n dumps until cli_close_dumps(*dumps, n). */
bool cli_open_dumps(char *const *paths, size_t n, bb_dump ***dumps);
void cli_close_dumps(bb_dump **dumps, size_t n);
/* The bytes of a dump cli_open_dumps built in memory from a ring file (docs/RING_FILE.md), and
 * their length; NULL for a dump read from its file. */
const uint8_t *cli_dump_memory(const bb_dump *dump, size_t *len);

#endif /* BACKBEAT_CLI_UTIL_H */
