/* fuzz_cli_merge.c — libFuzzer target: `backbeat merge A.bb B.bb -o out.bb`, with and without
 * --no-dedup, the input split in two dumps at CLI_FUZZ_SEP (cli_harness.h).
 * Runs through cli_harness.c (its contract checks turn a broken promise into a crash). Built
 * with -DBB_FUZZ=ON (clang); fuzz/run.sh runs it.
 */
/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdint.h>

#include "cli_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cli_fuzz_merge(data, size);
    return 0;
}
