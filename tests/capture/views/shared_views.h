/* shared_views.h — a BB_VIEWS in a header that the three files of the views_dedup test include.
 * Each includes it, so each registers its own copy; every file can hand its copy out. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_TEST_SHARED_VIEWS_H
#define BB_TEST_SHARED_VIEWS_H
#include "backbeat/event.h"

#define SHARED_SQL "CREATE VIEW shared_v AS SELECT 1 AS one;"
BB_VIEWS(shared_views, SHARED_SQL);
BB_EVENT(shared_tick, "views_dedup", "Tick", NULL, BB_FIELD(uint64_t, n, NULL));

bb_view_desc *views_tu_a(void);
bb_view_desc *views_tu_b(void);
#endif
