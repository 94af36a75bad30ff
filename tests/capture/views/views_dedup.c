/* views_dedup.c — BB_VIEWS in a header included by three translation units (this file, tu_a.c,
 * tu_b.c) registers three copies, yet the registry snapshot and a dump hold the set once; the
 * set stays listed until its last copy is removed (as when the objects holding them unload). */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "backbeat/backbeat.h"
#include "backbeat/reader.h"
#include "shared_views.h"

#include "check.h"

/* Snapshot entries whose SQL is SHARED_SQL. */
static int count_shared(void) {
    const bb_view_desc *v[64];
    size_t n = bb_views_snapshot(v, 64);
    int c = 0;
    for (size_t i = 0; i < n && i < 64; i++) c += strcmp(v[i]->sql, SHARED_SQL) == 0;
    return c;
}

/* View sets of a fresh dump whose text is SHARED_SQL (-1 if the dump fails). */
static int dump_count_shared(void) {
    bb_recorder *rec = bb_recorder_new(1, 1 << 16);
    void *buf = NULL;
    size_t len = 0;
    bb_error err;
    bb_dump *d = NULL;
    int c = -1;
    if (rec && bb_recorder_dump_buffer(rec, &buf, &len, &err) == BB_OK &&
        bb_dump_open_memory(buf, len, "views_dedup", &d, &err) == BB_OK) {
        c = 0;
        for (size_t i = 0; i < bb_dump_view_count(d); i++) {
            bb_strview s = bb_dump_view(d, i);
            c += s.len == strlen(SHARED_SQL) && memcmp(s.ptr, SHARED_SQL, s.len) == 0;
        }
        bb_dump_close(d);
    }
    free(buf);
    bb_recorder_free(rec);
    return c;
}

int main(void) {
    CHECK(views_tu_a() != views_tu_b() && views_tu_a() != &bb__views_shared_views,
          "each translation unit has its own copy");
    CHECK(count_shared() == 1, "snapshot lists the set %d times", count_shared());
    CHECK(dump_count_shared() == 1, "dump holds the set %d times", dump_count_shared());
    bb_views_remove(&bb__views_shared_views);
    bb_views_remove(views_tu_a());
    CHECK(count_shared() == 1, "one copy left: listed %d times", count_shared());
    CHECK(dump_count_shared() == 1, "one copy left: dump holds it %d times", dump_count_shared());
    bb_views_remove(views_tu_b());
    CHECK(count_shared() == 0, "all removed: listed %d times", count_shared());
    bb_views_add(views_tu_a());
    CHECK(count_shared() == 1, "added back: listed %d times", count_shared());
    return failures ? 1 : 0;
}
