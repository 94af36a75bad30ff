/* grow.c — the subcommands' growing arrays (tail's sources and records, top's processes and
 * events): a capacity doubled until it holds what is needed. */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "cli/cli_util.h"

bool cli_grow(void *array, size_t *cap, size_t need, size_t size, size_t first) {
    if (need <= *cap) return true;
    size_t n = *cap ? *cap * 2 : first;
    while (n < need) n *= 2;
    void *g = realloc(*(void **)array, n * size);
    if (!g) return false;
    *(void **)array = g;
    *cap = n;
    return true;
}
