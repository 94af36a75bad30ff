/* backbeat/detail/event_impl.h — machinery behind event.h; not API, it may change in any release. */
/* SPDX-License-Identifier: MIT */
/* Read include/backbeat/event.h for the contract. This header holds what expands it: C/C++ type
 * tags, the per-field steps, the event/enum/views expansions and the argument validation that
 * turns a malformed BB_EVENT or field macro into one static assertion naming the event and the
 * field. The counted maps are generated (detail/event_map.h, scripts/gen-event-maps.py).
 *
 * Like event.h this file declares itself a system header (gcc and clang then report a failed
 * static assertion raised in these macros at the user's line instead of a line here, and do not
 * warn about the machinery's own tokens). The test suite defines BB__EVENT_NOT_SYSTEM_HEADER
 * to compile it as an ordinary header, so that its warnings still show. */
#ifndef BACKBEAT_DETAIL_EVENT_IMPL_H
#define BACKBEAT_DETAIL_EVENT_IMPL_H
#ifndef BB__EVENT_NOT_SYSTEM_HEADER
#pragma GCC system_header
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../registry.h"
#include "../schema.h"
#include "event_map.h"

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
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define BB__SASSERT(cond, msg) _Static_assert(cond, msg)
#else
/* Before C11 (-std=c99) _Static_assert is an extension that glibc, under strict modes, turns into
 * a redeclared extern function (-Wredundant-decls): a typedef of an array of negative size
 * instead (a failure names bb__assert_failed_N, not the message; C11 and later show it). */
#define BB__SASSERT(cond, msg) \
    __extension__ typedef char BB__CAT(bb__assert_failed_, __COUNTER__)[(cond) ? 1 : -1]
#endif
#define BB__DECL(type) __typeof__(type)
#define BB__CAST(T, v) ((T)(v))
/* Wire type tag of a C type name; 255 = unsupported. An array decays to a pointer to its
 * element in the controlling expression, so uint8_t[N] selects `uint8_t *`; a real pointer
 * type is excluded first. */
#define BB__TAG(type) \
    __extension__ _Generic((__typeof__(type) *)0, uint8_t **: 255, default: _Generic(                            \
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
#define BB__ZEXT(type, v)    \
    (BB__CAST(uint64_t, v) & \
     (~BB__CAST(uint64_t, 0) >> (sizeof(type) >= 8 ? 0 : 64 - 8 * sizeof(type))))

/* Maps: BB__xMAP(n, step, ctx, head, items...) expands step(ctx, item) for each of the n
 * items (the head argument only keeps `...` non-empty). */
#define BB__FMAP(n, m, c, ...) BB__CAT(BB__FMAP_, n)(m, c, __VA_ARGS__)
#define BB__LMAP(n, m, c, ...) BB__CAT(BB__LMAP_, n)(m, c, __VA_ARGS__)
#define BB__OMAP(m, c, ...) BB__OCAT(BB__OMAP_, BB__NOPTS(__VA_ARGS__))(m, c, __VA_ARGS__)
#define BB__OCAT(a, b) BB__OCAT_(a, b)
#define BB__OCAT_(a, b) a##b
#define BB__VMAP(n, m, c, ...) BB__VMCAT(BB__VMAP_, n)(m, c, __VA_ARGS__)
#define BB__VMCAT(a, b) BB__VMCAT_(a, b)
#define BB__VMCAT_(a, b) a##b
#define BB__PMAP(n, m, c, ...) BB__PMCAT(BB__PMAP_, n)(m, c, __VA_ARGS__)
#define BB__PMCAT(a, b) BB__PMCAT_(a, b)
#define BB__PMCAT_(a, b) a##b

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
#define BB__KCHECK_bb__k_span(ident, t, name) \
    BB__SASSERT(BB__TAG(t) == BB_TYPE_U64,    \
                "backbeat: event '" #ident "': span_id field '" #name "' must be uint64_t");
#define BB__KCHECK_bb__k_parent(ident, t, name)                              \
    BB__SASSERT(BB__TAG(t) == BB_TYPE_U64,                                   \
                "backbeat: event '" #ident "': parent_span_id field '" #name \
                "' must be uint64_t");
#define BB__KCHECK_bb__k_enum(ident, t, name)                                                 \
    BB__SASSERT(BB__TAG(t) <= BB_TYPE_I64, "backbeat: event '" #ident "': enum field '" #name \
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
#define BB__S_TYPEDEF_Y(ident, kind, type, name, ...) \
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
#define BB__S_DESC_Y(ident, kind, type, name, ...)       \
    {#name,                                              \
     BB__HEAD(__VA_ARGS__, ~),                           \
     BB__UNIT_OF(__VA_ARGS__),                           \
     BB__KLABELS_##kind(type),                           \
     BB__CAST(uint64_t, BB__SENT_OF(type, __VA_ARGS__)), \
     BB__CAST(uint16_t, offsetof(struct ident, name)),   \
     BB__CAST(uint16_t, sizeof(type)),                   \
     BB__CAST(uint16_t, BB__KLCOUNT_##kind(type)),       \
     BB__CAST(uint8_t, BB__KTAG_##kind(type)),           \
     BB__CAST(uint8_t, BB__KARG_##kind(type)),           \
     BB__CAST(uint8_t, BB__KROLE_##kind),                \
     BB__CAST(uint8_t, BB__HAS_SENT(__VA_ARGS__))},

#define BB__S_CHECK(ident, f) BB__S_CHECK_X(ident, BB__UNPACK f)
#define BB__S_CHECK_X(ident, ...) BB__S_CHECK_Y(ident, __VA_ARGS__)
#define BB__S_CHECK_Y(ident, kind, type, name, ...)                                           \
    BB__SASSERT(BB__TAG(type) != 255,                                                         \
                "backbeat: event '" #ident "': field '" #name                                 \
                "' has an unsupported type (use uint8_t..uint64_t, int8_t..int64_t, bool or " \
                "uint8_t[N])");                                                               \
    BB__SASSERT(offsetof(struct ident, name) == offsetof(struct bb__packed_##ident, name),    \
                "backbeat: event '" #ident "': implicit padding before field '" #name         \
                "' (reorder the fields or add an explicit padding field)");                   \
    BB__SASSERT(!(BB__HAS_SENT(__VA_ARGS__)) ||                                               \
                    (BB__TAG(type) != BB_TYPE_BOOL && BB__TAG(type) != BB_TYPE_BYTES),        \
                "backbeat: event '" #ident "': sentinel on non-integer field '" #name "'");   \
    BB__SASSERT(BB__NOPT_OF(bb__o_unit, __VA_ARGS__) <= 1 &&                                  \
                    BB__NOPT_OF(bb__o_sentinel, __VA_ARGS__) <= 1,                            \
                "backbeat: event '" #ident "': field '" #name                                 \
                "' has more than one BB_UNIT or BB_SENTINEL");                                \
    BB__KCHECK_##kind(ident, type, name)

/* A zero-field event's struct gets one placeholder byte; it is not part of the record. */
#define BB__PLACEHOLDER_0 uint8_t bb_no_fields_;
#define BB__PLACEHOLDER_1

/* A well-formed event (see BB__EVENT below for the validation that leads here). */
#define BB__EVENT_OK(phase, ...) \
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
    static const bb_field_desc bb__fields_##ident[] = {BB__FMAP(                                   \
        n, BB__S_DESC, ident, __VA_ARGS__){NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0}};       \
    static bb_event_desc bb__desc_##ident = {                                                      \
        BB__ABI_LAYOUT,                                                                            \
        ns "::" nm,                                                                                \
        BB__HEAD(__VA_ARGS__, ~),                                                                  \
        (has) ? bb__fields_##ident : NULL,                                                         \
        BB__CAST(uint16_t, 0 BB__FMAP(n, BB__S_COUNT, ident, __VA_ARGS__)),                        \
        BB__CAST(uint16_t, bb__rsize_##ident),                                                     \
        BB__CAST(uint8_t, phase),                                                                  \
        0,                                                                                         \
        NULL};                                                                                     \
    __attribute__((constructor)) static void bb__register_##ident(void) {                          \
        bb_registry_add(&bb__desc_##ident);                                                        \
    }                                                                                              \
    __attribute__((destructor)) static void bb__unregister_##ident(void) {                         \
        bb_registry_remove(&bb__desc_##ident);                                                     \
    }                                                                                              \
    BB__FMAP(n, BB__S_CHECK, ident, __VA_ARGS__)                                                   \
    BB__SASSERT(!(has) || sizeof(struct ident) == BB__CAST(size_t, bb__rsize_##ident),             \
                "backbeat: event '" #ident "': implicit padding at the end of the struct "         \
                "(add an explicit trailing padding field)");                                       \
    BB__SASSERT(BB__CAST(size_t, bb__rsize_##ident) <= BB_MAX_RECORD_SIZE,                         \
                "backbeat: event '" #ident "': record larger than BB_MAX_RECORD_SIZE");            \
    BB__SASSERT((phase) == BB_PHASE_NONE || (0 BB__FMAP(n, BB__S_SPANS, ident, __VA_ARGS__)) == 1, \
                "backbeat: event '" #ident "': a span enter/exit event needs exactly one "         \
                "BB_SPAN_ID field")

/* Enums: typedef, named constants, label table (last, so the user's ';' ends it). */
#define BB__ENUM_X(n, ...) BB__ENUM_Y(n, __VA_ARGS__)
#define BB__ENUM_Y(n, e, ...)                                                             \
    typedef BB__HEAD(__VA_ARGS__, ~) e;                                                   \
    BB__SASSERT(BB__TAG(e) <= BB_TYPE_I64,                                                \
                "backbeat: enum '" #e "': the repr type must be a fixed-width integer");  \
    BB__LMAP(n, BB__L_CHECK, e, __VA_ARGS__)                                              \
    BB__ENUM_DECL(e, BB__HEAD(__VA_ARGS__, ~)){bb__enum_first_##e,                        \
                                               BB__LMAP(n, BB__L_CONST, e, __VA_ARGS__)}; \
    static const bb_enum_label bb__labels_##e[]                                           \
        __attribute__((unused)) = {BB__LMAP(n, BB__L_LABEL, e, __VA_ARGS__){0, NULL}}
#define BB__L_CONST(e, t) BB__L_CONST_ t
#define BB__L_CONST_(name, value, label) name = (value),
#define BB__L_CHECK(e, t) BB__L_CHECK_X(e, BB__UNPACK t)
#define BB__L_CHECK_X(e, ...) BB__L_CHECK_Y(e, __VA_ARGS__)
#define BB__L_CHECK_Y(e, name, value, label)   \
    BB__SASSERT(BB__CAST(e, value) == (value), \
                "backbeat: enum '" #e "': the value of " #name " does not fit the repr type");
#define BB__L_LABEL(e, t) BB__L_LABEL_X(e, BB__UNPACK t)
#define BB__L_LABEL_X(e, ...) BB__L_LABEL_Y(e, __VA_ARGS__)
#define BB__L_LABEL_Y(e, name, value, label) {BB__ZEXT(e, value), label},

#define BB__VIEWS(ident, sql)                                                    \
    static bb_view_desc bb__views_##ident = {BB__ABI_LAYOUT, #ident, sql, NULL}; \
    __attribute__((constructor)) static void bb__register_views_##ident(void) {  \
        bb_views_add(&bb__views_##ident);                                        \
    }                                                                            \
    __attribute__((destructor)) static void bb__unregister_views_##ident(void) { \
        bb_views_remove(&bb__views_##ident);                                     \
    }                                                                            \
    BB__SASSERT(sizeof(bb__views_##ident) > 0, "backbeat: views")

/* ---- validation ------------------------------------------------------------------------
 *
 * Every field macro checks its own arguments and expands either to the field tuple
 * (kind, type, name, desc, options...) or to an error tuple (bb__k_bad, keyword, 0, "message")
 * whose static-assertion keyword and condition come from the field macro's expansion, so that
 * the compilers locate the failure at the field's line. BB__EVENT classifies its arguments;
 * if any is wrong it expands to nothing but one static assertion per problem (named event,
 * named or quoted field), otherwise to BB__EVENT_OK. Classes of an argument: bb__c_ok (a field
 * tuple), bb__c_bad (an error tuple), bb__c_opt (an option tuple), bb__c_nf (anything else:
 * a misspelled macro, a string, NULL). Problems are collected as `bb__x` tokens; BB__EMPTY
 * tells whether there are none. */
#ifdef __cplusplus
#define BB__SA_KW static_assert
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define BB__SA_KW _Static_assert
#else
#define BB__SA_KW BB__SASSERT
#endif

#define BB__VCAT(a, b) BB__VCAT_(a, b)
#define BB__VCAT_(a, b) a##b
#define BB__SECOND(...) BB__SECOND_(__VA_ARGS__, ~, ~)
#define BB__SECOND_(a, b, ...) b
#define BB__HEAD_OF(...) BB__HEAD_OF_(__VA_ARGS__, ~)
#define BB__HEAD_OF_(a, ...) a
/* 1 if x is a parenthesised group, else 0. */
#define BB__IS_PAREN(x) BB__SECOND(BB__IS_PAREN_P x, 0)
#define BB__IS_PAREN_P(...) ~, 1, ~
/* 1 if the token sequence p (identifiers only) is empty, else 0. */
#define BB__EMPTY(p) BB__SECOND(BB__VCAT(BB__EMPTY_, p bb__end), 0)
#define BB__EMPTY_bb__end ~, 1, ~

/* The class of one argument. */
#define BB__CLASS(x) BB__VCAT(BB__CLASS_P, BB__IS_PAREN(x))(x)
#define BB__CLASS_P0(x) bb__c_nf
#define BB__CLASS_P1(x) BB__CLASS_H(BB__HEAD_OF x)
#define BB__CLASS_H(h) BB__VCAT(BB__CLASS_HP, BB__IS_PAREN(h))(h)
#define BB__CLASS_HP1(h) bb__c_nf
#define BB__CLASS_HP0(h) BB__SECOND(BB__VCAT(BB__VK_, h), bb__c_nf)
#define BB__VK_bb__k_plain ~, bb__c_ok, ~
#define BB__VK_bb__k_key ~, bb__c_ok, ~
#define BB__VK_bb__k_span ~, bb__c_ok, ~
#define BB__VK_bb__k_parent ~, bb__c_ok, ~
#define BB__VK_bb__k_enum ~, bb__c_ok, ~
#define BB__VK_bb__k_istatic ~, bb__c_ok, ~
#define BB__VK_bb__k_idyn ~, bb__c_ok, ~
#define BB__VK_bb__k_bad ~, bb__c_bad, ~
#define BB__VK_bb__o_unit ~, bb__c_opt, ~
#define BB__VK_bb__o_sentinel ~, bb__c_opt, ~
/* Problems: a description (anything but a field or an option), a field, an option. */
#define BB__DPROB(d) BB__VCAT(BB__DPROB_, BB__CLASS(d))
#define BB__DPROB_bb__c_nf
#define BB__DPROB_bb__c_ok bb__x
#define BB__DPROB_bb__c_bad bb__x
#define BB__DPROB_bb__c_opt bb__x
#define BB__FPROB(c, f) BB__VCAT(BB__FPROB_, BB__CLASS(f))
#define BB__FPROB_bb__c_ok
#define BB__FPROB_bb__c_nf bb__x
#define BB__FPROB_bb__c_bad bb__x
#define BB__FPROB_bb__c_opt bb__x
#define BB__OPROB(c, o) BB__VCAT(BB__OPROB_, BB__CLASS(o))
#define BB__OPROB_bb__c_opt
#define BB__OPROB_bb__c_ok bb__x
#define BB__OPROB_bb__c_nf bb__x
#define BB__OPROB_bb__c_bad bb__x

/* Field macros. The form of each, for the messages. */
#define BB__FORM_bb__k_plain "BB_FIELD(type, name, \"description\" or NULL, options...)"
#define BB__FORM_bb__k_key "BB_KEY(type, name, \"description\" or NULL, options...)"
#define BB__FORM_bb__k_span "BB_SPAN_ID(uint64_t, name, \"description\" or NULL)"
#define BB__FORM_bb__k_parent "BB_PARENT_SPAN_ID(uint64_t, name, \"description\" or NULL)"
#define BB__FORM_bb__k_enum "BB_ENUM_F(enum, name, \"description\" or NULL, options...)"
#define BB__FORM_bb__k_istatic "BB_INTERN_F(name, \"description\" or NULL)"
#define BB__FORM_bb__k_idyn "BB_INTERN_DYN_F(name, \"description\" or NULL)"
#define BB__FORM(kind) BB__VCAT(BB__FORM_, kind)
#define BB__BAD(msg) (bb__k_bad, BB__SA_KW, 0, msg)

/* (type, name, desc, options...) fields: BB_FIELD, BB_KEY, BB_ENUM_F. */
#define BB__FIELD(kind, ...)                                                             \
    BB__VCAT(BB__FL_, BB__SECOND(BB__VCAT(BB__FLN_, BB__NARG(__VA_ARGS__)), bb__c_many)) \
    (kind, __VA_ARGS__)
#define BB__FL_bb__c_n1(kind, ...) \
    BB__BAD("field (" #__VA_ARGS__ \
            "): the name and the description are missing; the form is " BB__FORM(kind))
#define BB__FL_bb__c_n2(kind, type, name) \
    BB__BAD("field '" #name               \
            "': the description is missing (\"text\" or NULL); the form is " BB__FORM(kind))
#define BB__FL_bb__c_many(kind, type, name, ...) \
    BB__BAD("field '" #name "': more than 8 options; the form is " BB__FORM(kind))
#define BB__FL_bb__c_ok(kind, type, name, ...)                                   \
    BB__VCAT(BB__FL_GO, BB__EMPTY(BB__DPROB(BB__HEAD_OF(__VA_ARGS__)) BB__PMAP(  \
                            BB__NOPTS(__VA_ARGS__), BB__OPROB, ~, __VA_ARGS__))) \
    (kind, type, name, __VA_ARGS__)
#define BB__FL_GO1(kind, ...) (kind, __VA_ARGS__)
#define BB__FL_GO0(kind, type, name, ...)                                                  \
    BB__BAD("field '" #name "': " BB__VCAT(BB__DMSG_, BB__CLASS(BB__HEAD_OF(__VA_ARGS__))) \
                BB__PMAP(BB__NOPTS(__VA_ARGS__), BB__OMSG, ~,                              \
                         __VA_ARGS__) "the form is " BB__FORM(kind))
#define BB__DMSG_bb__c_nf
#define BB__DMSG_bb__c_ok "the description is missing (a field macro is where it should be); "
#define BB__DMSG_bb__c_bad "the description is missing (a field macro is where it should be); "
#define BB__DMSG_bb__c_opt "the description is missing or after an option (options come last); "
#define BB__OMSG(c, o) BB__VCAT(BB__OMSG_, BB__CLASS(o))(o)
#define BB__OMSG_bb__c_opt(o)
#define BB__OMSG_bb__c_ok(o) "a field macro is given as an option; "
#define BB__OMSG_bb__c_bad(o) "a field macro is given as an option; "
#define BB__OMSG_bb__c_nf(o) BB__OMSG_NF(o)
#define BB__OMSG_NF(o) "'" #o "' is not an option (BB_UNIT or BB_SENTINEL); "

/* Fields of a fixed form: BB_SPAN_ID and BB_PARENT_SPAN_ID (3 arguments), BB_INTERN_F and
 * BB_INTERN_DYN_F (2 arguments, the type is uint32_t). */
#define BB__FIXED3(kind, ...)                                                             \
    BB__VCAT(BB__FX3_, BB__SECOND(BB__VCAT(BB__FX3N_, BB__NARG(__VA_ARGS__)), bb__c_bad)) \
    (kind, __VA_ARGS__)
#define BB__FX3N_3 ~, bb__c_ok
#define BB__FX3_bb__c_ok(kind, type, name, desc) BB__FL_bb__c_ok(kind, type, name, desc)
#define BB__FX3_bb__c_bad(kind, ...) \
    BB__BAD("field (" #__VA_ARGS__ "): wrong number of arguments; the form is " BB__FORM(kind))
#define BB__FIXED2(kind, ...)                                                             \
    BB__VCAT(BB__FX2_, BB__SECOND(BB__VCAT(BB__FX2N_, BB__NARG(__VA_ARGS__)), bb__c_bad)) \
    (kind, __VA_ARGS__)
#define BB__FX2N_2 ~, bb__c_ok
#define BB__FX2_bb__c_ok(kind, name, desc) BB__FL_bb__c_ok(kind, uint32_t, name, desc)
#define BB__FX2_bb__c_bad(kind, ...) \
    BB__BAD("field (" #__VA_ARGS__ "): wrong number of arguments; the form is " BB__FORM(kind))

/* Events. */
#define BB__EV_FORM \
    "the form is BB_EVENT(ident, \"namespace\", \"Name\", \"description\" or NULL, fields...)"
#define BB__EVENT(phase, ...)                                                            \
    BB__VCAT(BB__EV_, BB__SECOND(BB__VCAT(BB__EVN_, BB__NARG(__VA_ARGS__)), bb__c_many)) \
    (phase, __VA_ARGS__)
#define BB__EV_bb__c_few(phase, ...) BB__EV_FEW(BB__HEAD_OF(__VA_ARGS__))
#define BB__EV_FEW(first) BB__EV_FEW_(first)
#define BB__EV_FEW_(first) \
    BB__SA_KW(0, "backbeat: BB_EVENT(" #first ", ...): too few arguments; " BB__EV_FORM)
#define BB__EV_bb__c_many(phase, ident, ...) \
    BB__SA_KW(0, "backbeat: event '" #ident "': more than 64 fields")
#define BB__EV_bb__c_ok(phase, ident, ns, nm, ...)                                                \
    BB__VCAT(BB__EV_GO, BB__EMPTY(BB__DPROB(BB__HEAD_OF(__VA_ARGS__)) BB__VMAP(                   \
                            BB__NFIELDS(ident, ns, nm, __VA_ARGS__), BB__FPROB, ~, __VA_ARGS__))) \
    (phase, ident, ns, nm, __VA_ARGS__)
#define BB__EV_GO1(phase, ...) BB__EVENT_OK(phase, __VA_ARGS__)
#define BB__EV_GO0(phase, ident, ns, nm, ...)                                                  \
    BB__VCAT(BB__EV_DERR_, BB__CLASS(BB__HEAD_OF(__VA_ARGS__)))                                \
    (ident) BB__VMAP(BB__NFIELDS(ident, ns, nm, __VA_ARGS__), BB__EV_FERR, ident, __VA_ARGS__) \
        BB__SA_KW(1, "backbeat")
#define BB__EV_DERR_bb__c_nf(ident)
#define BB__EV_DERR_bb__c_ok(ident) BB__EV_DERR(ident)
#define BB__EV_DERR_bb__c_bad(ident) BB__EV_DERR(ident)
#define BB__EV_DERR_bb__c_opt(ident) BB__EV_DERR(ident)
#define BB__EV_DERR(ident)                                                                        \
    BB__SA_KW(0, "backbeat: event '" #ident "': argument 4 must be the description (\"text\" or " \
                 "NULL), the fields come after it; " BB__EV_FORM);
#define BB__EV_FERR(ident, f) BB__VCAT(BB__EV_FERR_, BB__CLASS(f))(ident, f)
#define BB__EV_FERR_bb__c_ok(ident, f)
#define BB__EV_FERR_bb__c_nf(ident, f)                                                             \
    BB__SA_KW(0, "backbeat: event '" #ident "': '" #f "' is not a field macro (BB_FIELD, BB_KEY, " \
                 "BB_SPAN_ID, BB_PARENT_SPAN_ID, BB_ENUM_F, BB_INTERN_F or BB_INTERN_DYN_F)");
#define BB__EV_FERR_bb__c_opt(ident, f)                                                            \
    BB__SA_KW(0, "backbeat: event '" #ident "': an option (BB_UNIT or BB_SENTINEL) is given as a " \
                 "field; options go inside a field macro, after its description");
#define BB__EV_FERR_bb__c_bad(ident, f) BB__EV_FERR_BAD(ident, BB__UNPACK f)
#define BB__EV_FERR_BAD(ident, ...) BB__EV_FERR_BAD_(ident, __VA_ARGS__)
#define BB__EV_FERR_BAD_(ident, kind, kw, zero, msg) kw(zero, "backbeat: event '" #ident "': " msg);

#endif /* BACKBEAT_DETAIL_EVENT_IMPL_H */
