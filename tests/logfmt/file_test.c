/* file_test.c — the file of a log call site as readers show it (docs/LOG_LINES.md "File names"):
 * an absolute __FILE__ (CMake's) by its base name, a relative one as it is without leading "./"
 * and "../"; the recorded path kept whole; the time/level/file:line prefix of lf_line. Each site
 * names its file with #line, as the compiler would for a file compiled under that name. Two
 * sites alike but for their directory, level and format stay two events (their names differ by
 * the site's hash, docs/LOG_LINES.md). */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "backbeat/log.h"
#include "check.h"
#include "lines.h"

static void sites(bb_recorder *r) {
    BB_LOG(r, BB_INFO, "this file %d", 0); /* absolute under CMake */
#line 100 "/home/dev/proj/src/net/conn.c"
    BB_LOG(r, BB_INFO, "absolute %d", 1);
#line 200 "src/net/conn.c"
    BB_LOG(r, BB_WARN, "relative %d", 2);
#line 300 "../../proj/lib/./io.c"
    BB_LOG(r, BB_ERROR, "dotted %d", 3);
#line 400 "./main.c"
    BB_LOG(r, BB_DEBUG, "dot %d", 4);
    /* Same base name, line and argument kinds, in two directories: two sites, two events. */
#line 500 "/srv/a/util.c"
    BB_LOG(r, BB_INFO, "first %d", 5);
#line 500 "/srv/b/util.c"
    BB_LOG(r, BB_ERROR, "second %d", 6);
}

int main(void) {
    bb_recorder *r = bb_recorder_new(1, 1 << 20);
    bb_recorder_enable(r, true);
    bb_log_level_set(BB_TRACE);
    sites(r);
    static const struct {
        const char *shown, *path;
        uint32_t line;
    } want[] = {{"file_test.c", NULL, 0},
                {"conn.c", "/home/dev/proj/src/net/conn.c", 100},
                {"src/net/conn.c", "src/net/conn.c", 200},
                {"proj/lib/./io.c", "../../proj/lib/./io.c", 300},
                {"main.c", "./main.c", 400},
                {"util.c", "/srv/a/util.c", 500},
                {"util.c", "/srv/b/util.c", 500}};
    static const struct {
        int level;
        const char *msg;
    } said[] = {{BB_INFO, "first 5"}, {BB_ERROR, "second 6"}};
    size_t n = 0;
    test_line *l = test_log_lines(r, &n, NULL);
    CHECK(n == 7, "%zu lines", n);
    for (size_t i = 0; l && i < n && i < 7; i++) {
        CHECK(!strcmp(l[i].file, want[i].shown), "line %zu shows %s, want %s", i, l[i].file,
              want[i].shown);
        if (want[i].path)
            CHECK(!strcmp(l[i].path, want[i].path) && l[i].line == want[i].line,
                  "line %zu recorded %s:%u", i, l[i].path, l[i].line);
        else CHECK(l[i].path[0] == '/' || strchr(l[i].path, '/') == NULL, "path %s", l[i].path);
        if (i >= 5)
            CHECK(l[i].level == said[i - 5].level && !strcmp(l[i].msg, said[i - 5].msg),
                  "line %zu: level %d \"%s\", want %d \"%s\"", i, l[i].level, l[i].msg,
                  said[i - 5].level, said[i - 5].msg);
    }
    /* lf_line: "<s>.<ns> <level padded to 5> <file>:<line> <message>" */
    char out[256];
    lf_site site = {BB_WARN,        200,      lf_file_shown((bb_strview){"./a/b.c", 7}),
                    {"./a/b.c", 7}, {"f", 1}, {"plain", 5}};
    bb_rschema schema;
    memset(&schema, 0, sizeof schema);
    bb_record rec;
    memset(&rec, 0, sizeof rec);
    rec.ts = 12000000007u;
    size_t len = lf_line(&site, &schema, &rec, NULL, "pid 7", out, sizeof out);
    const char *line = "12.000000007 pid 7 warn  a/b.c:200 plain";
    CHECK(len == strlen(line) && !strcmp(out, line), "lf_line \"%s\"", out);
    CHECK(lf_line(&site, &schema, &rec, NULL, NULL, out, 8) == 7 && !strcmp(out, "12.0000"),
          "bounded lf_line \"%s\"", out);
    free(l);
    bb_recorder_free(r);
    return failures ? 1 : 0;
}
