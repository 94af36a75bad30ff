/* cli_harness.h — runs the `backbeat` subcommands in-process on fuzzer-supplied bytes, for the
 * whole-CLI libFuzzer targets (fuzz_cli_*.c) and the regression replay (regress_main.c).
 *
 * Each call writes its input(s) as dump files into a private temporary directory (under
 * /dev/shm when it is writable, else $TMPDIR or /tmp), runs the subcommand through its cmd_*
 * function exactly as main.c would, checks what the CLI's contract promises, removes every file
 * it left, and returns the subcommand's exit status. A broken promise is reported on stderr and
 * ends the process with abort(), so libFuzzer records it as a crash:
 *
 *   - the status is 0 or 1 (2 would be a usage error: the argument vectors here are valid);
 *   - on failure, stderr holds a "backbeat: " message naming the input or output file;
 *   - on failure, nothing is left in the output directory: no output, no sidecar, no temporary;
 *   - on success, exactly the expected outputs exist and look complete: a Parquet file starts
 *     and ends with "PAR1" and has its OUT.views.sql; a trace is a JSON object or array; a
 *     merged dump opens again with the reader; inspect --json printed one JSON object and
 *     inspect's text starts with "dump ".
 *
 * Standard output goes to /dev/null (inspect's to a file that is checked, then emptied); the
 * CLI's stderr is captured in a file during each call (sanitizer reports are not).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_FUZZ_CLI_HARNESS_H
#define BACKBEAT_FUZZ_CLI_HARNESS_H

#include <stddef.h>
#include <stdint.h>

/* The separator a merge input uses between its two dumps: the bytes before its first
 * occurrence are dump A, the bytes after it dump B. Without it both inputs are the whole data
 * (a dump merged with itself). */
#define CLI_FUZZ_SEP "\n--bbfuzz-next-dump--\n"

/* `backbeat inspect --json IN.bb`, then `backbeat inspect IN.bb` (text): both must agree on
 * the status. Returns it. */
int cli_fuzz_inspect(const uint8_t *data, size_t size);
/* `backbeat convert IN.bb -o out.EXT` (ext "parquet" or "json"). */
int cli_fuzz_convert(const uint8_t *data, size_t size, const char *ext);
/* `backbeat merge A.bb B.bb -o out.bb`, then the same with --no-dedup (data split at
 * CLI_FUZZ_SEP). Returns the first run's status. */
int cli_fuzz_merge(const uint8_t *data, size_t size);

#endif /* BACKBEAT_FUZZ_CLI_HARNESS_H */
