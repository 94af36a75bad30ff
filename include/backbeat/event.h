/* backbeat/event.h — define events: one macro declares an event's C struct and its schema.
 * (This file is the contract; the machinery is in detail/event_impl.h and may change.)
 *
 *   BB_ENUM(role, uint8_t, (ROLE_CLIENT, 0, "client"), (ROLE_SERVER, 1, "server"));
 *
 *   BB_EVENT(packet_sent, "my_app::net", "PacketSent", "A packet was sent.",
 *            BB_KEY   (uint64_t, conn_id, "The connection."),
 *            BB_FIELD (uint32_t, len,     "Size of the packet.", BB_UNIT("bytes")),
 *            BB_ENUM_F(role,     role,    "Which side sent it."));
 *
 * BB_EVENT(ident, "namespace", "Name", "description" or NULL, fields...) defines
 * `typedef struct ident {...} ident;` (fill it with designated initialisers) and, per
 * translation unit, a static schema descriptor BB_DESC(ident) (a bb_event_desc *) whose
 * qualified name is "namespace::Name". A constructor registers the descriptor with the
 * process-wide registry (registry.h) when the object containing it is loaded, a destructor
 * unregisters it when it is unloaded (dlclose); nothing lists events anywhere.
 * BB_SPAN_ENTER_EVENT / BB_SPAN_EXIT_EVENT take the same arguments and mark span phases.
 *
 * Fields (each written once; the C type is inferred with _Generic in C, templates in C++):
 *   BB_FIELD(type, name, "desc", options...)   uint8_t..uint64_t, int8_t..int64_t, bool,
 *                                               uint8_t[N] (opaque bytes)
 *   BB_KEY(type, name, "desc", options...)     the same, with role key
 *   BB_SPAN_ID(uint64_t, name, "desc")         role span_id
 *   BB_PARENT_SPAN_ID(uint64_t, name, "desc")  role parent_span_id
 *   BB_ENUM_F(enumname, name, "desc", options...)  a BB_ENUM type
 *   BB_INTERN_F(name, "desc")                  static interned string (u32 id)
 *   BB_INTERN_DYN_F(name, "desc")              dynamic interned string (u32 id)
 * Padding: name an explicit filler field `_pad...` (BB_FIELD(uint8_t[3], _pad, NULL)): it is
 * recorded and kept in the schema, but readers treat it as padding (bb_rfield_is_padding), not
 * as data: no Parquet column, no trace arg.
 * Options: BB_UNIT("unit"), BB_SENTINEL(value) (the "absent" marker, stored as the
 * zero-extended image of the field's own width). A NULL description is absent; "" is
 * present-but-empty.
 *
 * Layout is checked at compile time; a failure is a static assertion whose message names the
 * event and the problem: implicit padding (before a named field or at the end), an unsupported
 * field type, a span enter/exit event without exactly one span_id field, a span_id or
 * parent_span_id that is not uint64_t, a sentinel on a bool or bytes field, a repeated option,
 * a record larger than BB_MAX_RECORD_SIZE, an enum value that does not fit its repr type.
 * At most 64 fields per event, 8 options per field, 128 labels per enum.
 *
 * A zero-field event (BB_EVENT(tick, "ns", "Tick", NULL)) has record_size 0; its C struct holds
 * one placeholder byte (ISO C has no empty structs) that is never recorded: copy
 * BB_RECORD_SIZE(ident) bytes of an event struct, not sizeof.
 *
 * Descriptors are per translation unit: an event defined in a header that several .c files
 * include has one descriptor in each (equal content, equal id); each registers, and registry
 * snapshots list the id once. Compare events by id (bb_event_id), not by BB_DESC pointer, across
 * files. In C++ an event may be defined inside a namespace; BB_DESC and BB_RECORD_SIZE paste the
 * identifier, so use them unqualified from inside that namespace.
 *
 * Static libraries: a linker pulls an archive member only when something references it, so an
 * object file of a static library that defines events but nothing the program uses is not
 * linked and its events are not registered (link it with --whole-archive if that matters).
 *
 * BB_VIEWS(ident, "sql") registers a block of query DDL (registry.h) the same way. Put it next
 * to the events it queries, in their header or in one .c file: the copies a header gives each
 * file that includes it are one view set (equal SQL text is listed once in snapshots and dumps).
 *
 * Mistakes in the macros' arguments fail with one static assertion at the user's line (the
 * field's line where the field macro is at fault, else the BB_EVENT line) whose message names
 * the event and the field: a field macro with too few or too many arguments (e.g. a missing
 * description), an argument of BB_EVENT that is not a field macro (e.g. a misspelled
 * BB_FEILD(...)), an option given as a field or before the description, BB_EVENT without its
 * description or with too few arguments, more than 64 fields. To this end event.h and its
 * detail/ headers declare themselves system headers (#pragma GCC system_header), which is
 * what they are once installed.
 *
 * Freestanding: needs only <stdint.h>, <stddef.h>, <stdbool.h>. Compiles in any standard mode,
 * ISO or GNU, from C99 (static assertions there are negative-size array typedefs, whose failures
 * do not show the message) and C++11, with no feature-test macro (GNU extensions used:
 * __typeof__, __attribute__, __atomic builtins, marked __extension__ where -pedantic asks).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_EVENT_H
#define BACKBEAT_EVENT_H
#ifndef BB__EVENT_NOT_SYSTEM_HEADER
#pragma GCC system_header
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "registry.h"
#include "schema.h"
#include "detail/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The id of `desc` (FORMAT.md "Event ids"): computes and stores it if it is still 0, which
 * happens only if the descriptor was never registered. Safe from several threads. */
BB_API uint64_t bb_event_id_resolve(bb_event_desc *desc);

#ifdef __cplusplus
}
#endif

/* The id of an event descriptor. The hot path: one relaxed load, plus a predictable branch
 * that is taken only for a descriptor whose id was never computed. */
static inline uint64_t bb_event_id(bb_event_desc *d) {
    uint64_t id = __atomic_load_n(&d->id, __ATOMIC_RELAXED);
    if (__builtin_expect(id == 0, 0)) id = bb_event_id_resolve(d);
    return id;
}

/* ---- events ----------------------------------------------------------------------------- */

/* BB_EVENT(ident, "namespace", "Name", "description" or NULL, fields...): at file scope, followed
 * by `;`. Defines the struct type `ident`, the static descriptor BB_DESC(ident) and its
 * registration; at most 64 fields. */
#define BB_EVENT(...) BB__EVENT(BB_PHASE_NONE, __VA_ARGS__)
/* The same, for the event that opens a span (exactly one BB_SPAN_ID field). */
#define BB_SPAN_ENTER_EVENT(...) BB__EVENT(BB_PHASE_ENTER, __VA_ARGS__)
/* The same, for the event that closes a span (exactly one BB_SPAN_ID field). */
#define BB_SPAN_EXIT_EVENT(...) BB__EVENT(BB_PHASE_EXIT, __VA_ARGS__)

/* The static descriptor (bb_event_desc *) of an event defined in this translation unit. */
#define BB_DESC(ident) (&bb__desc_##ident)
/* The number of field bytes of a record of `ident` (integer constant expression). */
#define BB_RECORD_SIZE(ident) BB__CAST(uint16_t, bb__rsize_##ident)

/* ---- fields (arguments of BB_EVENT after the description) --------------------------------- */

/* BB_FIELD(type, name, "description" or NULL, options...): a field of a supported type. */
#define BB_FIELD(...) BB__FIELD(bb__k_plain, __VA_ARGS__)
/* BB_KEY(type, name, "description" or NULL, options...): the same, with role key. */
#define BB_KEY(...) BB__FIELD(bb__k_key, __VA_ARGS__)
/* BB_SPAN_ID(uint64_t, name, "description" or NULL): the span id (role span_id). */
#define BB_SPAN_ID(...) BB__FIXED3(bb__k_span, __VA_ARGS__)
/* BB_PARENT_SPAN_ID(uint64_t, name, "description" or NULL): role parent_span_id. */
#define BB_PARENT_SPAN_ID(...) BB__FIXED3(bb__k_parent, __VA_ARGS__)
/* BB_ENUM_F(enumname, name, "description" or NULL, options...): a field of a BB_ENUM type. */
#define BB_ENUM_F(...) BB__FIELD(bb__k_enum, __VA_ARGS__)
/* BB_INTERN_F(name, "description" or NULL): a static interned string (u32 id). */
#define BB_INTERN_F(...) BB__FIXED2(bb__k_istatic, __VA_ARGS__)
/* BB_INTERN_DYN_F(name, "description" or NULL): a dynamic interned string (u32 id). */
#define BB_INTERN_DYN_F(...) BB__FIXED2(bb__k_idyn, __VA_ARGS__)

/* ---- options (arguments of a field macro after the description; each at most once) ------ */

/* BB_UNIT("unit"): the field's unit. */
#define BB_UNIT(u) (bb__o_unit, u)
/* BB_SENTINEL(value): the "absent" marker of an integer or enum field. */
#define BB_SENTINEL(v) (bb__o_sentinel, v)

/* ---- enums and views ---------------------------------------------------------------------- */

/* BB_ENUM(enumname, repr, (NAME, value, "label")...): at file scope, followed by `;`. Defines
 * the type `enumname` (= repr), the constants and the label table; at most 128 labels. */
#define BB_ENUM(...) BB__ENUM_X(BB__NLABELS(__VA_ARGS__), __VA_ARGS__)
/* BB_VIEWS(ident, "sql"): at file scope, followed by `;`. Registers a block of query DDL. */
#define BB_VIEWS(ident, sql) BB__VIEWS(ident, sql)

#include "detail/event_impl.h"

#endif /* BACKBEAT_EVENT_H */
