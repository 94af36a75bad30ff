/* convert/inputs.h — the inputs of a conversion opened as dumps: `.bb` dumps read from their
 * files, and ring files (docs/RING_FILE.md) recovered in memory as `backbeat recover` does,
 * with a warning when their process still runs. Prints nothing: warnings go to a callback,
 * failures are bb_error values naming the file. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_INPUTS_H
#define BB_CONVERT_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/error.h"
#include "backbeat/reader.h"
#include "convert/filter.h"

/* n opened inputs: dumps[i] read from paths[i]; mem[i] the bytes a ring file was recovered
 * into (NULL for a dump read from its file). */
typedef struct cv_inputs {
    bb_dump **dumps;
    uint8_t **mem;
    size_t n;
} cv_inputs;

/* Open the n paths, in order (a ring file: a warning when its writer still runs, and when its
 * rings hold records no schema was recovered for). False after the first failure, with
 * nothing left open. */
bool cv_inputs_open(char *const *paths, size_t n, cv_warn_fn warn, void *warn_ctx, cv_inputs *in,
                    bb_error *err);
void cv_inputs_close(cv_inputs *in);
/* The bytes the i-th input was recovered into and their length; NULL for a dump file. */
const uint8_t *cv_inputs_memory(const cv_inputs *in, size_t i, size_t *len);

/* The warning about a recovered ring file whose rings hold bytes (`written`) while no schema
 * could be recovered (`events` 0): its records cannot be decoded. NULL when there is none. */
const char *cv_ring_warning(bool written, size_t events);

/* The de-duplicating model over the opened inputs, their rings walked on up to `threads`
 * threads; false with the model's message. */
bool cv_inputs_model(const cv_inputs *in, unsigned threads, bb_model **model, bb_error *err);

#endif /* BB_CONVERT_INPUTS_H */
