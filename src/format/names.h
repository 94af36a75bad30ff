/* format/names.h — the printable names of the format's enumerations (field type, role, phase,
 * section kind), their one home. Internal (hidden visibility): `backbeat inspect` and the
 * convert writers print them. The values are those of backbeat/schema.h and format/sections.h.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_FORMAT_NAMES_H
#define BB_FORMAT_NAMES_H

#include <stdint.h>

/* "u8", "u16", ..., "bool", "bytes", "enum", "interned" for an enum bb_type value, or NULL for
 * a value the format does not define (each caller prints its own placeholder). */
const char *bb__type_name(uint8_t type);
/* "key", "span_id", "parent_span_id" for an enum bb_role value; "none" for BB_ROLE_NONE and
 * any undefined value. */
const char *bb__role_name(uint8_t role);
/* "enter", "exit" for an enum bb_phase value; "none" for BB_PHASE_NONE and any undefined
 * value. */
const char *bb__phase_name(uint8_t phase);
/* "schema", "intern", "shard", "meta", "views", "process" for a BB_SECTION_* kind; "unknown" for any
 * other (a reader skips kinds it does not know). */
const char *bb__section_kind_name(uint16_t kind);

#endif /* BB_FORMAT_NAMES_H */
