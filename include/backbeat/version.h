/* backbeat/version.h — the release this header belongs to, and the library's at run time.
 *
 * This file is the one source of truth of the version: CMake reads the three numbers from it
 * (project version, soname, package files) and `backbeat --version` prints them. The major
 * number is the soname's (libbackbeat.so.0): it changes when a program built against older
 * headers could be misread by the new library. BB_ABI_LAYOUT (detail/abi.h) guards the
 * structures compiled into programs.
 *
 * Freestanding, C and C++.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_VERSION_H
#define BACKBEAT_VERSION_H

#include "detail/export.h"

#define BB_VERSION_MAJOR 0
#define BB_VERSION_MINOR 1
#define BB_VERSION_PATCH 0

#define BB__VERSION_STR_(x) #x
#define BB__VERSION_STR(x) BB__VERSION_STR_(x)
/* "MAJOR.MINOR.PATCH" of these headers. */
#define BB_VERSION_STRING             \
    BB__VERSION_STR(BB_VERSION_MAJOR) \
    "." BB__VERSION_STR(BB_VERSION_MINOR) "." BB__VERSION_STR(BB_VERSION_PATCH)
/* One integer that compares like the version: MAJOR * 10000 + MINOR * 100 + PATCH. */
#define BB_VERSION_NUMBER (BB_VERSION_MAJOR * 10000 + BB_VERSION_MINOR * 100 + BB_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library linked at run time ("MAJOR.MINOR.PATCH", static string), and the
 * same as BB_VERSION_NUMBER would give. A program can compare them with the macros to notice a
 * library older than its headers. */
BB_API const char *bb_version(void);
BB_API unsigned bb_version_number(void);

#ifdef __cplusplus
}
#endif

#endif /* BACKBEAT_VERSION_H */
