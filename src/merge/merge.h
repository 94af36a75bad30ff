/* merge/merge.h — merge's re-encoding: dumps combined into one multi-instance dump
 * (`backbeat merge`; the method is merge/merge.c's file comment). Prints nothing: failures
 * are a bb_error, warnings and progress go to callbacks.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_MERGE_H
#define BB_CONVERT_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/error.h"
#include "backbeat/reader.h"

typedef struct mg_opts {
    bool dedup; /* true: one de-duplicating model re-packed; false (--no-dedup): the union
                   registry, then every other section of every input verbatim */
    /* Warnings ("warning: ..."), e.g. an intern id that differs between inputs (may be NULL). */
    void (*warn)(const char *msg, void *ctx);
    void *warn_ctx;
    /* Called every so often with the records written so far and their total (may be NULL). */
    void (*progress)(uint64_t done, uint64_t total, void *ctx);
    void *progress_ctx;
    /* The bytes of a dump opened from memory (a recovered ring file), NULL for one read from
       its file: --no-dedup copies sections from there (may be NULL: every dump is a file). */
    const uint8_t *(*dump_memory)(const bb_dump *dump, size_t *len);
} mg_opts;

/* Merge the `nd` open dumps (read from `paths`) into the file `out`, written aside and renamed
 * into place only when complete. False with a message naming the file and the problem. */
bool mg_merge(bb_dump **dumps, size_t nd, char *const *paths, const char *out, const mg_opts *opts,
              bb_error *err);

#endif /* BB_CONVERT_MERGE_H */
