/* logfmt.h — log lines as their readers show them: which schema is a log call site (the encoding
 * of docs/LOG_LINES.md) and a record's message formatted as C's printf would have. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_LOGFMT_H
#define BB_LOGFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A log call site, read from its schema's description. The views point into the schema. */
typedef struct lf_site {
    int level; /* 0 trace .. 5 fatal */
    uint32_t line;
    bb_strview file; /* as readers show it (lf_file_shown) */
    bb_strview path; /* as the call site recorded it (__FILE__) */
    bb_strview function, format;
} lf_site;

/* The file of a call site as log lines show it: an absolute path (CMake's __FILE__) by its last
 * component, a relative one (-fmacro-prefix-map, a build from the source directory) as it is
 * without its leading "./" and "../" (docs/LOG_LINES.md "File names"). */
bb_strview lf_file_shown(bb_strview path);

/* True (and *out filled) if `schema` is a log call site: namespace `backbeat.log` and a
 * description in the documented encoding. */
bool lf_site_parse(const bb_rschema *schema, lf_site *out);

/* True if field `f`'s description is exactly `what` (a log argument's kind: "double",
 * "string", "pointer", a signed repr, docs/LOG_LINES.md). */
bool lf_desc_is(const bb_rfield *f, const char *what);

/* True if field `f` of a log call site holds a `double` or `long double` argument (its IEEE 754
 * bits in a u64, docs/LOG_LINES.md): readers show it as a floating-point number. */
bool lf_arg_is_double(const bb_rfield *f);

/* The double of such a field in `fields`. */
double lf_arg_double(const bb_rfield *f, const uint8_t *fields);

/* A `string` argument of a log call site (length byte, then the bytes): true if `f` is one and
 * its recorded length is valid, *text its bytes (cut ones without a UTF-8 character the cut
 * split), *cut whether it was cut (readers add "..."), *null whether it was NULL. */
bool lf_arg_string(const bb_rfield *f, const uint8_t *fields, bb_strview *text, bool *cut,
                   bool *null);

/* "trace" .. "fatal" ("?" for another number). */
const char *lf_level_name(int level);
/* The number of a level name ("trace" .. "fatal" or "warning", any case, as BACKBEAT_LOG_LEVEL
 * and the trigger grammar read them); false for another text. */
bool lf_level_parse(const char *name, int *out);

/* Format the message of one record of `site`: the format with each conversion replaced by its
 * argument (field i is argument i) as snprintf formats it. Interned strings resolve through
 * `inst` (may be NULL). Writes at most cap - 1 bytes and a NUL (cap > 0); returns the bytes
 * written. A conversion without a matching argument writes "(missing)", one whose argument has
 * another kind "(invalid)"; %n writes nothing. */
size_t lf_format(const lf_site *site, const bb_rschema *schema, const uint8_t *fields,
                 const bb_rinstance *inst, char *out, size_t cap);

/* One line of a log file: "<seconds>.<nanoseconds> [<who> ]<level> <file>:<line> <message>"
 * (no newline), the time the record's; `who` (the process, say) may be NULL. Same bounds and
 * return as lf_format. */
size_t lf_line(const lf_site *site, const bb_rschema *schema, const bb_record *rec,
               const bb_rinstance *inst, const char *who, char *out, size_t cap);

/* An integer conversion's spec (number.c). */
typedef struct lf_numspec {
    bool left, plus, space, alt, zero; /* the flags - + ' ' # 0 */
    int width, prec;                   /* -1: none */
    char conv;                         /* d i u o x X */
} lf_numspec;

/* The conversion of the integer -mag (neg) or mag as printf formats it: writes at most cap bytes
 * (no NUL) to d, returns the bytes written. */
size_t lf_number(const lf_numspec *sp, bool neg, uint64_t mag, char *d, size_t cap);

/* A cache of parsed sites by schema (several readers hold one each). */
typedef struct lf_cache lf_cache;
lf_cache *lf_cache_new(void);
void lf_cache_free(lf_cache *c);
/* The site of `schema`, NULL when it is no log call site (or out of memory). */
const lf_site *lf_cache_get(lf_cache *c, const bb_rschema *schema);

#ifdef __cplusplus
}
#endif

#endif
