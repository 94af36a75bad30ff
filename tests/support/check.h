/* check.h — the CHECK assertion shared by the C tests.
 *
 * CHECK(cond, fmt, ...) evaluates cond once; when it is false it prints "file:line: CHECK(cond)
 * failed: " and the printf-style message to stderr, counts one failure and carries on (a test
 * reports every broken check, not only the first). The count is `failures`, a static of the
 * including file: a test's main ends with `return failures ? 1 : 0;`. Meant for tests made of
 * one translation unit (each file including it has its own counter). Header-only.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_TEST_CHECK_H
#define BB_TEST_CHECK_H

#include <stdio.h>

/* Failed checks in this translation unit. */
static int failures __attribute__((unused));

#define CHECK(cond, ...)                                                             \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
            failures++;                                                              \
        }                                                                            \
    } while (0)

#endif /* BB_TEST_CHECK_H */
