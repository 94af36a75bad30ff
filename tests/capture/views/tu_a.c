/* tu_a.c — one of the three files of the views_dedup test that include shared_views.h. */
/* SPDX-License-Identifier: MIT */
#include "shared_views.h"

bb_view_desc *views_tu_a(void) { return &bb__views_shared_views; }
