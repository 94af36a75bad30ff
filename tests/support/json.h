/* json.h — a small JSON parser for backbeat's tests (golden vectors, expected outputs).
 *
 * Parses a whole document into a tree. Numbers keep their source text so 64-bit integers are
 * compared exactly (json_u64 / json_i64 also accept the golden files' decimal strings for
 * magnitudes above 2^53). Not for production input: errors are reported, not recovered.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_TEST_JSON_H
#define BB_TEST_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum json_kind {
    JSON_NULL,
    JSON_BOOL,
    JSON_NUMBER,
    JSON_STRING,
    JSON_ARRAY,
    JSON_OBJECT
} json_kind;

typedef struct json_value json_value;

/* Parse `len` bytes of JSON text; NULL on error with a message in err (may be NULL). */
json_value *json_parse(const char *text, size_t len, char *err, size_t errlen);
/* Read and parse a file; NULL on error (message names the file). */
json_value *json_parse_file(const char *path, char *err, size_t errlen);
void json_free(json_value *v);

json_kind json_kind_of(const json_value *v);
bool json_is_null(const json_value *v); /* true for NULL pointers too */

/* Object member by key (NULL when missing or v is not an object). */
const json_value *json_get(const json_value *obj, const char *key);
/* Number of elements (array) or members (object); 0 otherwise. */
size_t json_len(const json_value *v);
/* Element i of an array, or the value of member i of an object (NULL out of range). */
const json_value *json_at(const json_value *v, size_t i);
/* Key of member i of an object (NULL out of range). */
const char *json_key_at(const json_value *obj, size_t i);

/* String contents (NUL-terminated, may contain NULs: see json_str_len); NULL if not a string. */
const char *json_str(const json_value *v);
size_t json_str_len(const json_value *v);
bool json_bool(const json_value *v);
/* Source text of a number; NULL if not a number. */
const char *json_num_text(const json_value *v);
double json_num(const json_value *v);
/* Exact integer conversions: a JSON integer number, or a string of decimal digits
 * (optionally '-' for i64). false when not representable. */
bool json_u64(const json_value *v, uint64_t *out);
bool json_i64(const json_value *v, int64_t *out);
/* Parse 16-hex-digit ids like "1122334455667788". */
bool json_hex_u64(const json_value *v, uint64_t *out);

/* Deep structural equality. Integers compare exactly by value (a number and the decimal string
 * form of the same integer are NOT equal: the golden files distinguish them); object member
 * order is ignored. On mismatch, writes a path like "$.instances[0].records[3].fields.len" and
 * a short reason into `where` (may be NULL). */
bool json_equal(const json_value *a, const json_value *b, char *where, size_t wherelen);

/* Append `v` as compact JSON text to a growing buffer (buf, len and cap, realloc-ed). */
bool json_write(const json_value *v, char **buf, size_t *len, size_t *cap);

#endif /* BB_TEST_JSON_H */
