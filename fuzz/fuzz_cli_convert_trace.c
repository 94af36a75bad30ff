/* fuzz_cli_convert_trace.c — libFuzzer target: `backbeat convert IN.bb -o out.json` (the Perfetto/Chrome
 * trace) on arbitrary bytes.
 * Runs through cli_harness.c (its contract checks turn a broken promise into a crash). Built
 * with -DBB_FUZZ=ON (clang); fuzz/run.sh runs it.
 */
/* SPDX-License-Identifier: MIT */
#include <stddef.h>
#include <stdint.h>

#include "cli_harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cli_fuzz_convert(data, size, "json");
    return 0;
}
