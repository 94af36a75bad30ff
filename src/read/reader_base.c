/* reader_base.c — what every phase of the dump reader stands on (read/reader_internal.h):
 * allocation owned by the dump, error messages naming the dump, bounded string reads. Below
 * the decode driver (reader.c) and the phases. */
/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_set.h"
#include "format/names.h"
#include "read/reader_internal.h"

/* ---- allocation owned by the dump ---------------------------------------------------------- */

/* Zeroed block of `n` bytes freed with the dump; NULL on failure. */
void *bb__rd_alloc(bb_dump *d, size_t n) {
    if (n > SIZE_MAX - sizeof(alloc_link) - 16) return NULL;
    alloc_link *l = calloc(1, sizeof(alloc_link) + 16 + n);
    if (!l) return NULL;
    l->next = d->allocs;
    d->allocs = l;
    return (char *)l + 16; /* keep 16-byte alignment of the payload */
}

/* Zeroed array of `n` elements of `size` bytes, with overflow check. */
void *bb__rd_array(bb_dump *d, size_t n, size_t size) {
    if (n == 0) n = 1;
    if (n > SIZE_MAX / size) return NULL;
    return bb__rd_alloc(d, n * size);
}

/* ---- errors -------------------------------------------------------------------------------- */

bb_status bb__rd_fail(ctx *c, bb_status st, uint64_t offset, const char *fmt, ...) {
    if (c->err) {
        char text[sizeof c->err->message];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(text, sizeof text, fmt, ap);
        va_end(ap);
        bb__err_set(c->err, st, offset, c->d->name, "%s", text);
    }
    return st;
}

/* The error for a cursor that ran out inside section `si`. */
bb_status bb__rd_truncated_in(ctx *c, size_t si, const bb__read_cursor *cur) {
    return bb__rd_fail(c, BB_ERR_TRUNCATED, cur->fail_at,
                       "section %zu (%s) truncated at byte %llu: a structure runs past its end", si,
                       bb__section_kind_name(c->d->secs[si].kind),
                       (unsigned long long)cur->fail_at);
}

/* ---- strings ------------------------------------------------------------------------------- */

/* Read a `str` (u16 length + bytes); if `strict`, invalid UTF-8 is an error. 0 on success, else
 * the status already reported. */
bb_status bb__rd_str(ctx *c, size_t si, bb__read_cursor *cur, bool strict, const char *what,
                     bb_strview *out) {
    uint16_t n = bb__cursor_u16(cur);
    uint64_t at = bb__cursor_abs(cur);
    const uint8_t *p = bb__cursor_take(cur, n);
    if (!cur->ok) return bb__rd_truncated_in(c, si, cur);
    if (strict && !bb_utf8_valid(p, n))
        return bb__rd_fail(
            c, BB_ERR_CORRUPT, at, "section %zu (%s): invalid UTF-8 in %s at byte %llu", si,
            bb__section_kind_name(c->d->secs[si].kind), what, (unsigned long long)at);
    out->ptr = (const char *)p;
    out->len = n;
    return BB_OK;
}

/* Read an `opt_str`. */
bb_status bb__rd_opt_str(ctx *c, size_t si, bb__read_cursor *cur, const char *what, bool *has,
                         bb_strview *out) {
    uint8_t present = bb__cursor_u8(cur);
    if (!cur->ok) return bb__rd_truncated_in(c, si, cur);
    *has = present != 0;
    out->ptr = "";
    out->len = 0;
    return *has ? bb__rd_str(c, si, cur, true, what, out) : BB_OK;
}
