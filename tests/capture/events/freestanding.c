/* Freestanding compile check: event.h and the headers it includes need nothing but the
 * compiler's own freestanding headers (ctest compiles this with -ffreestanding -nostdinc and
 * only the compiler's include directory), warning-free. */
/* SPDX-License-Identifier: MIT */
#include "backbeat/event.h"

BB_ENUM(fs_state, uint32_t, (FS_IDLE, 0, "idle"), (FS_BUSY, 1, "busy"),
        (FS_HUGE, 4000000000u, "huge"));
BB_EVENT(fs_event, "freestanding", "Event", "Built without a hosted library.",
         BB_KEY(uint64_t, id, NULL), BB_ENUM_F(fs_state, state, NULL), BB_INTERN_F(name, NULL),
         BB_FIELD(bool, ok, NULL), BB_FIELD(uint8_t[7], raw, NULL));
BB_SPAN_ENTER_EVENT(fs_enter, "freestanding", "Enter", NULL, BB_SPAN_ID(uint64_t, span, NULL));
BB_EVENT(fs_marker, "freestanding", "Marker", NULL);
BB_VIEWS(fs_views, "CREATE VIEW fs AS SELECT 1;");

uint64_t fs_id(void);
uint64_t fs_id(void) { return bb_event_id(BB_DESC(fs_event)) + BB_RECORD_SIZE(fs_marker); }
