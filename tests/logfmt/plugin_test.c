/* plugin_test.c — log call sites in a dlopen'ed plugin register with it, and their records still
 * read as log lines after dlclose (the registry keeps the schema, a BB_E argument's labels too);
 * the program's own sites too. */
/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/log.h"
#include "check.h"
#include "lines.h"

int main(void) {
    bb_recorder *rec = bb_recorder_new(1, 1 << 20);
    bb_recorder_enable(rec, true);
    BB_LOG(rec, BB_INFO, "before the plugin");
    void *h = dlopen(BB_LOG_PLUGIN_PATH, RTLD_NOW);
    CHECK(h != NULL, "dlopen: %s", dlerror());
    if (!h) return 1;
    void (*fn)(bb_recorder *, int);
    void *sym = dlsym(h, "plugin_log");
    memcpy(&fn, &sym, sizeof fn); /* ISO C has no object-to-function pointer cast */
    CHECK(sym != NULL, "dlsym");
    if (sym) fn(rec, 7), fn(rec, 8);
    sym = dlsym(h, "plugin_log_mode");
    CHECK(sym != NULL, "dlsym mode");
    memcpy(&fn, &sym, sizeof fn);
    if (sym) fn(rec, 1);
    dlclose(h);
    BB_LOG(rec, BB_INFO, "after the plugin");
    size_t n = 0, others = 0;
    test_line *l = test_log_lines(rec, &n, &others);
    CHECK(n == 5 && others == 0, "%zu lines, %zu others", n, others);
    if (n == 5) {
        CHECK(!strcmp(l[3].msg, "plugin mode fast"), "%s", l[3].msg);
        l[3] = l[4];
        CHECK(!strcmp(l[0].msg, "before the plugin"), "%s", l[0].msg);
        CHECK(!strcmp(l[1].msg, "from the plugin: 7 (plugin)"), "%s", l[1].msg);
        CHECK(!strcmp(l[2].msg, "from the plugin: 8 (plugin)"), "%s", l[2].msg);
        CHECK(l[1].level == BB_WARN && strstr(l[1].file, "plugin.c") && l[1].line == 9, "%d %s:%u",
              l[1].level, l[1].file, l[1].line);
        CHECK(!strcmp(l[1].function, "plugin_log"), "%s", l[1].function);
        CHECK(!strcmp(l[3].msg, "after the plugin"), "%s", l[3].msg);
    }
    free(l);
    bb_recorder_free(rec);
    return failures ? 1 : 0;
}
