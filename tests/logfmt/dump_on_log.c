/* dump_on_log.c — BACKBEAT_DUMP_ON_LOG=error: a BB_GLOG line below error writes no dump, one at
 * error writes one, and that dump holds the line. */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backbeat/log.h"
#include "check.h"
#include "logfmt/logfmt.h"

/* The first dump file in dir, or "" (name into out). */
static bool find_dump(const char *dir, char *out, size_t cap) {
    DIR *d = opendir(dir);
    struct dirent *e;
    bool found = false;
    while (d && (e = readdir(d)) && !found)
        if (strlen(e->d_name) > 3 && !strcmp(e->d_name + strlen(e->d_name) - 3, ".bb"))
            found = snprintf(out, cap, "%s/%s", dir, e->d_name) > 0;
    if (d) closedir(d);
    return found;
}

int main(void) {
    char dir[] = "/tmp/bb_dump_on_log.XXXXXX", path[512], dump[600];
    if (!mkdtemp(dir)) return 1;
    snprintf(path, sizeof path, "%s/log.bb", dir);
    setenv("BACKBEAT_ENABLE", "1", 1);
    setenv("BACKBEAT_PATH", path, 1);
    setenv("BACKBEAT_DUMP_ON_LOG", "error", 1);
    BB_GLOG(BB_WARN, "a warning: %d", 1);
    usleep(300 * 1000);
    CHECK(!find_dump(dir, dump, sizeof dump), "a warning wrote a dump: %s", dump);
    BB_GLOG(BB_ERROR, "the error: %s", "disk on fire");
    bool found = false;
    for (int i = 0; i < 500 && !found; i++) {
        found = find_dump(dir, dump, sizeof dump);
        if (!found) usleep(10 * 1000);
    }
    CHECK(found, "no dump after an error line");
    usleep(100 * 1000); /* published by a link: complete once it is there */
    bb_dump *d = NULL;
    bb_error err;
    int seen = 0;
    bb_status st = found ? bb_dump_open(dump, &d, &err) : BB_ERR_IO;
    CHECK(!found || st == BB_OK, "%s", err.message);
    if (st == BB_OK) {
        for (size_t i = 0; i < bb_dump_schema_count(d); i++) {
            lf_site s;
            if (lf_site_parse(bb_dump_schema(d, i), &s) && s.level == BB_ERROR) seen++;
        }
        bb_dump_close(d);
    }
    CHECK(seen == 1, "the error line's site is in the dump %d times", seen);
    if (found && !getenv("KEEP")) unlink(dump);
    rmdir(dir);
    return failures ? 1 : 0;
}
