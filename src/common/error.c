/* error.c — bb_strerror: the message for each bb_status. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/error.h"

const char *bb_strerror(bb_status status) {
    switch (status) {
    case BB_OK: return "success";
    case BB_ERR_INVALID: return "invalid argument";
    case BB_ERR_NOMEM: return "out of memory";
    case BB_ERR_IO: return "I/O error";
    case BB_ERR_NOT_DUMP: return "not a backbeat dump";
    case BB_ERR_VERSION: return "unsupported format version";
    case BB_ERR_TRUNCATED: return "truncated input";
    case BB_ERR_BOUNDS: return "out of bounds";
    case BB_ERR_CORRUPT: return "corrupt input";
    case BB_ERR_TOO_LARGE: return "record too large";
    case BB_ERR_FULL: return "table full";
    case BB_ERR_DISABLED: return "recorder disabled";
    }
    return "unknown error";
}
