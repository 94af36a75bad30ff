/* backbeat/event.h — define events: one macro declares an event's C struct and its schema.
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
 * Options: BB_UNIT("unit"), BB_SENTINEL(value) (the "absent" marker, stored as the
 * zero-extended image of the field's own width). A NULL description is absent; "" is
 * present-but-empty.
 *
 * Layout is checked at compile time; a failure is a static assertion whose message names the
 * event and the problem: implicit padding (before a named field or at the end), an unsupported
 * field type, a span enter/exit event without exactly one span_id field, a span_id or
 * parent_span_id that is not uint64_t, a sentinel on a bool or bytes field, a repeated option,
 * a record larger than BB_MAX_RECORD_SIZE, an enum value that does not fit its repr type. At most 64 fields per event, 128 labels per enum.
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
 * BB_VIEWS(ident, "sql") registers a block of query DDL (registry.h) the same way.
 *
 * Freestanding: needs only <stdint.h>, <stddef.h>, <stdbool.h>. Compiles as C11 (GNU
 * extensions used: __typeof__, __attribute__, __atomic builtins) and as C++17.
 */
#ifndef BACKBEAT_EVENT_H
#define BACKBEAT_EVENT_H

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
static inline uint64_t bb_event_id(bb_event_desc *d)
{
    uint64_t id = __atomic_load_n(&d->id, __ATOMIC_RELAXED);
    if (__builtin_expect(id == 0, 0))
        id = bb_event_id_resolve(d);
    return id;
}

/* ---- public vocabulary ------------------------------------------------------------------ */

/* The static descriptor (bb_event_desc *) of an event defined in this translation unit. */
#define BB_DESC(ident) (&bb__desc_##ident)
/* The number of field bytes of a record of `ident` (integer constant expression). */
#define BB_RECORD_SIZE(ident) BB__CAST(uint16_t, bb__rsize_##ident)

#define BB_EVENT(...) BB__EVENT(BB_PHASE_NONE, __VA_ARGS__)
#define BB_SPAN_ENTER_EVENT(...) BB__EVENT(BB_PHASE_ENTER, __VA_ARGS__)
#define BB_SPAN_EXIT_EVENT(...) BB__EVENT(BB_PHASE_EXIT, __VA_ARGS__)

/* A field is a tuple (kind, type, name, description, options...) consumed by BB__EVENT. */
#define BB_FIELD(...) (bb__k_plain, __VA_ARGS__)
#define BB_KEY(...) (bb__k_key, __VA_ARGS__)
#define BB_SPAN_ID(type, name, desc) (bb__k_span, type, name, desc)
#define BB_PARENT_SPAN_ID(type, name, desc) (bb__k_parent, type, name, desc)
#define BB_ENUM_F(...) (bb__k_enum, __VA_ARGS__)
#define BB_INTERN_F(name, desc) (bb__k_istatic, uint32_t, name, desc)
#define BB_INTERN_DYN_F(name, desc) (bb__k_idyn, uint32_t, name, desc)

/* Options are tuples (kind, value). */
#define BB_UNIT(u) (bb__o_unit, u)
#define BB_SENTINEL(v) (bb__o_sentinel, v)

#define BB_ENUM(...) BB__ENUM_X(BB__NLABELS(__VA_ARGS__), __VA_ARGS__)
#define BB_VIEWS(ident, sql) BB__VIEWS(ident, sql)

/* ---- implementation --------------------------------------------------------------------- */

#ifdef __cplusplus
#define BB__SASSERT(cond, msg) static_assert(cond, msg)
extern "C++" { /* in case the header is included inside an extern "C" block */
/* Type of a field from its type name (also for array types such as uint8_t[16]). */
template <class T> struct bb__cxx_id { typedef T type; };
/* Wire type tag of a C++ type; 255 = unsupported. */
template <class T> struct bb__cxx_tag { static constexpr uint8_t value = 255; };
template <> struct bb__cxx_tag<uint8_t> { static constexpr uint8_t value = BB_TYPE_U8; };
template <> struct bb__cxx_tag<uint16_t> { static constexpr uint8_t value = BB_TYPE_U16; };
template <> struct bb__cxx_tag<uint32_t> { static constexpr uint8_t value = BB_TYPE_U32; };
template <> struct bb__cxx_tag<uint64_t> { static constexpr uint8_t value = BB_TYPE_U64; };
template <> struct bb__cxx_tag<int8_t> { static constexpr uint8_t value = BB_TYPE_I8; };
template <> struct bb__cxx_tag<int16_t> { static constexpr uint8_t value = BB_TYPE_I16; };
template <> struct bb__cxx_tag<int32_t> { static constexpr uint8_t value = BB_TYPE_I32; };
template <> struct bb__cxx_tag<int64_t> { static constexpr uint8_t value = BB_TYPE_I64; };
template <> struct bb__cxx_tag<bool> { static constexpr uint8_t value = BB_TYPE_BOOL; };
template <size_t N> struct bb__cxx_tag<uint8_t[N]> {
    static constexpr uint8_t value = BB_TYPE_BYTES;
};
}
#define BB__DECL(t) bb__cxx_id<t>::type
#define BB__CAST(T, v) static_cast<T>(v)
#define BB__TAG(type) (bb__cxx_tag<type>::value)
#define BB__ENUM_DECL(e, repr) enum : repr
#else
#define BB__SASSERT(cond, msg) _Static_assert(cond, msg)
#define BB__DECL(type) __typeof__(type)
#define BB__CAST(T, v) ((T)(v))
/* Wire type tag of a C type name; 255 = unsupported. An array decays to a pointer to its
 * element in the controlling expression, so uint8_t[N] selects `uint8_t *`; a real pointer
 * type is excluded first. */
#define BB__TAG(type)                                                                              \
    _Generic((__typeof__(type) *)0, uint8_t **: 255, default: _Generic(                            \
        *(__typeof__(type) *)0, uint8_t: BB_TYPE_U8, uint16_t: BB_TYPE_U16,                        \
        uint32_t: BB_TYPE_U32, uint64_t: BB_TYPE_U64, int8_t: BB_TYPE_I8,                          \
        int16_t: BB_TYPE_I16, int32_t: BB_TYPE_I32, int64_t: BB_TYPE_I64,                          \
        bool: BB_TYPE_BOOL, uint8_t *: BB_TYPE_BYTES, default: 255))
#define BB__ENUM_DECL(e, repr) __extension__ enum
#endif

#define BB__PACKED __attribute__((packed))

#define BB__CAT(a, b) BB__CAT_(a, b)
#define BB__CAT_(a, b) a##b
#define BB__UNPACK(...) __VA_ARGS__
#define BB__HEAD(...) BB__HEAD_(__VA_ARGS__)
#define BB__HEAD_(a, ...) a

/* The zero-extended image of value `v` in the width of `type`. */
#define BB__ZEXT(type, v)                                                                          \
    (BB__CAST(uint64_t, v) &                                                                       \
     (~BB__CAST(uint64_t, 0) >> (sizeof(type) >= 8 ? 0 : 64 - 8 * sizeof(type))))

/* Maps: BB__xMAP(n, step, ctx, head, items...) expands step(ctx, item) for each of the n
 * items (the head argument only keeps `...` non-empty). */
#define BB__FMAP(n, m, c, ...) BB__CAT(BB__FMAP_, n)(m, c, __VA_ARGS__)
#define BB__LMAP(n, m, c, ...) BB__CAT(BB__LMAP_, n)(m, c, __VA_ARGS__)
#define BB__OMAP(m, c, ...) BB__OCAT(BB__OMAP_, BB__NOPTS(__VA_ARGS__))(m, c, __VA_ARGS__)
#define BB__OCAT(a, b) BB__OCAT_(a, b)
#define BB__OCAT_(a, b) a##b

/* Options of a field, given `desc, options...`: the unit (or NULL), whether there is a
 * sentinel, the sentinel image. */
#define BB__UNIT_OF(...) BB__OHEAD(BB__OMAP(BB__O_UNIT, ~, __VA_ARGS__) NULL, ~)
#define BB__HAS_SENT(...) BB__OHEAD(BB__OMAP(BB__O_HAS, ~, __VA_ARGS__) 0, ~)
#define BB__SENT_OF(type, ...) BB__OHEAD(BB__OMAP(BB__O_SENT, type, __VA_ARGS__) 0, ~)
#define BB__OHEAD(...) BB__OHEAD_(__VA_ARGS__)
#define BB__OHEAD_(a, ...) a
#define BB__O_UNIT(c, o) BB__O_UNIT_ o
#define BB__O_UNIT_(k, v) BB__O_UNIT_##k(v)
#define BB__O_UNIT_bb__o_unit(v) v,
#define BB__O_UNIT_bb__o_sentinel(v)
#define BB__O_HAS(c, o) BB__O_HAS_ o
#define BB__O_HAS_(k, v) BB__O_HAS_##k(v)
#define BB__O_HAS_bb__o_unit(v)
#define BB__O_HAS_bb__o_sentinel(v) 1,
#define BB__NOPT_OF(k, ...) (0 BB__OMAP(BB__O_COUNT, k, __VA_ARGS__))
#define BB__O_COUNT(k, o) BB__O_COUNT_X(k, BB__UNPACK o)
#define BB__O_COUNT_X(k, ...) BB__O_COUNT_Y(k, __VA_ARGS__)
#define BB__O_COUNT_Y(k, ok, v) BB__O_COUNT_##k##_##ok
#define BB__O_COUNT_bb__o_unit_bb__o_unit +1
#define BB__O_COUNT_bb__o_unit_bb__o_sentinel
#define BB__O_COUNT_bb__o_sentinel_bb__o_unit
#define BB__O_COUNT_bb__o_sentinel_bb__o_sentinel +1
#define BB__O_SENT(c, o) BB__O_SENT_X(c, BB__UNPACK o)
#define BB__O_SENT_X(c, ...) BB__O_SENT_Y(c, __VA_ARGS__)
#define BB__O_SENT_Y(c, k, v) BB__O_SENT_##k(c, v)
#define BB__O_SENT_bb__o_unit(type, v)
#define BB__O_SENT_bb__o_sentinel(type, v) BB__ZEXT(type, v),

/* Per field kind: type tag, type argument, role, labels, label count, span_id count. */
#define BB__KTAG_bb__k_plain(t) BB__TAG(t)
#define BB__KTAG_bb__k_key(t) BB__TAG(t)
#define BB__KTAG_bb__k_span(t) BB__TAG(t)
#define BB__KTAG_bb__k_parent(t) BB__TAG(t)
#define BB__KTAG_bb__k_enum(t) BB_TYPE_ENUM
#define BB__KTAG_bb__k_istatic(t) BB_TYPE_INTERNED
#define BB__KTAG_bb__k_idyn(t) BB_TYPE_INTERNED
#define BB__KARG_bb__k_plain(t) 0
#define BB__KARG_bb__k_key(t) 0
#define BB__KARG_bb__k_span(t) 0
#define BB__KARG_bb__k_parent(t) 0
#define BB__KARG_bb__k_enum(t) sizeof(t)
#define BB__KARG_bb__k_istatic(t) 0
#define BB__KARG_bb__k_idyn(t) 1
#define BB__KROLE_bb__k_plain BB_ROLE_NONE
#define BB__KROLE_bb__k_key BB_ROLE_KEY
#define BB__KROLE_bb__k_span BB_ROLE_SPAN_ID
#define BB__KROLE_bb__k_parent BB_ROLE_PARENT_SPAN_ID
#define BB__KROLE_bb__k_enum BB_ROLE_NONE
#define BB__KROLE_bb__k_istatic BB_ROLE_NONE
#define BB__KROLE_bb__k_idyn BB_ROLE_NONE
#define BB__KSPAN_bb__k_plain 0
#define BB__KSPAN_bb__k_key 0
#define BB__KSPAN_bb__k_span 1
#define BB__KSPAN_bb__k_parent 0
#define BB__KSPAN_bb__k_enum 0
#define BB__KSPAN_bb__k_istatic 0
#define BB__KSPAN_bb__k_idyn 0
#define BB__KLABELS_bb__k_plain(t) NULL
#define BB__KLABELS_bb__k_key(t) NULL
#define BB__KLABELS_bb__k_span(t) NULL
#define BB__KLABELS_bb__k_parent(t) NULL
#define BB__KLABELS_bb__k_enum(t) (BB__NLAB(t) ? bb__labels_##t : NULL)
#define BB__KLABELS_bb__k_istatic(t) NULL
#define BB__KLABELS_bb__k_idyn(t) NULL
#define BB__KLCOUNT_bb__k_plain(t) 0
#define BB__KLCOUNT_bb__k_key(t) 0
#define BB__KLCOUNT_bb__k_span(t) 0
#define BB__KLCOUNT_bb__k_parent(t) 0
#define BB__KLCOUNT_bb__k_enum(t) BB__NLAB(t)
#define BB__KLCOUNT_bb__k_istatic(t) 0
#define BB__KLCOUNT_bb__k_idyn(t) 0
/* Kind-specific checks. */
#define BB__KCHECK_bb__k_plain(ident, t, name)
#define BB__KCHECK_bb__k_key(ident, t, name)
#define BB__KCHECK_bb__k_span(ident, t, name)                                                      \
    BB__SASSERT(BB__TAG(t) == BB_TYPE_U64, "backbeat: event '" #ident "': span_id field '"         \
                                           #name "' must be uint64_t");
#define BB__KCHECK_bb__k_parent(ident, t, name)                                                    \
    BB__SASSERT(BB__TAG(t) == BB_TYPE_U64, "backbeat: event '" #ident                              \
                                           "': parent_span_id field '" #name                       \
                                           "' must be uint64_t");
#define BB__KCHECK_bb__k_enum(ident, t, name)                                                      \
    BB__SASSERT(BB__TAG(t) <= BB_TYPE_I64, "backbeat: event '" #ident "': enum field '" #name      \
                                           "' must have an integer repr type");
#define BB__KCHECK_bb__k_istatic(ident, t, name)
#define BB__KCHECK_bb__k_idyn(ident, t, name)

/* Labels of an enum: its table always ends with a {0, NULL} terminator. */
#define BB__NLAB(e) (sizeof(bb__labels_##e) / sizeof(bb__labels_##e[0]) - 1)

/* Field steps: each receives (ident, (kind, type, name, desc, options...)). */
#define BB__S_MEMBER(ident, f) BB__S_MEMBER_X(ident, BB__UNPACK f)
#define BB__S_MEMBER_X(ident, ...) BB__S_MEMBER_Y(ident, __VA_ARGS__)
#define BB__S_MEMBER_Y(ident, kind, type, name, ...) bb__ft_##ident##_##name name;

/* Each field's type gets a typedef outside the struct, so a member may share its name with
 * its (enum) type in C++ too. */
#define BB__S_TYPEDEF(ident, f) BB__S_TYPEDEF_X(ident, BB__UNPACK f)
#define BB__S_TYPEDEF_X(ident, ...) BB__S_TYPEDEF_Y(ident, __VA_ARGS__)
#define BB__S_TYPEDEF_Y(ident, kind, type, name, ...)                                              \
    typedef BB__DECL(type) bb__ft_##ident##_##name;

#define BB__S_SIZE(ident, f) BB__S_SIZE_X(ident, BB__UNPACK f)
#define BB__S_SIZE_X(ident, ...) BB__S_SIZE_Y(ident, __VA_ARGS__)
#define BB__S_SIZE_Y(ident, kind, type, name, ...) +sizeof(type)

#define BB__S_COUNT(ident, f) +1

#define BB__S_SPANS(ident, f) BB__S_SPANS_X(ident, BB__UNPACK f)
#define BB__S_SPANS_X(ident, ...) BB__S_SPANS_Y(ident, __VA_ARGS__)
#define BB__S_SPANS_Y(ident, kind, ...) +BB__KSPAN_##kind

#define BB__S_DESC(ident, f) BB__S_DESC_X(ident, BB__UNPACK f)
#define BB__S_DESC_X(ident, ...) BB__S_DESC_Y(ident, __VA_ARGS__)
#define BB__S_DESC_Y(ident, kind, type, name, ...)                                                 \
    {#name,                                                                                        \
     BB__HEAD(__VA_ARGS__, ~),                                                                     \
     BB__UNIT_OF(__VA_ARGS__),                                                                     \
     BB__KLABELS_##kind(type),                                                                     \
     BB__CAST(uint64_t, BB__SENT_OF(type, __VA_ARGS__)),                                           \
     BB__CAST(uint16_t, offsetof(struct ident, name)),                                             \
     BB__CAST(uint16_t, sizeof(type)),                                                             \
     BB__CAST(uint16_t, BB__KLCOUNT_##kind(type)),                                                 \
     BB__CAST(uint8_t, BB__KTAG_##kind(type)),                                                     \
     BB__CAST(uint8_t, BB__KARG_##kind(type)),                                                     \
     BB__CAST(uint8_t, BB__KROLE_##kind),                                                          \
     BB__CAST(uint8_t, BB__HAS_SENT(__VA_ARGS__))},

#define BB__S_CHECK(ident, f) BB__S_CHECK_X(ident, BB__UNPACK f)
#define BB__S_CHECK_X(ident, ...) BB__S_CHECK_Y(ident, __VA_ARGS__)
#define BB__S_CHECK_Y(ident, kind, type, name, ...)                                                \
    BB__SASSERT(BB__TAG(type) != 255, "backbeat: event '" #ident "': field '" #name                \
                "' has an unsupported type (use uint8_t..uint64_t, int8_t..int64_t, bool or "      \
                "uint8_t[N])");                                                                    \
    BB__SASSERT(offsetof(struct ident, name) == offsetof(struct bb__packed_##ident, name),         \
                "backbeat: event '" #ident "': implicit padding before field '" #name              \
                "' (reorder the fields or add an explicit padding field)");                        \
    BB__SASSERT(!(BB__HAS_SENT(__VA_ARGS__)) ||                                                    \
                    (BB__TAG(type) != BB_TYPE_BOOL && BB__TAG(type) != BB_TYPE_BYTES),             \
                "backbeat: event '" #ident "': sentinel on non-integer field '" #name "'");        \
    BB__SASSERT(BB__NOPT_OF(bb__o_unit, __VA_ARGS__) <= 1 &&                                     \
                    BB__NOPT_OF(bb__o_sentinel, __VA_ARGS__) <= 1,                                 \
                "backbeat: event '" #ident "': field '" #name                                      \
                "' has more than one BB_UNIT or BB_SENTINEL");                                     \
    BB__KCHECK_##kind(ident, type, name)

/* A zero-field event's struct gets one placeholder byte; it is not part of the record. */
#define BB__PLACEHOLDER_0 uint8_t bb_no_fields_;
#define BB__PLACEHOLDER_1

#define BB__EVENT(phase, ...)                                                                      \
    BB__EVENT_X(phase, BB__NFIELDS(__VA_ARGS__), BB__HASFIELDS(__VA_ARGS__), __VA_ARGS__)
#define BB__EVENT_X(phase, n, has, ...) BB__EVENT_Y(phase, n, has, __VA_ARGS__)
#define BB__EVENT_Y(phase, n, has, ident, ns, nm, ...)                                             \
    BB__FMAP(n, BB__S_TYPEDEF, ident, __VA_ARGS__)                                                 \
    typedef struct ident {                                                                         \
        BB__FMAP(n, BB__S_MEMBER, ident, __VA_ARGS__)                                              \
        BB__CAT(BB__PLACEHOLDER_, has)                                                             \
    } ident;                                                                                       \
    struct bb__packed_##ident {                                                                    \
        BB__FMAP(n, BB__S_MEMBER, ident, __VA_ARGS__)                                              \
        BB__CAT(BB__PLACEHOLDER_, has)                                                             \
    } BB__PACKED;                                                                                  \
    enum { bb__rsize_##ident = 0 BB__FMAP(n, BB__S_SIZE, ident, __VA_ARGS__) };                    \
    static const bb_field_desc bb__fields_##ident[] = {                                            \
        BB__FMAP(n, BB__S_DESC, ident, __VA_ARGS__){NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0,      \
                                                    0, 0}};                                        \
    static bb_event_desc bb__desc_##ident = {BB__ABI_LAYOUT,                                       \
                                             ns "::" nm,                                           \
                                             BB__HEAD(__VA_ARGS__, ~),                             \
                                             (has) ? bb__fields_##ident : NULL,                    \
                                             BB__CAST(uint16_t, 0 BB__FMAP(n, BB__S_COUNT, ident,  \
                                                                   __VA_ARGS__)),                  \
                                             BB__CAST(uint16_t, bb__rsize_##ident),                \
                                             BB__CAST(uint8_t, phase),                             \
                                             0,                                                    \
                                             NULL};                                                \
    __attribute__((constructor)) static void bb__register_##ident(void)                            \
    {                                                                                              \
        bb_registry_add(&bb__desc_##ident);                                                        \
    }                                                                                              \
    __attribute__((destructor)) static void bb__unregister_##ident(void)                           \
    {                                                                                              \
        bb_registry_remove(&bb__desc_##ident);                                                     \
    }                                                                                              \
    BB__FMAP(n, BB__S_CHECK, ident, __VA_ARGS__)                                                   \
    BB__SASSERT(!(has) || sizeof(struct ident) == BB__CAST(size_t, bb__rsize_##ident),             \
                "backbeat: event '" #ident "': implicit padding at the end of the struct "         \
                "(add an explicit trailing padding field)");                                       \
    BB__SASSERT(BB__CAST(size_t, bb__rsize_##ident) <= BB_MAX_RECORD_SIZE,                         \
                "backbeat: event '" #ident "': record larger than BB_MAX_RECORD_SIZE");            \
    BB__SASSERT((phase) == BB_PHASE_NONE ||                                                        \
                    (0 BB__FMAP(n, BB__S_SPANS, ident, __VA_ARGS__)) == 1,                         \
                "backbeat: event '" #ident "': a span enter/exit event needs exactly one "         \
                "BB_SPAN_ID field")

/* Enums: typedef, named constants, label table (last, so the user's ';' ends it). */
#define BB__ENUM_X(n, ...) BB__ENUM_Y(n, __VA_ARGS__)
#define BB__ENUM_Y(n, e, ...)                                                                      \
    typedef BB__HEAD(__VA_ARGS__, ~) e;                                                            \
    BB__SASSERT(BB__TAG(e) <= BB_TYPE_I64,                                                         \
                "backbeat: enum '" #e "': the repr type must be a fixed-width integer");           \
    BB__LMAP(n, BB__L_CHECK, e, __VA_ARGS__)                                                       \
    BB__ENUM_DECL(e, BB__HEAD(__VA_ARGS__, ~)){                                                    \
        bb__enum_first_##e, BB__LMAP(n, BB__L_CONST, e, __VA_ARGS__)};                             \
    static const bb_enum_label bb__labels_##e[] __attribute__((unused)) = {                        \
        BB__LMAP(n, BB__L_LABEL, e, __VA_ARGS__){0, NULL}}
#define BB__L_CONST(e, t) BB__L_CONST_ t
#define BB__L_CONST_(name, value, label) name = (value),
#define BB__L_CHECK(e, t) BB__L_CHECK_X(e, BB__UNPACK t)
#define BB__L_CHECK_X(e, ...) BB__L_CHECK_Y(e, __VA_ARGS__)
#define BB__L_CHECK_Y(e, name, value, label)                                                       \
    BB__SASSERT(BB__CAST(e, value) == (value),                                                     \
                "backbeat: enum '" #e "': the value of " #name " does not fit the repr type");
#define BB__L_LABEL(e, t) BB__L_LABEL_X(e, BB__UNPACK t)
#define BB__L_LABEL_X(e, ...) BB__L_LABEL_Y(e, __VA_ARGS__)
#define BB__L_LABEL_Y(e, name, value, label) {BB__ZEXT(e, value), label},

#define BB__VIEWS(ident, sql)                                                                      \
    static bb_view_desc bb__views_##ident = {BB__ABI_LAYOUT, #ident, sql, NULL};                   \
    __attribute__((constructor)) static void bb__register_views_##ident(void)                      \
    {                                                                                              \
        bb_views_add(&bb__views_##ident);                                                          \
    }                                                                                              \
    __attribute__((destructor)) static void bb__unregister_views_##ident(void)                     \
    {                                                                                              \
        bb_views_remove(&bb__views_##ident);                                                       \
    }                                                                                              \
    BB__SASSERT(sizeof(bb__views_##ident) > 0, "backbeat: views")

/* Counted maps and argument counters (generated; do not edit by hand). */
#define BB__PICK_F(_1,_2,_3,_4,_5,_6,_7,_8,_9,_10,_11,_12,_13,_14,_15,_16,_17,_18,_19,_20,_21,_22,_23,_24,_25,_26,_27,_28,_29,_30,_31,_32,_33,_34,_35,_36,_37,_38,_39,_40,_41,_42,_43,_44,_45,_46,_47,_48,_49,_50,_51,_52,_53,_54,_55,_56,_57,_58,_59,_60,_61,_62,_63,_64,_65,_66,_67,_68,_69, N, ...) N
#define BB__NFIELDS(...) BB__PICK_F(__VA_ARGS__, 65, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define BB__HASFIELDS(...) BB__PICK_F(__VA_ARGS__, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, ~)
#define BB__PICK_L(_1,_2,_3,_4,_5,_6,_7,_8,_9,_10,_11,_12,_13,_14,_15,_16,_17,_18,_19,_20,_21,_22,_23,_24,_25,_26,_27,_28,_29,_30,_31,_32,_33,_34,_35,_36,_37,_38,_39,_40,_41,_42,_43,_44,_45,_46,_47,_48,_49,_50,_51,_52,_53,_54,_55,_56,_57,_58,_59,_60,_61,_62,_63,_64,_65,_66,_67,_68,_69,_70,_71,_72,_73,_74,_75,_76,_77,_78,_79,_80,_81,_82,_83,_84,_85,_86,_87,_88,_89,_90,_91,_92,_93,_94,_95,_96,_97,_98,_99,_100,_101,_102,_103,_104,_105,_106,_107,_108,_109,_110,_111,_112,_113,_114,_115,_116,_117,_118,_119,_120,_121,_122,_123,_124,_125,_126,_127,_128,_129,_130,_131, N, ...) N
#define BB__NLABELS(...) BB__PICK_L(__VA_ARGS__, 129, 128, 127, 126, 125, 124, 123, 122, 121, 120, 119, 118, 117, 116, 115, 114, 113, 112, 111, 110, 109, 108, 107, 106, 105, 104, 103, 102, 101, 100, 99, 98, 97, 96, 95, 94, 93, 92, 91, 90, 89, 88, 87, 86, 85, 84, 83, 82, 81, 80, 79, 78, 77, 76, 75, 74, 73, 72, 71, 70, 69, 68, 67, 66, 65, 64, 63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define BB__PICK_O(_1,_2,_3,_4,_5,_6,_7,_8,_9,_10, N, ...) N
#define BB__NOPTS(...) BB__PICK_O(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, ~)
#define BB__FM_1(m, c, a) m(c, a)
#define BB__FM_2(m, c, a, ...) m(c, a) BB__FM_1(m, c, __VA_ARGS__)
#define BB__FM_3(m, c, a, ...) m(c, a) BB__FM_2(m, c, __VA_ARGS__)
#define BB__FM_4(m, c, a, ...) m(c, a) BB__FM_3(m, c, __VA_ARGS__)
#define BB__FM_5(m, c, a, ...) m(c, a) BB__FM_4(m, c, __VA_ARGS__)
#define BB__FM_6(m, c, a, ...) m(c, a) BB__FM_5(m, c, __VA_ARGS__)
#define BB__FM_7(m, c, a, ...) m(c, a) BB__FM_6(m, c, __VA_ARGS__)
#define BB__FM_8(m, c, a, ...) m(c, a) BB__FM_7(m, c, __VA_ARGS__)
#define BB__FM_9(m, c, a, ...) m(c, a) BB__FM_8(m, c, __VA_ARGS__)
#define BB__FM_10(m, c, a, ...) m(c, a) BB__FM_9(m, c, __VA_ARGS__)
#define BB__FM_11(m, c, a, ...) m(c, a) BB__FM_10(m, c, __VA_ARGS__)
#define BB__FM_12(m, c, a, ...) m(c, a) BB__FM_11(m, c, __VA_ARGS__)
#define BB__FM_13(m, c, a, ...) m(c, a) BB__FM_12(m, c, __VA_ARGS__)
#define BB__FM_14(m, c, a, ...) m(c, a) BB__FM_13(m, c, __VA_ARGS__)
#define BB__FM_15(m, c, a, ...) m(c, a) BB__FM_14(m, c, __VA_ARGS__)
#define BB__FM_16(m, c, a, ...) m(c, a) BB__FM_15(m, c, __VA_ARGS__)
#define BB__FM_17(m, c, a, ...) m(c, a) BB__FM_16(m, c, __VA_ARGS__)
#define BB__FM_18(m, c, a, ...) m(c, a) BB__FM_17(m, c, __VA_ARGS__)
#define BB__FM_19(m, c, a, ...) m(c, a) BB__FM_18(m, c, __VA_ARGS__)
#define BB__FM_20(m, c, a, ...) m(c, a) BB__FM_19(m, c, __VA_ARGS__)
#define BB__FM_21(m, c, a, ...) m(c, a) BB__FM_20(m, c, __VA_ARGS__)
#define BB__FM_22(m, c, a, ...) m(c, a) BB__FM_21(m, c, __VA_ARGS__)
#define BB__FM_23(m, c, a, ...) m(c, a) BB__FM_22(m, c, __VA_ARGS__)
#define BB__FM_24(m, c, a, ...) m(c, a) BB__FM_23(m, c, __VA_ARGS__)
#define BB__FM_25(m, c, a, ...) m(c, a) BB__FM_24(m, c, __VA_ARGS__)
#define BB__FM_26(m, c, a, ...) m(c, a) BB__FM_25(m, c, __VA_ARGS__)
#define BB__FM_27(m, c, a, ...) m(c, a) BB__FM_26(m, c, __VA_ARGS__)
#define BB__FM_28(m, c, a, ...) m(c, a) BB__FM_27(m, c, __VA_ARGS__)
#define BB__FM_29(m, c, a, ...) m(c, a) BB__FM_28(m, c, __VA_ARGS__)
#define BB__FM_30(m, c, a, ...) m(c, a) BB__FM_29(m, c, __VA_ARGS__)
#define BB__FM_31(m, c, a, ...) m(c, a) BB__FM_30(m, c, __VA_ARGS__)
#define BB__FM_32(m, c, a, ...) m(c, a) BB__FM_31(m, c, __VA_ARGS__)
#define BB__FM_33(m, c, a, ...) m(c, a) BB__FM_32(m, c, __VA_ARGS__)
#define BB__FM_34(m, c, a, ...) m(c, a) BB__FM_33(m, c, __VA_ARGS__)
#define BB__FM_35(m, c, a, ...) m(c, a) BB__FM_34(m, c, __VA_ARGS__)
#define BB__FM_36(m, c, a, ...) m(c, a) BB__FM_35(m, c, __VA_ARGS__)
#define BB__FM_37(m, c, a, ...) m(c, a) BB__FM_36(m, c, __VA_ARGS__)
#define BB__FM_38(m, c, a, ...) m(c, a) BB__FM_37(m, c, __VA_ARGS__)
#define BB__FM_39(m, c, a, ...) m(c, a) BB__FM_38(m, c, __VA_ARGS__)
#define BB__FM_40(m, c, a, ...) m(c, a) BB__FM_39(m, c, __VA_ARGS__)
#define BB__FM_41(m, c, a, ...) m(c, a) BB__FM_40(m, c, __VA_ARGS__)
#define BB__FM_42(m, c, a, ...) m(c, a) BB__FM_41(m, c, __VA_ARGS__)
#define BB__FM_43(m, c, a, ...) m(c, a) BB__FM_42(m, c, __VA_ARGS__)
#define BB__FM_44(m, c, a, ...) m(c, a) BB__FM_43(m, c, __VA_ARGS__)
#define BB__FM_45(m, c, a, ...) m(c, a) BB__FM_44(m, c, __VA_ARGS__)
#define BB__FM_46(m, c, a, ...) m(c, a) BB__FM_45(m, c, __VA_ARGS__)
#define BB__FM_47(m, c, a, ...) m(c, a) BB__FM_46(m, c, __VA_ARGS__)
#define BB__FM_48(m, c, a, ...) m(c, a) BB__FM_47(m, c, __VA_ARGS__)
#define BB__FM_49(m, c, a, ...) m(c, a) BB__FM_48(m, c, __VA_ARGS__)
#define BB__FM_50(m, c, a, ...) m(c, a) BB__FM_49(m, c, __VA_ARGS__)
#define BB__FM_51(m, c, a, ...) m(c, a) BB__FM_50(m, c, __VA_ARGS__)
#define BB__FM_52(m, c, a, ...) m(c, a) BB__FM_51(m, c, __VA_ARGS__)
#define BB__FM_53(m, c, a, ...) m(c, a) BB__FM_52(m, c, __VA_ARGS__)
#define BB__FM_54(m, c, a, ...) m(c, a) BB__FM_53(m, c, __VA_ARGS__)
#define BB__FM_55(m, c, a, ...) m(c, a) BB__FM_54(m, c, __VA_ARGS__)
#define BB__FM_56(m, c, a, ...) m(c, a) BB__FM_55(m, c, __VA_ARGS__)
#define BB__FM_57(m, c, a, ...) m(c, a) BB__FM_56(m, c, __VA_ARGS__)
#define BB__FM_58(m, c, a, ...) m(c, a) BB__FM_57(m, c, __VA_ARGS__)
#define BB__FM_59(m, c, a, ...) m(c, a) BB__FM_58(m, c, __VA_ARGS__)
#define BB__FM_60(m, c, a, ...) m(c, a) BB__FM_59(m, c, __VA_ARGS__)
#define BB__FM_61(m, c, a, ...) m(c, a) BB__FM_60(m, c, __VA_ARGS__)
#define BB__FM_62(m, c, a, ...) m(c, a) BB__FM_61(m, c, __VA_ARGS__)
#define BB__FM_63(m, c, a, ...) m(c, a) BB__FM_62(m, c, __VA_ARGS__)
#define BB__FM_64(m, c, a, ...) m(c, a) BB__FM_63(m, c, __VA_ARGS__)
#define BB__LM_1(m, c, a) m(c, a)
#define BB__LM_2(m, c, a, ...) m(c, a) BB__LM_1(m, c, __VA_ARGS__)
#define BB__LM_3(m, c, a, ...) m(c, a) BB__LM_2(m, c, __VA_ARGS__)
#define BB__LM_4(m, c, a, ...) m(c, a) BB__LM_3(m, c, __VA_ARGS__)
#define BB__LM_5(m, c, a, ...) m(c, a) BB__LM_4(m, c, __VA_ARGS__)
#define BB__LM_6(m, c, a, ...) m(c, a) BB__LM_5(m, c, __VA_ARGS__)
#define BB__LM_7(m, c, a, ...) m(c, a) BB__LM_6(m, c, __VA_ARGS__)
#define BB__LM_8(m, c, a, ...) m(c, a) BB__LM_7(m, c, __VA_ARGS__)
#define BB__LM_9(m, c, a, ...) m(c, a) BB__LM_8(m, c, __VA_ARGS__)
#define BB__LM_10(m, c, a, ...) m(c, a) BB__LM_9(m, c, __VA_ARGS__)
#define BB__LM_11(m, c, a, ...) m(c, a) BB__LM_10(m, c, __VA_ARGS__)
#define BB__LM_12(m, c, a, ...) m(c, a) BB__LM_11(m, c, __VA_ARGS__)
#define BB__LM_13(m, c, a, ...) m(c, a) BB__LM_12(m, c, __VA_ARGS__)
#define BB__LM_14(m, c, a, ...) m(c, a) BB__LM_13(m, c, __VA_ARGS__)
#define BB__LM_15(m, c, a, ...) m(c, a) BB__LM_14(m, c, __VA_ARGS__)
#define BB__LM_16(m, c, a, ...) m(c, a) BB__LM_15(m, c, __VA_ARGS__)
#define BB__LM_17(m, c, a, ...) m(c, a) BB__LM_16(m, c, __VA_ARGS__)
#define BB__LM_18(m, c, a, ...) m(c, a) BB__LM_17(m, c, __VA_ARGS__)
#define BB__LM_19(m, c, a, ...) m(c, a) BB__LM_18(m, c, __VA_ARGS__)
#define BB__LM_20(m, c, a, ...) m(c, a) BB__LM_19(m, c, __VA_ARGS__)
#define BB__LM_21(m, c, a, ...) m(c, a) BB__LM_20(m, c, __VA_ARGS__)
#define BB__LM_22(m, c, a, ...) m(c, a) BB__LM_21(m, c, __VA_ARGS__)
#define BB__LM_23(m, c, a, ...) m(c, a) BB__LM_22(m, c, __VA_ARGS__)
#define BB__LM_24(m, c, a, ...) m(c, a) BB__LM_23(m, c, __VA_ARGS__)
#define BB__LM_25(m, c, a, ...) m(c, a) BB__LM_24(m, c, __VA_ARGS__)
#define BB__LM_26(m, c, a, ...) m(c, a) BB__LM_25(m, c, __VA_ARGS__)
#define BB__LM_27(m, c, a, ...) m(c, a) BB__LM_26(m, c, __VA_ARGS__)
#define BB__LM_28(m, c, a, ...) m(c, a) BB__LM_27(m, c, __VA_ARGS__)
#define BB__LM_29(m, c, a, ...) m(c, a) BB__LM_28(m, c, __VA_ARGS__)
#define BB__LM_30(m, c, a, ...) m(c, a) BB__LM_29(m, c, __VA_ARGS__)
#define BB__LM_31(m, c, a, ...) m(c, a) BB__LM_30(m, c, __VA_ARGS__)
#define BB__LM_32(m, c, a, ...) m(c, a) BB__LM_31(m, c, __VA_ARGS__)
#define BB__LM_33(m, c, a, ...) m(c, a) BB__LM_32(m, c, __VA_ARGS__)
#define BB__LM_34(m, c, a, ...) m(c, a) BB__LM_33(m, c, __VA_ARGS__)
#define BB__LM_35(m, c, a, ...) m(c, a) BB__LM_34(m, c, __VA_ARGS__)
#define BB__LM_36(m, c, a, ...) m(c, a) BB__LM_35(m, c, __VA_ARGS__)
#define BB__LM_37(m, c, a, ...) m(c, a) BB__LM_36(m, c, __VA_ARGS__)
#define BB__LM_38(m, c, a, ...) m(c, a) BB__LM_37(m, c, __VA_ARGS__)
#define BB__LM_39(m, c, a, ...) m(c, a) BB__LM_38(m, c, __VA_ARGS__)
#define BB__LM_40(m, c, a, ...) m(c, a) BB__LM_39(m, c, __VA_ARGS__)
#define BB__LM_41(m, c, a, ...) m(c, a) BB__LM_40(m, c, __VA_ARGS__)
#define BB__LM_42(m, c, a, ...) m(c, a) BB__LM_41(m, c, __VA_ARGS__)
#define BB__LM_43(m, c, a, ...) m(c, a) BB__LM_42(m, c, __VA_ARGS__)
#define BB__LM_44(m, c, a, ...) m(c, a) BB__LM_43(m, c, __VA_ARGS__)
#define BB__LM_45(m, c, a, ...) m(c, a) BB__LM_44(m, c, __VA_ARGS__)
#define BB__LM_46(m, c, a, ...) m(c, a) BB__LM_45(m, c, __VA_ARGS__)
#define BB__LM_47(m, c, a, ...) m(c, a) BB__LM_46(m, c, __VA_ARGS__)
#define BB__LM_48(m, c, a, ...) m(c, a) BB__LM_47(m, c, __VA_ARGS__)
#define BB__LM_49(m, c, a, ...) m(c, a) BB__LM_48(m, c, __VA_ARGS__)
#define BB__LM_50(m, c, a, ...) m(c, a) BB__LM_49(m, c, __VA_ARGS__)
#define BB__LM_51(m, c, a, ...) m(c, a) BB__LM_50(m, c, __VA_ARGS__)
#define BB__LM_52(m, c, a, ...) m(c, a) BB__LM_51(m, c, __VA_ARGS__)
#define BB__LM_53(m, c, a, ...) m(c, a) BB__LM_52(m, c, __VA_ARGS__)
#define BB__LM_54(m, c, a, ...) m(c, a) BB__LM_53(m, c, __VA_ARGS__)
#define BB__LM_55(m, c, a, ...) m(c, a) BB__LM_54(m, c, __VA_ARGS__)
#define BB__LM_56(m, c, a, ...) m(c, a) BB__LM_55(m, c, __VA_ARGS__)
#define BB__LM_57(m, c, a, ...) m(c, a) BB__LM_56(m, c, __VA_ARGS__)
#define BB__LM_58(m, c, a, ...) m(c, a) BB__LM_57(m, c, __VA_ARGS__)
#define BB__LM_59(m, c, a, ...) m(c, a) BB__LM_58(m, c, __VA_ARGS__)
#define BB__LM_60(m, c, a, ...) m(c, a) BB__LM_59(m, c, __VA_ARGS__)
#define BB__LM_61(m, c, a, ...) m(c, a) BB__LM_60(m, c, __VA_ARGS__)
#define BB__LM_62(m, c, a, ...) m(c, a) BB__LM_61(m, c, __VA_ARGS__)
#define BB__LM_63(m, c, a, ...) m(c, a) BB__LM_62(m, c, __VA_ARGS__)
#define BB__LM_64(m, c, a, ...) m(c, a) BB__LM_63(m, c, __VA_ARGS__)
#define BB__LM_65(m, c, a, ...) m(c, a) BB__LM_64(m, c, __VA_ARGS__)
#define BB__LM_66(m, c, a, ...) m(c, a) BB__LM_65(m, c, __VA_ARGS__)
#define BB__LM_67(m, c, a, ...) m(c, a) BB__LM_66(m, c, __VA_ARGS__)
#define BB__LM_68(m, c, a, ...) m(c, a) BB__LM_67(m, c, __VA_ARGS__)
#define BB__LM_69(m, c, a, ...) m(c, a) BB__LM_68(m, c, __VA_ARGS__)
#define BB__LM_70(m, c, a, ...) m(c, a) BB__LM_69(m, c, __VA_ARGS__)
#define BB__LM_71(m, c, a, ...) m(c, a) BB__LM_70(m, c, __VA_ARGS__)
#define BB__LM_72(m, c, a, ...) m(c, a) BB__LM_71(m, c, __VA_ARGS__)
#define BB__LM_73(m, c, a, ...) m(c, a) BB__LM_72(m, c, __VA_ARGS__)
#define BB__LM_74(m, c, a, ...) m(c, a) BB__LM_73(m, c, __VA_ARGS__)
#define BB__LM_75(m, c, a, ...) m(c, a) BB__LM_74(m, c, __VA_ARGS__)
#define BB__LM_76(m, c, a, ...) m(c, a) BB__LM_75(m, c, __VA_ARGS__)
#define BB__LM_77(m, c, a, ...) m(c, a) BB__LM_76(m, c, __VA_ARGS__)
#define BB__LM_78(m, c, a, ...) m(c, a) BB__LM_77(m, c, __VA_ARGS__)
#define BB__LM_79(m, c, a, ...) m(c, a) BB__LM_78(m, c, __VA_ARGS__)
#define BB__LM_80(m, c, a, ...) m(c, a) BB__LM_79(m, c, __VA_ARGS__)
#define BB__LM_81(m, c, a, ...) m(c, a) BB__LM_80(m, c, __VA_ARGS__)
#define BB__LM_82(m, c, a, ...) m(c, a) BB__LM_81(m, c, __VA_ARGS__)
#define BB__LM_83(m, c, a, ...) m(c, a) BB__LM_82(m, c, __VA_ARGS__)
#define BB__LM_84(m, c, a, ...) m(c, a) BB__LM_83(m, c, __VA_ARGS__)
#define BB__LM_85(m, c, a, ...) m(c, a) BB__LM_84(m, c, __VA_ARGS__)
#define BB__LM_86(m, c, a, ...) m(c, a) BB__LM_85(m, c, __VA_ARGS__)
#define BB__LM_87(m, c, a, ...) m(c, a) BB__LM_86(m, c, __VA_ARGS__)
#define BB__LM_88(m, c, a, ...) m(c, a) BB__LM_87(m, c, __VA_ARGS__)
#define BB__LM_89(m, c, a, ...) m(c, a) BB__LM_88(m, c, __VA_ARGS__)
#define BB__LM_90(m, c, a, ...) m(c, a) BB__LM_89(m, c, __VA_ARGS__)
#define BB__LM_91(m, c, a, ...) m(c, a) BB__LM_90(m, c, __VA_ARGS__)
#define BB__LM_92(m, c, a, ...) m(c, a) BB__LM_91(m, c, __VA_ARGS__)
#define BB__LM_93(m, c, a, ...) m(c, a) BB__LM_92(m, c, __VA_ARGS__)
#define BB__LM_94(m, c, a, ...) m(c, a) BB__LM_93(m, c, __VA_ARGS__)
#define BB__LM_95(m, c, a, ...) m(c, a) BB__LM_94(m, c, __VA_ARGS__)
#define BB__LM_96(m, c, a, ...) m(c, a) BB__LM_95(m, c, __VA_ARGS__)
#define BB__LM_97(m, c, a, ...) m(c, a) BB__LM_96(m, c, __VA_ARGS__)
#define BB__LM_98(m, c, a, ...) m(c, a) BB__LM_97(m, c, __VA_ARGS__)
#define BB__LM_99(m, c, a, ...) m(c, a) BB__LM_98(m, c, __VA_ARGS__)
#define BB__LM_100(m, c, a, ...) m(c, a) BB__LM_99(m, c, __VA_ARGS__)
#define BB__LM_101(m, c, a, ...) m(c, a) BB__LM_100(m, c, __VA_ARGS__)
#define BB__LM_102(m, c, a, ...) m(c, a) BB__LM_101(m, c, __VA_ARGS__)
#define BB__LM_103(m, c, a, ...) m(c, a) BB__LM_102(m, c, __VA_ARGS__)
#define BB__LM_104(m, c, a, ...) m(c, a) BB__LM_103(m, c, __VA_ARGS__)
#define BB__LM_105(m, c, a, ...) m(c, a) BB__LM_104(m, c, __VA_ARGS__)
#define BB__LM_106(m, c, a, ...) m(c, a) BB__LM_105(m, c, __VA_ARGS__)
#define BB__LM_107(m, c, a, ...) m(c, a) BB__LM_106(m, c, __VA_ARGS__)
#define BB__LM_108(m, c, a, ...) m(c, a) BB__LM_107(m, c, __VA_ARGS__)
#define BB__LM_109(m, c, a, ...) m(c, a) BB__LM_108(m, c, __VA_ARGS__)
#define BB__LM_110(m, c, a, ...) m(c, a) BB__LM_109(m, c, __VA_ARGS__)
#define BB__LM_111(m, c, a, ...) m(c, a) BB__LM_110(m, c, __VA_ARGS__)
#define BB__LM_112(m, c, a, ...) m(c, a) BB__LM_111(m, c, __VA_ARGS__)
#define BB__LM_113(m, c, a, ...) m(c, a) BB__LM_112(m, c, __VA_ARGS__)
#define BB__LM_114(m, c, a, ...) m(c, a) BB__LM_113(m, c, __VA_ARGS__)
#define BB__LM_115(m, c, a, ...) m(c, a) BB__LM_114(m, c, __VA_ARGS__)
#define BB__LM_116(m, c, a, ...) m(c, a) BB__LM_115(m, c, __VA_ARGS__)
#define BB__LM_117(m, c, a, ...) m(c, a) BB__LM_116(m, c, __VA_ARGS__)
#define BB__LM_118(m, c, a, ...) m(c, a) BB__LM_117(m, c, __VA_ARGS__)
#define BB__LM_119(m, c, a, ...) m(c, a) BB__LM_118(m, c, __VA_ARGS__)
#define BB__LM_120(m, c, a, ...) m(c, a) BB__LM_119(m, c, __VA_ARGS__)
#define BB__LM_121(m, c, a, ...) m(c, a) BB__LM_120(m, c, __VA_ARGS__)
#define BB__LM_122(m, c, a, ...) m(c, a) BB__LM_121(m, c, __VA_ARGS__)
#define BB__LM_123(m, c, a, ...) m(c, a) BB__LM_122(m, c, __VA_ARGS__)
#define BB__LM_124(m, c, a, ...) m(c, a) BB__LM_123(m, c, __VA_ARGS__)
#define BB__LM_125(m, c, a, ...) m(c, a) BB__LM_124(m, c, __VA_ARGS__)
#define BB__LM_126(m, c, a, ...) m(c, a) BB__LM_125(m, c, __VA_ARGS__)
#define BB__LM_127(m, c, a, ...) m(c, a) BB__LM_126(m, c, __VA_ARGS__)
#define BB__LM_128(m, c, a, ...) m(c, a) BB__LM_127(m, c, __VA_ARGS__)
#define BB__OM_1(m, c, a) m(c, a)
#define BB__OM_2(m, c, a, ...) m(c, a) BB__OM_1(m, c, __VA_ARGS__)
#define BB__OM_3(m, c, a, ...) m(c, a) BB__OM_2(m, c, __VA_ARGS__)
#define BB__OM_4(m, c, a, ...) m(c, a) BB__OM_3(m, c, __VA_ARGS__)
#define BB__OM_5(m, c, a, ...) m(c, a) BB__OM_4(m, c, __VA_ARGS__)
#define BB__OM_6(m, c, a, ...) m(c, a) BB__OM_5(m, c, __VA_ARGS__)
#define BB__OM_7(m, c, a, ...) m(c, a) BB__OM_6(m, c, __VA_ARGS__)
#define BB__OM_8(m, c, a, ...) m(c, a) BB__OM_7(m, c, __VA_ARGS__)
#define BB__FMAP_0(m, c, h) /* nothing */
#define BB__FMAP_1(m, c, h, ...) BB__FM_1(m, c, __VA_ARGS__)
#define BB__FMAP_2(m, c, h, ...) BB__FM_2(m, c, __VA_ARGS__)
#define BB__FMAP_3(m, c, h, ...) BB__FM_3(m, c, __VA_ARGS__)
#define BB__FMAP_4(m, c, h, ...) BB__FM_4(m, c, __VA_ARGS__)
#define BB__FMAP_5(m, c, h, ...) BB__FM_5(m, c, __VA_ARGS__)
#define BB__FMAP_6(m, c, h, ...) BB__FM_6(m, c, __VA_ARGS__)
#define BB__FMAP_7(m, c, h, ...) BB__FM_7(m, c, __VA_ARGS__)
#define BB__FMAP_8(m, c, h, ...) BB__FM_8(m, c, __VA_ARGS__)
#define BB__FMAP_9(m, c, h, ...) BB__FM_9(m, c, __VA_ARGS__)
#define BB__FMAP_10(m, c, h, ...) BB__FM_10(m, c, __VA_ARGS__)
#define BB__FMAP_11(m, c, h, ...) BB__FM_11(m, c, __VA_ARGS__)
#define BB__FMAP_12(m, c, h, ...) BB__FM_12(m, c, __VA_ARGS__)
#define BB__FMAP_13(m, c, h, ...) BB__FM_13(m, c, __VA_ARGS__)
#define BB__FMAP_14(m, c, h, ...) BB__FM_14(m, c, __VA_ARGS__)
#define BB__FMAP_15(m, c, h, ...) BB__FM_15(m, c, __VA_ARGS__)
#define BB__FMAP_16(m, c, h, ...) BB__FM_16(m, c, __VA_ARGS__)
#define BB__FMAP_17(m, c, h, ...) BB__FM_17(m, c, __VA_ARGS__)
#define BB__FMAP_18(m, c, h, ...) BB__FM_18(m, c, __VA_ARGS__)
#define BB__FMAP_19(m, c, h, ...) BB__FM_19(m, c, __VA_ARGS__)
#define BB__FMAP_20(m, c, h, ...) BB__FM_20(m, c, __VA_ARGS__)
#define BB__FMAP_21(m, c, h, ...) BB__FM_21(m, c, __VA_ARGS__)
#define BB__FMAP_22(m, c, h, ...) BB__FM_22(m, c, __VA_ARGS__)
#define BB__FMAP_23(m, c, h, ...) BB__FM_23(m, c, __VA_ARGS__)
#define BB__FMAP_24(m, c, h, ...) BB__FM_24(m, c, __VA_ARGS__)
#define BB__FMAP_25(m, c, h, ...) BB__FM_25(m, c, __VA_ARGS__)
#define BB__FMAP_26(m, c, h, ...) BB__FM_26(m, c, __VA_ARGS__)
#define BB__FMAP_27(m, c, h, ...) BB__FM_27(m, c, __VA_ARGS__)
#define BB__FMAP_28(m, c, h, ...) BB__FM_28(m, c, __VA_ARGS__)
#define BB__FMAP_29(m, c, h, ...) BB__FM_29(m, c, __VA_ARGS__)
#define BB__FMAP_30(m, c, h, ...) BB__FM_30(m, c, __VA_ARGS__)
#define BB__FMAP_31(m, c, h, ...) BB__FM_31(m, c, __VA_ARGS__)
#define BB__FMAP_32(m, c, h, ...) BB__FM_32(m, c, __VA_ARGS__)
#define BB__FMAP_33(m, c, h, ...) BB__FM_33(m, c, __VA_ARGS__)
#define BB__FMAP_34(m, c, h, ...) BB__FM_34(m, c, __VA_ARGS__)
#define BB__FMAP_35(m, c, h, ...) BB__FM_35(m, c, __VA_ARGS__)
#define BB__FMAP_36(m, c, h, ...) BB__FM_36(m, c, __VA_ARGS__)
#define BB__FMAP_37(m, c, h, ...) BB__FM_37(m, c, __VA_ARGS__)
#define BB__FMAP_38(m, c, h, ...) BB__FM_38(m, c, __VA_ARGS__)
#define BB__FMAP_39(m, c, h, ...) BB__FM_39(m, c, __VA_ARGS__)
#define BB__FMAP_40(m, c, h, ...) BB__FM_40(m, c, __VA_ARGS__)
#define BB__FMAP_41(m, c, h, ...) BB__FM_41(m, c, __VA_ARGS__)
#define BB__FMAP_42(m, c, h, ...) BB__FM_42(m, c, __VA_ARGS__)
#define BB__FMAP_43(m, c, h, ...) BB__FM_43(m, c, __VA_ARGS__)
#define BB__FMAP_44(m, c, h, ...) BB__FM_44(m, c, __VA_ARGS__)
#define BB__FMAP_45(m, c, h, ...) BB__FM_45(m, c, __VA_ARGS__)
#define BB__FMAP_46(m, c, h, ...) BB__FM_46(m, c, __VA_ARGS__)
#define BB__FMAP_47(m, c, h, ...) BB__FM_47(m, c, __VA_ARGS__)
#define BB__FMAP_48(m, c, h, ...) BB__FM_48(m, c, __VA_ARGS__)
#define BB__FMAP_49(m, c, h, ...) BB__FM_49(m, c, __VA_ARGS__)
#define BB__FMAP_50(m, c, h, ...) BB__FM_50(m, c, __VA_ARGS__)
#define BB__FMAP_51(m, c, h, ...) BB__FM_51(m, c, __VA_ARGS__)
#define BB__FMAP_52(m, c, h, ...) BB__FM_52(m, c, __VA_ARGS__)
#define BB__FMAP_53(m, c, h, ...) BB__FM_53(m, c, __VA_ARGS__)
#define BB__FMAP_54(m, c, h, ...) BB__FM_54(m, c, __VA_ARGS__)
#define BB__FMAP_55(m, c, h, ...) BB__FM_55(m, c, __VA_ARGS__)
#define BB__FMAP_56(m, c, h, ...) BB__FM_56(m, c, __VA_ARGS__)
#define BB__FMAP_57(m, c, h, ...) BB__FM_57(m, c, __VA_ARGS__)
#define BB__FMAP_58(m, c, h, ...) BB__FM_58(m, c, __VA_ARGS__)
#define BB__FMAP_59(m, c, h, ...) BB__FM_59(m, c, __VA_ARGS__)
#define BB__FMAP_60(m, c, h, ...) BB__FM_60(m, c, __VA_ARGS__)
#define BB__FMAP_61(m, c, h, ...) BB__FM_61(m, c, __VA_ARGS__)
#define BB__FMAP_62(m, c, h, ...) BB__FM_62(m, c, __VA_ARGS__)
#define BB__FMAP_63(m, c, h, ...) BB__FM_63(m, c, __VA_ARGS__)
#define BB__FMAP_64(m, c, h, ...) BB__FM_64(m, c, __VA_ARGS__)
#define BB__LMAP_0(m, c, h) /* nothing */
#define BB__LMAP_1(m, c, h, ...) BB__LM_1(m, c, __VA_ARGS__)
#define BB__LMAP_2(m, c, h, ...) BB__LM_2(m, c, __VA_ARGS__)
#define BB__LMAP_3(m, c, h, ...) BB__LM_3(m, c, __VA_ARGS__)
#define BB__LMAP_4(m, c, h, ...) BB__LM_4(m, c, __VA_ARGS__)
#define BB__LMAP_5(m, c, h, ...) BB__LM_5(m, c, __VA_ARGS__)
#define BB__LMAP_6(m, c, h, ...) BB__LM_6(m, c, __VA_ARGS__)
#define BB__LMAP_7(m, c, h, ...) BB__LM_7(m, c, __VA_ARGS__)
#define BB__LMAP_8(m, c, h, ...) BB__LM_8(m, c, __VA_ARGS__)
#define BB__LMAP_9(m, c, h, ...) BB__LM_9(m, c, __VA_ARGS__)
#define BB__LMAP_10(m, c, h, ...) BB__LM_10(m, c, __VA_ARGS__)
#define BB__LMAP_11(m, c, h, ...) BB__LM_11(m, c, __VA_ARGS__)
#define BB__LMAP_12(m, c, h, ...) BB__LM_12(m, c, __VA_ARGS__)
#define BB__LMAP_13(m, c, h, ...) BB__LM_13(m, c, __VA_ARGS__)
#define BB__LMAP_14(m, c, h, ...) BB__LM_14(m, c, __VA_ARGS__)
#define BB__LMAP_15(m, c, h, ...) BB__LM_15(m, c, __VA_ARGS__)
#define BB__LMAP_16(m, c, h, ...) BB__LM_16(m, c, __VA_ARGS__)
#define BB__LMAP_17(m, c, h, ...) BB__LM_17(m, c, __VA_ARGS__)
#define BB__LMAP_18(m, c, h, ...) BB__LM_18(m, c, __VA_ARGS__)
#define BB__LMAP_19(m, c, h, ...) BB__LM_19(m, c, __VA_ARGS__)
#define BB__LMAP_20(m, c, h, ...) BB__LM_20(m, c, __VA_ARGS__)
#define BB__LMAP_21(m, c, h, ...) BB__LM_21(m, c, __VA_ARGS__)
#define BB__LMAP_22(m, c, h, ...) BB__LM_22(m, c, __VA_ARGS__)
#define BB__LMAP_23(m, c, h, ...) BB__LM_23(m, c, __VA_ARGS__)
#define BB__LMAP_24(m, c, h, ...) BB__LM_24(m, c, __VA_ARGS__)
#define BB__LMAP_25(m, c, h, ...) BB__LM_25(m, c, __VA_ARGS__)
#define BB__LMAP_26(m, c, h, ...) BB__LM_26(m, c, __VA_ARGS__)
#define BB__LMAP_27(m, c, h, ...) BB__LM_27(m, c, __VA_ARGS__)
#define BB__LMAP_28(m, c, h, ...) BB__LM_28(m, c, __VA_ARGS__)
#define BB__LMAP_29(m, c, h, ...) BB__LM_29(m, c, __VA_ARGS__)
#define BB__LMAP_30(m, c, h, ...) BB__LM_30(m, c, __VA_ARGS__)
#define BB__LMAP_31(m, c, h, ...) BB__LM_31(m, c, __VA_ARGS__)
#define BB__LMAP_32(m, c, h, ...) BB__LM_32(m, c, __VA_ARGS__)
#define BB__LMAP_33(m, c, h, ...) BB__LM_33(m, c, __VA_ARGS__)
#define BB__LMAP_34(m, c, h, ...) BB__LM_34(m, c, __VA_ARGS__)
#define BB__LMAP_35(m, c, h, ...) BB__LM_35(m, c, __VA_ARGS__)
#define BB__LMAP_36(m, c, h, ...) BB__LM_36(m, c, __VA_ARGS__)
#define BB__LMAP_37(m, c, h, ...) BB__LM_37(m, c, __VA_ARGS__)
#define BB__LMAP_38(m, c, h, ...) BB__LM_38(m, c, __VA_ARGS__)
#define BB__LMAP_39(m, c, h, ...) BB__LM_39(m, c, __VA_ARGS__)
#define BB__LMAP_40(m, c, h, ...) BB__LM_40(m, c, __VA_ARGS__)
#define BB__LMAP_41(m, c, h, ...) BB__LM_41(m, c, __VA_ARGS__)
#define BB__LMAP_42(m, c, h, ...) BB__LM_42(m, c, __VA_ARGS__)
#define BB__LMAP_43(m, c, h, ...) BB__LM_43(m, c, __VA_ARGS__)
#define BB__LMAP_44(m, c, h, ...) BB__LM_44(m, c, __VA_ARGS__)
#define BB__LMAP_45(m, c, h, ...) BB__LM_45(m, c, __VA_ARGS__)
#define BB__LMAP_46(m, c, h, ...) BB__LM_46(m, c, __VA_ARGS__)
#define BB__LMAP_47(m, c, h, ...) BB__LM_47(m, c, __VA_ARGS__)
#define BB__LMAP_48(m, c, h, ...) BB__LM_48(m, c, __VA_ARGS__)
#define BB__LMAP_49(m, c, h, ...) BB__LM_49(m, c, __VA_ARGS__)
#define BB__LMAP_50(m, c, h, ...) BB__LM_50(m, c, __VA_ARGS__)
#define BB__LMAP_51(m, c, h, ...) BB__LM_51(m, c, __VA_ARGS__)
#define BB__LMAP_52(m, c, h, ...) BB__LM_52(m, c, __VA_ARGS__)
#define BB__LMAP_53(m, c, h, ...) BB__LM_53(m, c, __VA_ARGS__)
#define BB__LMAP_54(m, c, h, ...) BB__LM_54(m, c, __VA_ARGS__)
#define BB__LMAP_55(m, c, h, ...) BB__LM_55(m, c, __VA_ARGS__)
#define BB__LMAP_56(m, c, h, ...) BB__LM_56(m, c, __VA_ARGS__)
#define BB__LMAP_57(m, c, h, ...) BB__LM_57(m, c, __VA_ARGS__)
#define BB__LMAP_58(m, c, h, ...) BB__LM_58(m, c, __VA_ARGS__)
#define BB__LMAP_59(m, c, h, ...) BB__LM_59(m, c, __VA_ARGS__)
#define BB__LMAP_60(m, c, h, ...) BB__LM_60(m, c, __VA_ARGS__)
#define BB__LMAP_61(m, c, h, ...) BB__LM_61(m, c, __VA_ARGS__)
#define BB__LMAP_62(m, c, h, ...) BB__LM_62(m, c, __VA_ARGS__)
#define BB__LMAP_63(m, c, h, ...) BB__LM_63(m, c, __VA_ARGS__)
#define BB__LMAP_64(m, c, h, ...) BB__LM_64(m, c, __VA_ARGS__)
#define BB__LMAP_65(m, c, h, ...) BB__LM_65(m, c, __VA_ARGS__)
#define BB__LMAP_66(m, c, h, ...) BB__LM_66(m, c, __VA_ARGS__)
#define BB__LMAP_67(m, c, h, ...) BB__LM_67(m, c, __VA_ARGS__)
#define BB__LMAP_68(m, c, h, ...) BB__LM_68(m, c, __VA_ARGS__)
#define BB__LMAP_69(m, c, h, ...) BB__LM_69(m, c, __VA_ARGS__)
#define BB__LMAP_70(m, c, h, ...) BB__LM_70(m, c, __VA_ARGS__)
#define BB__LMAP_71(m, c, h, ...) BB__LM_71(m, c, __VA_ARGS__)
#define BB__LMAP_72(m, c, h, ...) BB__LM_72(m, c, __VA_ARGS__)
#define BB__LMAP_73(m, c, h, ...) BB__LM_73(m, c, __VA_ARGS__)
#define BB__LMAP_74(m, c, h, ...) BB__LM_74(m, c, __VA_ARGS__)
#define BB__LMAP_75(m, c, h, ...) BB__LM_75(m, c, __VA_ARGS__)
#define BB__LMAP_76(m, c, h, ...) BB__LM_76(m, c, __VA_ARGS__)
#define BB__LMAP_77(m, c, h, ...) BB__LM_77(m, c, __VA_ARGS__)
#define BB__LMAP_78(m, c, h, ...) BB__LM_78(m, c, __VA_ARGS__)
#define BB__LMAP_79(m, c, h, ...) BB__LM_79(m, c, __VA_ARGS__)
#define BB__LMAP_80(m, c, h, ...) BB__LM_80(m, c, __VA_ARGS__)
#define BB__LMAP_81(m, c, h, ...) BB__LM_81(m, c, __VA_ARGS__)
#define BB__LMAP_82(m, c, h, ...) BB__LM_82(m, c, __VA_ARGS__)
#define BB__LMAP_83(m, c, h, ...) BB__LM_83(m, c, __VA_ARGS__)
#define BB__LMAP_84(m, c, h, ...) BB__LM_84(m, c, __VA_ARGS__)
#define BB__LMAP_85(m, c, h, ...) BB__LM_85(m, c, __VA_ARGS__)
#define BB__LMAP_86(m, c, h, ...) BB__LM_86(m, c, __VA_ARGS__)
#define BB__LMAP_87(m, c, h, ...) BB__LM_87(m, c, __VA_ARGS__)
#define BB__LMAP_88(m, c, h, ...) BB__LM_88(m, c, __VA_ARGS__)
#define BB__LMAP_89(m, c, h, ...) BB__LM_89(m, c, __VA_ARGS__)
#define BB__LMAP_90(m, c, h, ...) BB__LM_90(m, c, __VA_ARGS__)
#define BB__LMAP_91(m, c, h, ...) BB__LM_91(m, c, __VA_ARGS__)
#define BB__LMAP_92(m, c, h, ...) BB__LM_92(m, c, __VA_ARGS__)
#define BB__LMAP_93(m, c, h, ...) BB__LM_93(m, c, __VA_ARGS__)
#define BB__LMAP_94(m, c, h, ...) BB__LM_94(m, c, __VA_ARGS__)
#define BB__LMAP_95(m, c, h, ...) BB__LM_95(m, c, __VA_ARGS__)
#define BB__LMAP_96(m, c, h, ...) BB__LM_96(m, c, __VA_ARGS__)
#define BB__LMAP_97(m, c, h, ...) BB__LM_97(m, c, __VA_ARGS__)
#define BB__LMAP_98(m, c, h, ...) BB__LM_98(m, c, __VA_ARGS__)
#define BB__LMAP_99(m, c, h, ...) BB__LM_99(m, c, __VA_ARGS__)
#define BB__LMAP_100(m, c, h, ...) BB__LM_100(m, c, __VA_ARGS__)
#define BB__LMAP_101(m, c, h, ...) BB__LM_101(m, c, __VA_ARGS__)
#define BB__LMAP_102(m, c, h, ...) BB__LM_102(m, c, __VA_ARGS__)
#define BB__LMAP_103(m, c, h, ...) BB__LM_103(m, c, __VA_ARGS__)
#define BB__LMAP_104(m, c, h, ...) BB__LM_104(m, c, __VA_ARGS__)
#define BB__LMAP_105(m, c, h, ...) BB__LM_105(m, c, __VA_ARGS__)
#define BB__LMAP_106(m, c, h, ...) BB__LM_106(m, c, __VA_ARGS__)
#define BB__LMAP_107(m, c, h, ...) BB__LM_107(m, c, __VA_ARGS__)
#define BB__LMAP_108(m, c, h, ...) BB__LM_108(m, c, __VA_ARGS__)
#define BB__LMAP_109(m, c, h, ...) BB__LM_109(m, c, __VA_ARGS__)
#define BB__LMAP_110(m, c, h, ...) BB__LM_110(m, c, __VA_ARGS__)
#define BB__LMAP_111(m, c, h, ...) BB__LM_111(m, c, __VA_ARGS__)
#define BB__LMAP_112(m, c, h, ...) BB__LM_112(m, c, __VA_ARGS__)
#define BB__LMAP_113(m, c, h, ...) BB__LM_113(m, c, __VA_ARGS__)
#define BB__LMAP_114(m, c, h, ...) BB__LM_114(m, c, __VA_ARGS__)
#define BB__LMAP_115(m, c, h, ...) BB__LM_115(m, c, __VA_ARGS__)
#define BB__LMAP_116(m, c, h, ...) BB__LM_116(m, c, __VA_ARGS__)
#define BB__LMAP_117(m, c, h, ...) BB__LM_117(m, c, __VA_ARGS__)
#define BB__LMAP_118(m, c, h, ...) BB__LM_118(m, c, __VA_ARGS__)
#define BB__LMAP_119(m, c, h, ...) BB__LM_119(m, c, __VA_ARGS__)
#define BB__LMAP_120(m, c, h, ...) BB__LM_120(m, c, __VA_ARGS__)
#define BB__LMAP_121(m, c, h, ...) BB__LM_121(m, c, __VA_ARGS__)
#define BB__LMAP_122(m, c, h, ...) BB__LM_122(m, c, __VA_ARGS__)
#define BB__LMAP_123(m, c, h, ...) BB__LM_123(m, c, __VA_ARGS__)
#define BB__LMAP_124(m, c, h, ...) BB__LM_124(m, c, __VA_ARGS__)
#define BB__LMAP_125(m, c, h, ...) BB__LM_125(m, c, __VA_ARGS__)
#define BB__LMAP_126(m, c, h, ...) BB__LM_126(m, c, __VA_ARGS__)
#define BB__LMAP_127(m, c, h, ...) BB__LM_127(m, c, __VA_ARGS__)
#define BB__LMAP_128(m, c, h, ...) BB__LM_128(m, c, __VA_ARGS__)
#define BB__OMAP_0(m, c, h) /* nothing */
#define BB__OMAP_1(m, c, h, ...) BB__OM_1(m, c, __VA_ARGS__)
#define BB__OMAP_2(m, c, h, ...) BB__OM_2(m, c, __VA_ARGS__)
#define BB__OMAP_3(m, c, h, ...) BB__OM_3(m, c, __VA_ARGS__)
#define BB__OMAP_4(m, c, h, ...) BB__OM_4(m, c, __VA_ARGS__)
#define BB__OMAP_5(m, c, h, ...) BB__OM_5(m, c, __VA_ARGS__)
#define BB__OMAP_6(m, c, h, ...) BB__OM_6(m, c, __VA_ARGS__)
#define BB__OMAP_7(m, c, h, ...) BB__OM_7(m, c, __VA_ARGS__)
#define BB__OMAP_8(m, c, h, ...) BB__OM_8(m, c, __VA_ARGS__)

#endif /* BACKBEAT_EVENT_H */
