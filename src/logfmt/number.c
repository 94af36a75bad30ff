/* number.c — an integer conversion (%d %i %u %o %x %X) formatted as C's printf formats it, without
 * snprintf: the read side's most frequent conversion (src/logfmt/format.c calls it; the tests
 * compare every flag, width and precision with snprintf). */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "logfmt/logfmt.h"

/* Write `c` n times at d[*at] while room lasts. */
static void fill(char *d, size_t cap, size_t *at, char c, size_t n) {
    size_t k = cap - *at < n ? cap - *at : n;
    memset(d + *at, c, k);
    *at += k;
}

static void copy(char *d, size_t cap, size_t *at, const char *s, size_t n) {
    size_t k = cap - *at < n ? cap - *at : n;
    memcpy(d + *at, s, k);
    *at += k;
}

size_t lf_number(const lf_numspec *sp, bool neg, uint64_t mag, char *d, size_t cap) {
    unsigned base = sp->conv == 'o' ? 8 : sp->conv == 'x' || sp->conv == 'X' ? 16 : 10;
    const char *dig = sp->conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
    char digits[24];
    size_t nd = 0, nzero = 0, npre = 0, at = 0;
    for (uint64_t v = mag; v; v /= base) digits[sizeof digits - 1 - nd++] = dig[v % base];
    if (sp->prec < 0) nzero = nd == 0; /* 0 prints "0" unless the precision is 0 */
    else if ((size_t)sp->prec > nd) nzero = (size_t)sp->prec - nd;
    if (sp->alt && base == 8 && nzero == 0 && (nd == 0 || digits[sizeof digits - nd] != '0'))
        nzero = 1; /* %#o: the first digit is 0 */
    char sign = 0;
    if (sp->conv == 'd' || sp->conv == 'i') sign = neg ? '-' : sp->plus ? '+' : sp->space ? ' ' : 0;
    if (sp->alt && base == 16 && mag != 0) npre = 2;
    size_t body = (sign != 0) + npre + nzero + nd;
    size_t pad = sp->width > 0 && (size_t)sp->width > body ? (size_t)sp->width - body : 0;
    bool zeropad = sp->zero && !sp->left && sp->prec < 0;
    if (!sp->left && !zeropad) fill(d, cap, &at, ' ', pad);
    if (sign) fill(d, cap, &at, sign, 1);
    if (npre) copy(d, cap, &at, sp->conv == 'X' ? "0X" : "0x", 2);
    if (zeropad) fill(d, cap, &at, '0', pad);
    fill(d, cap, &at, '0', nzero);
    copy(d, cap, &at, digits + sizeof digits - nd, nd);
    if (sp->left) fill(d, cap, &at, ' ', pad);
    return at;
}
