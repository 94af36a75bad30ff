/* backbeat/detail/log_impl.h — machinery behind log.h; not API, it may change in any release. */
/* SPDX-License-Identifier: MIT */
/* Read include/backbeat/log.h for the contract. A call site expands to: one static assertion per
 * argument (a supported type), the site's field descriptors and its bb__log_site (a schema whose
 * name and description the library fills at registration), a pointer to the site in the section
 * `bb_log_sites` (the constructor below registers every site of the object it is linked into),
 * an unevaluated printf call that makes the compiler check the format, and the recording: the
 * level test, the recorder test, the arguments stored at constant offsets, one record.
 *
 * Argument kinds (the field's description names the kind; docs/LOG_LINES.md):
 *   1 i8, 2 u8, 3 i16, 4 u16, 5 i32, 6 u32, 7 i64, 8 u64, 9 bool, 10 double, 11 long double
 *   (stored as double), 12 pointer (u64), 13 string (bytes[32]: byte 0 = length 0..31,
 *   255 = truncated, 254 = NULL; then the bytes), 14 interned string (u32 id), 15 BB_E enum
 *   (enum, 8 bytes: the value zero-extended from the repr width). 0 = unsupported.
 *
 * A BB_E argument's labels are known only from its value (a C type cannot carry them), so its
 * field descriptor starts with no description and no labels: the first recording fills them
 * (bb__log_enum_bind, a load and a branch per call afterwards) and the site is registered then;
 * the constructor skips a site with an unbound BB_E field.
 *
 * Not a system header (unlike event.h): the format check's warnings must reach the user.
 * ABI (detail/abi.h): bb__log_site is compiled into programs; its desc.abi carries the layout. */
#ifndef BACKBEAT_DETAIL_LOG_IMPL_H
#define BACKBEAT_DETAIL_LOG_IMPL_H

#ifndef BACKBEAT_LOG_H
#error "include <backbeat/log.h>, not this file"
#endif

#include "log_map.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One call site. ABI: compiled into programs. */
typedef struct bb__log_site {
    bb_event_desc desc; /* name and description are filled by the library (bb__log_site_id) */
    const char *format;
    const char *file;
    const char *function;
    uint32_t line;
    uint8_t level;
} bb__log_site;

/* A string argument to intern (BB_I). */
typedef struct bb__log_istr {
    const char *s;
} bb__log_istr;

/* An argument of a BB_ENUM type (BB_E): the value zero-extended from the repr width, the enum's
 * labels and the repr's wire type (BB_TYPE_U8 .. BB_TYPE_I64). */
typedef struct bb__log_enum {
    uint64_t v;
    const bb_enum_label *labels;
    uint16_t count;
    uint8_t tag;
} bb__log_enum;

/* The run-time level (lines below it are not recorded) and the dump level (a recorded line at
 * or above it fires the global recorder's dumper: BACKBEAT_DUMP_ON_LOG). Relaxed loads. */
BB_API extern int bb__log_min;
BB_API extern int bb__log_dump_min;
/* The site's event id: names, describes and registers the site on its first use if the
 * constructor has not (a line recorded from an earlier constructor). */
BB_API uint64_t bb__log_site_id(bb__log_site *site);
/* Register / unregister the sites [begin, end) of one loaded object. */
BB_API void bb__log_sites_add(bb__log_site *const *begin, bb__log_site *const *end);
BB_API void bb__log_sites_remove(bb__log_site *const *begin, bb__log_site *const *end);
/* A line at or above bb__log_dump_min was recorded into `rec`. */
BB_API void bb__log_fired(bb_recorder *rec, int level);
/* Give the BB_E field `f` of a site its labels and description (once; under the site lock). */
BB_API void bb__log_enum_bind(bb_field_desc *f, const bb_enum_label *labels, uint16_t count,
                              uint8_t tag);

#ifndef BACKBEAT_COMPILED_OUT
/* The sites of the object this file is linked into (the linker's bounds of the section). */
extern bb__log_site *const __start_bb_log_sites[] __attribute__((weak, visibility("hidden")));
extern bb__log_site *const __stop_bb_log_sites[] __attribute__((weak, visibility("hidden")));
/* One flag per object (hidden): its first constructor registers, its first destructor
 * unregisters. */
__attribute__((weak, visibility("hidden"))) int bb__log_sites_once = 0;

__attribute__((constructor, unused)) static void bb__log_sites_ctor(void) {
    if (__start_bb_log_sites && !bb__log_sites_once) {
        bb__log_sites_once = 1;
        bb__log_sites_add(__start_bb_log_sites, __stop_bb_log_sites);
    }
}
__attribute__((destructor, unused)) static void bb__log_sites_dtor(void) {
    if (__start_bb_log_sites && bb__log_sites_once) {
        bb__log_sites_once = 0;
        bb__log_sites_remove(__start_bb_log_sites, __stop_bb_log_sites);
    }
}
#endif

/* Never called: the compiler checks a call site's format against its arguments through it. */
static inline __attribute__((format(printf, 1, 2))) void bb__log_check(const char *format, ...) {
    (void)format;
}

BB__INLINE uint64_t bb__log_id(bb__log_site *s) {
    uint64_t id = __atomic_load_n(&s->desc.id, __ATOMIC_RELAXED);
    if (BB__UNLIKELY(id == 0)) id = bb__log_site_id(s);
    return id;
}

/* The stores, one per kind. */
#define BB__LP_INT(name, T)                                                   \
    BB__INLINE void name(bb_recorder *r, bb_field_desc *f, uint8_t *p, T v) { \
        (void)r, (void)f;                                                     \
        memcpy(p, &v, sizeof v);                                              \
    }
BB__LP_INT(bb__lp_c, char)
BB__LP_INT(bb__lp_sc, signed char)
BB__LP_INT(bb__lp_uc, unsigned char)
BB__LP_INT(bb__lp_s, short)
BB__LP_INT(bb__lp_us, unsigned short)
BB__LP_INT(bb__lp_i, int)
BB__LP_INT(bb__lp_u, unsigned int)
BB__LP_INT(bb__lp_l, long)
BB__LP_INT(bb__lp_ul, unsigned long)
BB__LP_INT(bb__lp_ll, long long)
BB__LP_INT(bb__lp_ull, unsigned long long)
BB__LP_INT(bb__lp_d, double)
BB__INLINE void bb__lp_b(bb_recorder *r, bb_field_desc *f, uint8_t *p, bool v) {
    (void)r, (void)f;
    p[0] = v ? 1 : 0;
}
BB__INLINE void bb__lp_ld(bb_recorder *r, bb_field_desc *f, uint8_t *p, long double v) {
    bb__lp_d(r, f, p, (double)v);
}
BB__INLINE void bb__lp_p(bb_recorder *r, bb_field_desc *f, uint8_t *p, const void *v) {
    uint64_t u = (uint64_t)(uintptr_t)v;
    (void)r, (void)f;
    memcpy(p, &u, 8);
}
BB__INLINE void bb__lp_str(bb_recorder *r, bb_field_desc *f, uint8_t *p, const char *s) {
    size_t n = 0;
    (void)r, (void)f;
    memset(p, 0, BB_LOG_STR_MAX + 1);
    if (!s) {
        p[0] = 254;
        return;
    }
    /* The object's size is the NUL's business: hide it from gcc's bounds warnings, which do not
     * see that the loop stops at the NUL (no code emitted). */
    __asm__("" : "+r"(s));
    while (n <= BB_LOG_STR_MAX && s[n]) n++; /* s[MAX] is read only after MAX non-NULs */
    memcpy(p + 1, s, n > BB_LOG_STR_MAX ? BB_LOG_STR_MAX : n);
    p[0] = (uint8_t)(n > BB_LOG_STR_MAX ? 255 : n);
}
BB__INLINE void bb__lp_istr(bb_recorder *r, bb_field_desc *f, uint8_t *p, bb__log_istr v) {
    uint32_t id = v.s ? bb_intern_str(r, v.s) : 0;
    (void)f;
    memcpy(p, &id, 4);
}
BB__INLINE void bb__lp_enum(bb_recorder *r, bb_field_desc *f, uint8_t *p, bb__log_enum v) {
    (void)r;
    if (BB__UNLIKELY(!__atomic_load_n(&f->description, __ATOMIC_ACQUIRE)))
        bb__log_enum_bind(f, v.labels, v.count, v.tag);
    memcpy(p, &v.v, 8);
}

#ifdef __cplusplus
}
#endif

/* Kind -> wire type, width, description. */
#define BB__LKT(k)                  \
    ((k) == 1    ? BB_TYPE_I8       \
     : (k) == 2  ? BB_TYPE_U8       \
     : (k) == 3  ? BB_TYPE_I16      \
     : (k) == 4  ? BB_TYPE_U16      \
     : (k) == 5  ? BB_TYPE_I32      \
     : (k) == 6  ? BB_TYPE_U32      \
     : (k) == 7  ? BB_TYPE_I64      \
     : (k) == 9  ? BB_TYPE_BOOL     \
     : (k) == 13 ? BB_TYPE_BYTES    \
     : (k) == 14 ? BB_TYPE_INTERNED \
     : (k) == 15 ? BB_TYPE_ENUM     \
                 : BB_TYPE_U64)
#define BB__LKW(k)                                \
    ((k) == 0                ? 0                  \
     : (k) <= 2 || (k) == 9  ? 1                  \
     : (k) <= 4              ? 2                  \
     : (k) <= 6 || (k) == 14 ? 4                  \
     : (k) == 13             ? BB_LOG_STR_MAX + 1 \
                             : 8)
#define BB__LKD(k)                   \
    ((k) == 1    ? "int8"            \
     : (k) == 2  ? "uint8"           \
     : (k) == 3  ? "int16"           \
     : (k) == 4  ? "uint16"          \
     : (k) == 5  ? "int32"           \
     : (k) == 6  ? "uint32"          \
     : (k) == 7  ? "int64"           \
     : (k) == 8  ? "uint64"          \
     : (k) == 9  ? "bool"            \
     : (k) == 10 ? "double"          \
     : (k) == 11 ? "long double"     \
     : (k) == 12 ? "pointer"         \
     : (k) == 13 ? "string"          \
     : (k) == 14 ? "interned string" \
                 : BB__CAST(const char *, 0))
#define BB__LW(x) BB__LKW(BB__LK(x))

#ifdef __cplusplus
extern "C++" {
template <class T> T bb__lval(T);
template <class T> struct bb__lkind { static constexpr int value = 0; };
#define BB__LKIND(T, k) \
    template <> struct bb__lkind<T> { static constexpr int value = (k); }
BB__LKIND(char, static_cast<char>(-1) < 0 ? 1 : 2);
BB__LKIND(signed char, 1);
BB__LKIND(unsigned char, 2);
BB__LKIND(short, 3);
BB__LKIND(unsigned short, 4);
BB__LKIND(int, 5);
BB__LKIND(unsigned int, 6);
BB__LKIND(long, sizeof(long) == 8 ? 7 : 5);
BB__LKIND(unsigned long, sizeof(long) == 8 ? 8 : 6);
BB__LKIND(long long, 7);
BB__LKIND(unsigned long long, 8);
BB__LKIND(bool, 9);
BB__LKIND(float, 10);
BB__LKIND(double, 10);
BB__LKIND(long double, 11);
BB__LKIND(void *, 12);
BB__LKIND(const void *, 12);
BB__LKIND(char *, 13);
BB__LKIND(const char *, 13);
BB__LKIND(bb__log_istr, 14);
BB__LKIND(bb__log_enum, 15);
#undef BB__LKIND
/* An unscoped or scoped enum is recorded as its underlying integer type. */
template <class T, bool E = __is_enum(T)> struct bb__lkind_e {
    static constexpr int value = bb__lkind<T>::value;
};
template <class T> struct bb__lkind_e<T, true> {
    static constexpr int value = bb__lkind<__underlying_type(T)>::value;
};
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, char v) { bb__lp_c(r, f, p, v); }
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, signed char v) {
    bb__lp_sc(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, unsigned char v) {
    bb__lp_uc(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, short v) {
    bb__lp_s(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, unsigned short v) {
    bb__lp_us(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, int v) { bb__lp_i(r, f, p, v); }
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, unsigned int v) {
    bb__lp_u(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, long v) { bb__lp_l(r, f, p, v); }
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, unsigned long v) {
    bb__lp_ul(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, long long v) {
    bb__lp_ll(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, unsigned long long v) {
    bb__lp_ull(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, bool v) { bb__lp_b(r, f, p, v); }
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, float v) {
    bb__lp_d(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, double v) {
    bb__lp_d(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, long double v) {
    bb__lp_ld(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, void *v) {
    bb__lp_p(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, const void *v) {
    bb__lp_p(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, char *v) {
    bb__lp_str(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, const char *v) {
    bb__lp_str(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, bb__log_istr v) {
    bb__lp_istr(r, f, p, v);
}
inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, bb__log_enum v) {
    bb__lp_enum(r, f, p, v);
}
template <class T> inline void bb__lput(bb_recorder *r, bb_field_desc *f, uint8_t *p, T v) {
    bb__lput(r, f, p, static_cast<__underlying_type(T)>(v)); /* plain C++ enums */
}
template <class T> inline T bb__lchk(T v) { return v; }
inline const char *bb__lchk(bb__log_istr v) { return v.s; }
inline int bb__lchk(bb__log_enum v) { return static_cast<int>(v.v); }
}
#define BB__LK(x) (bb__lkind_e<decltype(bb__lval(x))>::value)
#define BB__LPUT(r, f, p, x) bb__lput((r), (f), (p), (x))
#define BB__LCHK(x) bb__lchk(x)
#define BB__LOG_ISTR(s) (bb__log_istr{(s)})
#define BB__LOG_ENUM(e, v) \
    (bb__log_enum{BB__ZEXT(e, v), bb__labels_##e, static_cast<uint16_t>(BB__NLAB(e)), BB__TAG(e)})
#else
/* Never called (the unevaluated check of an interned argument: %s). */
static inline const char *bb__log_chk_istr(int z, ...) {
    (void)z;
    return "";
}
/* Never called (the unevaluated check of a BB_E argument: an int). */
static inline int bb__log_chk_enum(int z, ...) { return z; }
BB__INLINE void bb__lp_bad(bb_recorder *r, bb_field_desc *f, uint8_t *p, ...) {
    (void)r, (void)f, (void)p;
}
#define BB__LK(x)                                                                                 \
    (__extension__ _Generic((x), char                                                             \
                            : ((char)-1 < 0 ? 1 : 2), signed char : 1, unsigned char : 2,         \
                              short : 3, unsigned short : 4, int : 5, unsigned int : 6, long      \
                            : (sizeof(long) == 8 ? 7 : 5), unsigned long                          \
                            : (sizeof(long) == 8 ? 8 : 6), long long : 7, unsigned long long : 8, \
                              _Bool : 9, float : 10, double : 10, long double : 11, void * : 12,  \
                              const void * : 12, char * : 13, const char * : 13,                  \
                              bb__log_istr : 14, bb__log_enum : 15, default : 0))
#define BB__LPUT(r, f, p, x) \
    __extension__ _Generic((x), char: bb__lp_c, signed char: bb__lp_sc, unsigned char: bb__lp_uc, \
        short: bb__lp_s, unsigned short: bb__lp_us, int: bb__lp_i, unsigned int: bb__lp_u,         \
        long: bb__lp_l, unsigned long: bb__lp_ul, long long: bb__lp_ll,                            \
        unsigned long long: bb__lp_ull, _Bool: bb__lp_b, float: bb__lp_d, double: bb__lp_d,        \
        long double: bb__lp_ld, void *: bb__lp_p, const void *: bb__lp_p, char *: bb__lp_str,      \
        const char *: bb__lp_str, bb__log_istr: bb__lp_istr, bb__log_enum: bb__lp_enum,        \
        default: bb__lp_bad)((r), (f), (p), (x))
#define BB__LCHK(x)                                                  \
    (__extension__ _Generic((x), bb__log_istr                        \
                            : bb__log_chk_istr(0, (x)), bb__log_enum \
                            : bb__log_chk_enum(0, (x)), default      \
                            : (x)))
#define BB__LOG_ISTR(s) ((bb__log_istr){(s)})
#define BB__LOG_ENUM(e, v) \
    ((bb__log_enum){BB__ZEXT(e, v), bb__labels_##e, (uint16_t)BB__NLAB(e), BB__TAG(e)})
#endif

/* A static assertion inside a block (before C11: a negative array size, no unused typedef). */
#if defined(__cplusplus) || (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L)
#define BB__LOG_SA(cond, msg) BB__SASSERT(cond, msg)
#else
#define BB__LOG_SA(cond, msg) (void)sizeof(char[(cond) ? 1 : -1])
#endif
/* The level of a call site: a constant BB_TRACE .. BB_FATAL. */
#define BB__LOG_LEVEL_OK(lvl)                          \
    BB__LOG_SA((lvl) >= BB_TRACE && (lvl) <= BB_FATAL, \
               "backbeat: the level of BB_LOG / BB_GLOG must be a constant BB_TRACE .. BB_FATAL")
/* The steps of a call site, per argument: m(c, index, arg, offset). */
#define BB__LOG_ASSERT(c, i, a, off)                                                          \
    BB__LOG_SA(BB__LK(a) != 0, "backbeat: BB_LOG argument " #i " (" #a                        \
                               ") has a type a log line cannot record (integers, floating, "  \
                               "void *, char strings, BB_I(string), BB_E(enum, value); cast " \
                               "other pointers to void *)");
#define BB__LOG_FDESC(c, i, a, off)            \
    {"a" #i,                                   \
     BB__LKD(BB__LK(a)),                       \
     NULL,                                     \
     NULL,                                     \
     0,                                        \
     BB__CAST(uint16_t, off),                  \
     BB__CAST(uint16_t, BB__LW(a)),            \
     0,                                        \
     BB__CAST(uint8_t, BB__LKT(BB__LK(a))),    \
     BB__CAST(uint8_t, BB__LK(a) == 14   ? 1   \
                       : BB__LK(a) == 15 ? 8   \
                                         : 0), \
     0,                                        \
     0},
#define BB__LOG_PUT(c, i, a, off) BB__LPUT(bb__rec, &bb__lf[i], bb__lb + (off), a);

#define BB__LOG_CAT(a, b) BB__LOG_CAT_(a, b)
#define BB__LOG_CAT_(a, b) a##b
#define BB__LOG_SZ(n, ...) BB__CAST(uint16_t, BB__LOG_CAT(BB__LOG_SIZE_, n)(__VA_ARGS__))

/* The site's statics and the format check (both build modes). */
#define BB__LOG_SITE(n, lvl, fmt, ...)                                                             \
    BB__LOG_LEVEL_OK(lvl);                                                                         \
    BB__LOG_CAT(BB__LOG_FIELDS_, n)                                                                \
    (BB__LOG_ASSERT, ~, __VA_ARGS__) if (0)                                                        \
        bb__log_check("" fmt BB__LOG_CAT(BB__LOG_CHK_, n)(__VA_ARGS__));                           \
    static bb_field_desc bb__lf[] = {BB__LOG_CAT(BB__LOG_FIELDS_, n)(                              \
        BB__LOG_FDESC, ~, __VA_ARGS__){NULL, NULL, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0}};           \
    static bb__log_site bb__ls = {{BB__ABI_LAYOUT, NULL, NULL, (n) ? bb__lf : NULL,                \
                                   BB__CAST(uint16_t, n), BB__LOG_SZ(n, __VA_ARGS__), 0, 0, NULL}, \
                                  "" fmt,                                                          \
                                  __FILE__,                                                        \
                                  __func__,                                                        \
                                  BB__CAST(uint32_t, __LINE__),                                    \
                                  BB__CAST(uint8_t, lvl)};                                         \
    static bb__log_site *const bb__lsp __attribute__((section("bb_log_sites"), used)) = &bb__ls;   \
    (void)bb__lsp

#ifndef BACKBEAT_COMPILED_OUT
#define BB__LOG_(n, rec_, lvl, fmt, ...)                                                          \
    do {                                                                                          \
        BB__LOG_SITE(n, lvl, fmt, __VA_ARGS__);                                                   \
        if ((lvl) >= __atomic_load_n(&bb__log_min, __ATOMIC_RELAXED)) {                           \
            bb_recorder *const bb__rec = (rec_);                                                  \
            if (bb__recorder_on(bb__rec)) {                                                       \
                uint8_t bb__lb[BB__LOG_SZ(n, __VA_ARGS__) + 1];                                   \
                /* the id after the arguments: a BB_E one registers the site at its first call */ \
                BB__LOG_CAT(BB__LOG_FIELDS_, n)                                                   \
                (BB__LOG_PUT, ~, __VA_ARGS__) {                                                   \
                    const uint64_t bb__lid = bb__log_id(&bb__ls);                                 \
                    bb__record_armed(                                                             \
                        bb__rec, &bb__ls.desc, bb__lid, bb__lb,                                   \
                        bb__record_inline(bb__rec, bb__lid, bb__lb, BB__LOG_SZ(n, __VA_ARGS__))); \
                }                                                                                 \
                if (BB__UNLIKELY((lvl) >= __atomic_load_n(&bb__log_dump_min, __ATOMIC_RELAXED)))  \
                    bb__log_fired(bb__rec, (lvl));                                                \
            }                                                                                     \
        }                                                                                         \
    } while (0)
#else /* BACKBEAT_COMPILED_OUT: the type and format checks, nothing emitted */
#define BB__LOG_(n, rec_, lvl, fmt, ...)                                     \
    do {                                                                     \
        (void)sizeof(rec_);                                                  \
        BB__LOG_LEVEL_OK(lvl);                                               \
        BB__LOG_CAT(BB__LOG_FIELDS_, n)                                      \
        (BB__LOG_ASSERT, ~, __VA_ARGS__) if (0)                              \
            bb__log_check("" fmt BB__LOG_CAT(BB__LOG_CHK_, n)(__VA_ARGS__)); \
    } while (0)
#endif

#endif /* BACKBEAT_DETAIL_LOG_IMPL_H */
