/* roundtrip_events.h — events covering every field type, role, enum repr width, sentinel,
 * interned kind, span phase and a zero-field marker, for the round-trip tests. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_TEST_ROUNDTRIP_EVENTS_H
#define BB_TEST_ROUNDTRIP_EVENTS_H

#include "backbeat/event.h"

BB_ENUM(rt_e8, uint64_t, (RT_E8_ZERO, 0, "zero"), (RT_E8_MAX, UINT64_MAX, "max"));
BB_ENUM(rt_e4, int32_t, (RT_E4_NEG, -5, "minus five"), (RT_E4_BIG, 70000, "big"));
BB_ENUM(rt_e2, uint16_t, (RT_E2_NONE, 0xFFFF, "none"), (RT_E2_ON, 300, "on"));
BB_ENUM(rt_e1, int8_t, (RT_E1_BACK, -1, "back"), (RT_E1_FWD, 1, "fwd"));

BB_EVENT(rt_scalars, "rt", "Scalars", "Every scalar type.", BB_KEY(uint64_t, a, "key"),
         BB_FIELD(int64_t, e, NULL, BB_SENTINEL(INT64_MIN)),
         BB_FIELD(uint32_t, b, "", BB_UNIT("bytes"), BB_SENTINEL(0)),
         BB_FIELD(int32_t, f, NULL, BB_SENTINEL(-1)), BB_FIELD(uint16_t, c, NULL),
         BB_FIELD(int16_t, g, NULL, BB_UNIT("")), BB_FIELD(uint8_t, d, NULL),
         BB_FIELD(int8_t, h, NULL, BB_SENTINEL(-128)), BB_FIELD(bool, i, NULL),
         BB_FIELD(uint8_t[9], j, "bytes"));

BB_EVENT(rt_enums, "rt", "Enums", NULL, BB_ENUM_F(rt_e8, e8, NULL),
         BB_ENUM_F(rt_e4, e4, NULL, BB_UNIT("u")),
         BB_ENUM_F(rt_e2, e2, NULL, BB_SENTINEL(RT_E2_NONE)), BB_ENUM_F(rt_e1, e1, "one byte"),
         BB_FIELD(uint8_t[1], pad, NULL));

BB_EVENT(rt_strings, "rt::str", "Strings", NULL, BB_PARENT_SPAN_ID(uint64_t, parent, NULL),
         BB_INTERN_F(name, "static"), BB_INTERN_DYN_F(path, "dynamic"),
         BB_KEY(uint32_t, k, NULL, BB_SENTINEL(7)), BB_FIELD(uint8_t[4], pad, NULL));

BB_SPAN_ENTER_EVENT(rt_begin, "rt", "Begin", "span enter", BB_SPAN_ID(uint64_t, span, NULL),
                    BB_PARENT_SPAN_ID(uint64_t, parent, NULL), BB_FIELD(uint32_t, work, NULL),
                    BB_FIELD(uint8_t[4], pad, NULL));

BB_SPAN_EXIT_EVENT(rt_end, "rt", "End", NULL, BB_SPAN_ID(uint64_t, span, NULL),
                   BB_FIELD(uint64_t, bytes, NULL, BB_UNIT("bytes")));

BB_EVENT(rt_mark, "rt", "Mark", "zero fields");

BB_EVENT(rt_unrecorded, "rt", "Unrecorded", NULL, BB_FIELD(uint16_t, x, NULL));

#endif /* BB_TEST_ROUNDTRIP_EVENTS_H */
