/* log_trigger_test.c — the `log OP LEVEL` trigger rule on the global recorder (issues 39, 41):
 * with BACKBEAT_TRIGGER='log >= error' a program that logs 50 info lines and a warning, then
 * one error, then more info lines, gets exactly one dump, read back with the reader: the 50 info
 * lines before the error, the error line, and the backbeat::Trigger record naming the rule and
 * the error's call site. A bad level is reported naming the variable, the rule and the column,
 * and left out. */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backbeat/backbeat.h"
#include "backbeat/log.h"
#include "backbeat/reader.h"
#include "backbeat/trigger.h"
#include "check.h"

typedef struct found {
    int info_before, warn, error, trig;
    uint64_t error_ts;
    char rule[128], event[128], error_site[128];
    const bb_rinstance *inst;
} found;

static bool level_is(const bb_rschema *s, const char *level) {
    char want[64];
    snprintf(want, sizeof want, "backbeat-log 1\nlevel: %s\n", level);
    return s->has_description && s->description.len >= strlen(want) &&
           !memcmp(s->description.ptr, want, strlen(want));
}

static void intern(const found *f, const uint8_t *at, char *out, size_t cap) {
    uint32_t id;
    memcpy(&id, at, 4);
    bb_strview s;
    if (bb_rinstance_intern(f->inst, id, &s)) snprintf(out, cap, "%.*s", (int)s.len, s.ptr);
}

/* First pass: the error line and the trigger. */
static int on_record(const bb_record *r, void *ctx) {
    found *f = ctx;
    const bb_rschema *s = r->schema;
    if (level_is(s, "error")) {
        f->error++;
        f->error_ts = r->ts;
        snprintf(f->error_site, sizeof f->error_site, "%.*s", (int)s->name.len, s->name.ptr);
    } else if (level_is(s, "warn")) {
        f->warn++;
    } else if (s->name.len == 17 && !memcmp(s->name.ptr, "backbeat::Trigger", 17)) {
        f->trig++;
        intern(f, r->fields + 32, f->rule, sizeof f->rule);
        intern(f, r->fields + 36, f->event, sizeof f->event);
    }
    return 0;
}

/* Second pass: the info lines recorded before the error. */
static int on_record2(const bb_record *r, void *ctx) {
    found *f = ctx;
    if (level_is(r->schema, "info") && r->ts < f->error_ts) f->info_before++;
    return 0;
}

static void check_dump(const char *path) {
    bb_dump *d;
    bb_error err;
    if (bb_dump_open(path, &d, &err) != BB_OK) {
        CHECK(0, "open %s: %s", path, err.message);
        return;
    }
    found f = {0};
    f.inst = bb_dump_instance(d, 0);
    for (size_t i = 0; i < f.inst->shard_count; i++)
        bb_shard_walk(d, &f.inst->shards[i], on_record, &f, NULL);
    for (size_t i = 0; i < f.inst->shard_count; i++)
        bb_shard_walk(d, &f.inst->shards[i], on_record2, &f, NULL);
    CHECK(f.error == 1, "the error line, once (%d)", f.error);
    CHECK(f.warn == 1, "the warning line (%d)", f.warn);
    CHECK(f.info_before == 50, "the 50 info lines before the error (%d)", f.info_before);
    CHECK(f.trig == 1 && !strcmp(f.rule, "log >= error"),
          "one backbeat::Trigger (%d) naming the rule ('%s')", f.trig, f.rule);
    CHECK(!strcmp(f.event, f.error_site) && !strncmp(f.event, "backbeat.log::", 14),
          "the trigger names the error's call site ('%s', the site '%s')", f.event, f.error_site);
    bb_dump_close(d);
}

int main(void) {
    char dir[] = "/tmp/bb_logtrig_XXXXXX";
    if (!mkdtemp(dir)) return 77;
    char path[256];
    snprintf(path, sizeof path, "%s/app.bb", dir);
    setenv("BACKBEAT_ENABLE", "1", 1);
    setenv("BACKBEAT_PATH", path, 1);
    setenv("BACKBEAT_BYTES", "1M", 1);
    setenv("BACKBEAT_TRIGGER", "log >= error; log >= loud", 1);
    char errpath[256];
    snprintf(errpath, sizeof errpath, "%s.stderr", dir);
    fflush(stderr);
    int saved = dup(2);
    if (!freopen(errpath, "w", stderr)) return 77;
    for (int i = 0; i < 50; i++) BB_GLOG(BB_INFO, "request %d served", i);
    BB_GLOG(BB_WARN, "queue at %d%%", 90);
    BB_GLOG(BB_ERROR, "request %d failed: %s", 50, "timeout");
    for (int i = 51; i < 60; i++) BB_GLOG(BB_INFO, "request %d served", i);
    bb_trigger_stats st = {0};
    for (int i = 0; i < 500 && !st.fired; i++) {
        struct timespec d = {0, 10000000};
        nanosleep(&d, NULL);
        bb_recorder_trigger_stats(bb_global(), &st);
    }
    bb_global_disable();
    struct timespec d = {0, 300000000};
    nanosleep(&d, NULL);
    fflush(stderr);
    dup2(saved, 2);
    char msgs[4096] = "";
    FILE *ef = fopen(errpath, "r");
    size_t got = ef ? fread(msgs, 1, sizeof msgs - 1, ef) : 0;
    msgs[got] = '\0';
    if (ef) fclose(ef);
    unlink(errpath);
    fprintf(stdout, "%s", msgs);
    CHECK(st.fired == 1, "fired once (%llu)", (unsigned long long)st.fired);
    CHECK(strstr(msgs, "BACKBEAT_TRIGGER: rule 'log >= loud': column 22: bad log level"),
          "the bad level reported");
    DIR *dh = opendir(dir);
    int n = 0;
    for (struct dirent *e; dh && (e = readdir(dh));) {
        if (e->d_name[0] == '.') continue;
        n++;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        check_dump(p);
        unlink(p);
    }
    if (dh) closedir(dh);
    rmdir(dir);
    CHECK(n == 1, "exactly one dump, got %d", n);
    return failures ? 1 : 0;
}
