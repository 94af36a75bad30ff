/* roundtrip_check.h — shared checks of the round-trip tests: the values an event struct held
 * come back from a dump, field by field (by name, through bb_decode_field), and the dump's
 * schemas equal the program's descriptors. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_TEST_ROUNDTRIP_CHECK_H
#define BB_TEST_ROUNDTRIP_CHECK_H

#include <stdio.h>
#include <string.h>

#include "backbeat/reader.h"
#include "roundtrip_events.h"

extern int rt_failures;

#define RT_CHECK(cond, ...)                                      \
    do {                                                         \
        if (!(cond)) {                                           \
            rt_failures++;                                       \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fputc('\n', stderr);                                 \
        }                                                        \
    } while (0)

/* One event value of any round-trip type. */
typedef struct rt_value {
    const bb_event_desc *desc;
    union {
        rt_scalars scalars;
        rt_enums enums;
        rt_strings strings;
        rt_begin begin;
        rt_end end;
        rt_mark mark;
    } u;
} rt_value;

/* Schema `s` read back equals descriptor `d` in every attribute. */
void rt_check_schema(const bb_rschema *s, const bb_event_desc *d);
/* Record `rec` (resolved through `inst`) carries exactly `want`. */
void rt_check_record(const bb_record *rec, const bb_rinstance *inst, const rt_value *want);
/* The intern table the records refer to: rt_intern_id[i] stands for rt_intern_text[i]
 * (defaults 1..4; a test whose ids are assigned elsewhere overwrites them). */
extern const char *const rt_intern_text[4];
extern uint32_t rt_intern_id[4];
/* The descriptors of roundtrip_events.h, in definition order. */
extern bb_event_desc *const rt_descs[7];

#endif /* BB_TEST_ROUNDTRIP_CHECK_H */
