/* intern_limit_test.c — BACKBEAT_INTERN_LIMIT sizes the global recorder's intern table: with
 * "16,1k" the 17th distinct string is refused (counted in the stats), the full table is reported
 * once on stderr however many dumps follow (saying that a table this small is never recycled),
 * and the dump holds the table-full entry (id 0). */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backbeat/backbeat.h"
#include "backbeat/reader.h"
#include "check.h"

BB_EVENT(il_ev, "test::intern_limit", "Key", NULL, BB_INTERN_DYN_F(key, NULL));

int main(void) {
    char dir[] = "/tmp/bb_intern_limit.XXXXXX", path[600], err_path[600];
    if (!mkdtemp(dir)) return 1;
    snprintf(path, sizeof path, "%s/d.bb", dir);
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
    setenv("BACKBEAT_INTERN_LIMIT", "16,1k", 1);
    setenv("BACKBEAT_ENABLE", "1", 1);
    setenv("BACKBEAT_PATH", path, 1);
    fflush(stderr);
    int saved = dup(2);
    if (saved < 0 || !freopen(err_path, "w", stderr)) return 1;
    char b[32];
    for (int i = 0; i < 40; i++) {
        snprintf(b, sizeof b, "key-%d", i);
        BB_GRECORD(il_ev, .key = bb_intern_str(bb_global(), b));
    }
    bb_recorder_stats s;
    bb_recorder_stats_get(bb_global(), &s);
    char out[3][600];
    bb_error err;
    int dumps = 0;
    for (int k = 0; k < 3; k++) dumps += bb_global_dump(out[k], sizeof out[k], &err) == BB_OK;
    fflush(stderr);
    FILE *f = fopen(err_path, "r");
    char line[512];
    int full_lines = 0, advice = 0;
    while (f && fgets(line, sizeof line, f)) {
        full_lines += strstr(line, "intern table is full") != NULL;
        /* "16,1k" is too small for generations: the advice says so, not just "raise" */
        advice += strstr(line, "is never recycled: raise BACKBEAT_INTERN_LIMIT to at least "
                               "2048,256k") != NULL;
    }
    if (f) fclose(f);
    bb_dump *d = NULL;
    bool has_full = false;
    if (dumps && bb_dump_open(out[0], &d, &err) == BB_OK) {
        const bb_rinstance *in = bb_dump_instance(d, 0);
        has_full = in && in->intern_count == 17 && in->intern[0].id == 0;
        bb_dump_close(d);
    }
    for (int k = 0; k < dumps; k++) unlink(out[k]);
    unlink(err_path);
    rmdir(dir);
    fflush(stderr);
    dup2(saved, 2);
    CHECK(s.intern_count == 16 && s.intern_full == 24, "stats %llu strings, %llu refused",
          (unsigned long long)s.intern_count, (unsigned long long)s.intern_full);
    CHECK(dumps == 3, "%d dumps written", dumps);
    CHECK(full_lines == 1, "the full table reported %d times on stderr", full_lines);
    CHECK(advice == 1, "the report does not say why a larger table helps");
    CHECK(has_full, "the dump lacks the table-full entry or holds another count");
    if (failures) printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
