/* backbeat/schema.h — the self-describing schema of an event, as the program holds it.
 *
 * These descriptors are what the BB_EVENT macros (event.h) emit as static data, what the
 * registry links together, and what the dump writer serialises into the Schema section
 * (FORMAT.md, kind 0). Freestanding: only <stdint.h>, <stddef.h> and <stdbool.h>.
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_SCHEMA_H
#define BACKBEAT_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "detail/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Field type tags, exactly the wire values of FORMAT.md. */
enum bb_type {
    BB_TYPE_U8 = 0,
    BB_TYPE_U16 = 1,
    BB_TYPE_U32 = 2,
    BB_TYPE_U64 = 3,
    BB_TYPE_I8 = 4,
    BB_TYPE_I16 = 5,
    BB_TYPE_I32 = 6,
    BB_TYPE_I64 = 7,
    BB_TYPE_BOOL = 8,
    BB_TYPE_BYTES = 9,
    BB_TYPE_ENUM = 10,    /* + repr width byte (1, 2, 4, 8) */
    BB_TYPE_INTERNED = 11 /* + dynamic flag byte (0 static, 1 dynamic); stored as u32 id */
};

/* Field roles, wire values. */
enum bb_role { BB_ROLE_NONE = 0, BB_ROLE_KEY = 1, BB_ROLE_SPAN_ID = 2, BB_ROLE_PARENT_SPAN_ID = 3 };

/* Event phases, wire values. */
enum bb_phase { BB_PHASE_NONE = 0, BB_PHASE_ENTER = 1, BB_PHASE_EXIT = 2 };

/* Largest record_size the format can carry: the u16 payload length is 16 + record_size. */
#define BB_MAX_RECORD_SIZE (65535u - 16u)

/* One value -> label pair of an enum field. ABI (part of the descriptors, detail/abi.h). */
typedef struct bb_enum_label {
    uint64_t value;
    const char *label; /* NUL-terminated UTF-8 */
} bb_enum_label;

/* One field of an event. ABI (part of the descriptors, detail/abi.h). Strings are
 * NUL-terminated UTF-8; NULL means "absent" (an empty string "" is present-but-empty, which
 * hashes differently). */
typedef struct bb_field_desc {
    const char *name;
    const char *description;     /* NULL = absent */
    const char *unit;            /* NULL = absent */
    const bb_enum_label *labels; /* label_count entries, NULL when 0 */
    uint64_t sentinel;           /* zero-extended image of the field bytes; valid if has_sentinel */
    uint16_t offset;             /* within the record's field bytes */
    uint16_t width;              /* bytes */
    uint16_t label_count;
    uint8_t type;         /* enum bb_type */
    uint8_t type_arg;     /* enum: repr width; interned: 1 dynamic / 0 static; else 0 */
    uint8_t role;         /* enum bb_role */
    uint8_t has_sentinel; /* 0 or 1 */
} bb_field_desc;

/* One event type. The macros emit one of these per event per translation unit; it is
 * mutable only in `id` (filled once) and `registry_next` (owned by the registry).
 * ABI: compiled into programs (detail/abi.h). `abi` must be BB__ABI_LAYOUT for the registry and
 * the recorder to accept the descriptor (the macros set it; a hand-made descriptor that is
 * registered or recorded sets it too). The dump writer takes descriptors as plain data and does
 * not look at it. */
typedef struct bb_event_desc {
    uint32_t abi;            /* BB__ABI_LAYOUT of the headers it was built with */
    const char *name;        /* qualified: "namespace::EventName" */
    const char *description; /* NULL = absent */
    const bb_field_desc *fields;
    uint16_t field_count;
    uint16_t record_size; /* sizeof the event's struct: the field bytes of a record */
    uint8_t phase;        /* enum bb_phase */
    uint64_t id;          /* content hash (FORMAT.md "Event ids"); 0 until computed */
    struct bb_event_desc *registry_next; /* registry link, owned by registry.c */
} bb_event_desc;

#ifdef __cplusplus
}
#endif

#endif /* BACKBEAT_SCHEMA_H */
