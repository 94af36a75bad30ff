/* Control for the compile-fail tests: correct files in the same setting compile cleanly,
 * including a record of exactly BB_MAX_RECORD_SIZE bytes and an enum field named after its
 * type. */
#include "backbeat/event.h"
BB_ENUM(ok_kind, int16_t, (OK_NEG, -1, "neg"), (OK_POS, 1, "pos"));
BB_SPAN_EXIT_EVENT(ok_exit, "fail", "Ok", NULL,
                   BB_SPAN_ID(uint64_t, span, NULL),
                   BB_FIELD(uint8_t[6], blob, NULL, BB_UNIT("B")),
                   BB_ENUM_F(ok_kind, ok_kind, NULL, BB_SENTINEL(OK_NEG)));
BB_EVENT(ok_max, "fail", "Max", NULL, BB_FIELD(uint8_t[65519], blob, NULL));
