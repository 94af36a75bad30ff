/* format/names.c — printable names of field types, roles, phases and section kinds (see
 * format/names.h). */
/* SPDX-License-Identifier: MIT */
#include "format/names.h"

#include "backbeat/schema.h"
#include "format/sections.h"

const char *bb__type_name(uint8_t type) {
    static const char *const names[] = {"u8",  "u16", "u32",  "u64",   "i8",   "i16",
                                        "i32", "i64", "bool", "bytes", "enum", "interned"};
    return type < sizeof names / sizeof names[0] ? names[type] : NULL;
}

const char *bb__role_name(uint8_t role) {
    switch (role) {
    case BB_ROLE_KEY: return "key";
    case BB_ROLE_SPAN_ID: return "span_id";
    case BB_ROLE_PARENT_SPAN_ID: return "parent_span_id";
    default: return "none";
    }
}

const char *bb__phase_name(uint8_t phase) {
    switch (phase) {
    case BB_PHASE_ENTER: return "enter";
    case BB_PHASE_EXIT: return "exit";
    default: return "none";
    }
}

const char *bb__section_kind_name(uint16_t kind) {
    switch (kind) {
    case BB_SECTION_SCHEMA: return "schema";
    case BB_SECTION_INTERN: return "intern";
    case BB_SECTION_SHARD: return "shard";
    case BB_SECTION_META: return "meta";
    case BB_SECTION_VIEWS: return "views";
    case BB_SECTION_PROCESS: return "process";
    default: return "unknown";
    }
}
