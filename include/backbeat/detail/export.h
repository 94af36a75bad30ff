/* backbeat/detail/export.h — BB_API, the one export macro: what a shared library of backbeat
 * exports is exactly what a public header declares with it (the libraries are compiled with
 * hidden visibility; tests/abi compares the exported symbols with a committed list).
 * Machinery: may change in any release. Freestanding, C and C++. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_DETAIL_EXPORT_H
#define BACKBEAT_DETAIL_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define BB_API __attribute__((visibility("default")))
#else
#define BB_API
#endif

#endif /* BACKBEAT_DETAIL_EXPORT_H */
