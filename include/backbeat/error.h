/* backbeat/error.h — status codes and error values shared by every backbeat API.
 *
 * Functions that can fail return a bb_status; those that can say more fill a caller-owned
 * bb_error (may be NULL) with a human-readable message and, for dump parsing, the byte offset
 * where the problem was found. The library never aborts.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_ERROR_H
#define BACKBEAT_ERROR_H

#include <stdint.h>
#include "detail/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bb_status {
    BB_OK = 0,
    BB_ERR_INVALID = 1,   /* bad argument or configuration */
    BB_ERR_NOMEM = 2,     /* allocation failed */
    BB_ERR_IO = 3,        /* open/read/write/mmap failed (errno in the message) */
    BB_ERR_NOT_DUMP = 4,  /* wrong magic */
    BB_ERR_VERSION = 5,   /* unsupported format version */
    BB_ERR_TRUNCATED = 6, /* input ends before a structure it announces */
    BB_ERR_BOUNDS = 7,    /* a section or count points past its container */
    BB_ERR_CORRUPT = 8,   /* a value is malformed (bad UTF-8, unknown type tag, ...) */
    BB_ERR_TOO_LARGE = 9, /* record larger than the ring or the format allows */
    BB_ERR_FULL = 10,     /* a bounded table (e.g. the intern table) is full */
    BB_ERR_DISABLED = 11  /* the recorder is disabled; nothing was recorded */
} bb_status;

/* A static, never-NULL English description of a status code. */
BB_API const char *bb_strerror(bb_status status);

/* Detailed error: status, a message naming what is wrong, and the byte offset in the input
 * where it was found (UINT64_MAX when not applicable). */
typedef struct bb_error {
    bb_status status;
    uint64_t offset;
    char message[256];
} bb_error;

#ifdef __cplusplus
}
#endif

#endif /* BACKBEAT_ERROR_H */
