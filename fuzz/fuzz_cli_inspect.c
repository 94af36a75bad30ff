/* fuzz_cli_inspect.c — libFuzzer target: `backbeat inspect --json IN.bb` and `backbeat inspect IN.bb` (text) on
 * arbitrary bytes.
 * Runs through cli_harness.c (its contract checks turn a broken promise into a crash). Built
 * with -DBB_FUZZ=ON (clang); fuzz/run.sh runs it.
 */
/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdint.h>

#include "cli_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cli_fuzz_inspect(data, size);
    return 0;
}
