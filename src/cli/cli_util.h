/* cli_util.h — shared plumbing of the `backbeat` command-line tool.
 *
 * Messages (prefixed "backbeat: ", to stderr), the exit-status convention, small option-value
 * parsers, a buffered writer over a file descriptor with JSON string escaping, the
 * temp-file-then-rename output discipline (no output that looks complete unless it is), and
 * progress reporting on stderr when (and only when) stderr is a terminal.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CLI_UTIL_H
#define BACKBEAT_CLI_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "backbeat/model.h"
#include "backbeat/reader.h"

/* Exit statuses of every subcommand. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* Print "backbeat: <message>\n" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "backbeat: <message>\nTry 'backbeat <cmd> --help'.\n" and return CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
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

/* Buffered output to a file descriptor. Errors are sticky: check cli_buf_flush's result. */
typedef struct cli_buf {
    int fd;
    int failed; /* errno of the first failed write, or 0 */
    size_t len;
    size_t cap;
    char *data;
    uint64_t written; /* bytes handed to write(2) so far */
} cli_buf;

/* Initialise over `fd` with a heap buffer of `cap` bytes. Returns false on allocation failure.
 * With fd -1 the buffer is memory only: it grows as needed and cli_buf_flush writes nothing
 * (out of memory, `failed` is ENOMEM and what was buffered is dropped). */
bool cli_buf_init(cli_buf *b, int fd, size_t cap);
/* Write out everything buffered. Returns 0, or the errno of the first failure. */
int cli_buf_flush(cli_buf *b);
/* Flush and free the buffer (the fd is not closed). Returns as cli_buf_flush. */
int cli_buf_finish(cli_buf *b);
/* The slow paths of cli_buf_write / cli_buf_putc (the buffer is full or too short). */
void cli_buf_write_slow(cli_buf *b, const void *data, size_t len);
void cli_buf_putc_slow(cli_buf *b, char c);
/* Inline: the converters call these a few times a field. */
static inline void cli_buf_write(cli_buf *b, const void *data, size_t len) {
    if (len <= b->cap - b->len) {
        memcpy(b->data + b->len, data, len);
        b->len += len;
    } else {
        cli_buf_write_slow(b, data, len);
    }
}
static inline void cli_buf_putc(cli_buf *b, char c) {
    if (b->len < b->cap) b->data[b->len++] = c;
    else cli_buf_putc_slow(b, c);
}
void cli_buf_puts(cli_buf *b, const char *s);
void cli_buf_printf(cli_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_buf_u64(cli_buf *b, uint64_t v);
void cli_buf_i64(cli_buf *b, int64_t v);
/* 16 lower-case hex digits. */
void cli_buf_hex16(cli_buf *b, uint64_t v);
/* Lower-case hex of a byte string. */
void cli_buf_hexbytes(cli_buf *b, const uint8_t *p, size_t n);
/* A JSON string literal (quotes included), escaped by cli/json.h's bb_json_escape_each:
 * invalid UTF-8 becomes U+FFFD, one per maximal invalid subpart (Unicode's recommended
 * practice, as the golden vectors expect). */
void cli_buf_json_str(cli_buf *b, const char *s, size_t n);
/* A JSON number for values up to 2^53, else a decimal string (BB_JSON_SAFE_MAX). */
void cli_buf_json_u64(cli_buf *b, uint64_t v);
void cli_buf_json_i64(cli_buf *b, int64_t v);
/* Microseconds with three decimals, from nanoseconds: 1234567 -> "1234.567". */
void cli_buf_usec(cli_buf *b, uint64_t ns);
/* The decoded value of field `fi` as JSON (null, number / string per the golden conventions,
 * bool, hex string for bytes, label or decimal string for enums, string or "#id" for
 * interned). */
void cli_buf_json_field(cli_buf *b, const bb_rschema *schema, size_t fi, const uint8_t *fields,
                        const bb_rinstance *inst);

/* Output file handling: write to a hidden temporary in the destination's directory, rename into
 * place on commit, unlink on abort (or when the process is interrupted by SIGINT/SIGTERM/
 * SIGHUP/SIGPIPE). "-" means stdout, and an existing non-regular file (FIFO, device) is written
 * in place (nothing to rename). */
typedef struct cli_out {
    char *path; /* final name (NULL for stdout) */
    char *tmp;  /* temporary name (NULL for stdout) */
    int fd;
} cli_out;

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

/* Monotonic nanoseconds (for progress and benchmarks). */
uint64_t cli_now_ns(void);

/* Open every dump in `paths` (ring files are recovered in memory, as `backbeat recover` does,
 * with a warning when their process still runs); on failure prints the reader's message (naming the file), closes
 * what was opened and returns false. `*dumps` is a malloc'ed array of n dumps. */
bool cli_open_dumps(char *const *paths, size_t n, bb_dump ***dumps);
void cli_close_dumps(bb_dump **dumps, size_t n);
/* The bytes of a dump cli_open_dumps built in memory from a ring file (docs/RING_FILE.md), and
 * their length; NULL for a dump read from its file. */
const uint8_t *cli_dump_memory(const bb_dump *dump, size_t *len);
/* Open the de-duplicating model over `n` open dumps; on failure prints the model's message and
 * returns false. */
bool cli_open_model(bb_dump *const *dumps, size_t n, bb_model **model);

#endif /* BACKBEAT_CLI_UTIL_H */
