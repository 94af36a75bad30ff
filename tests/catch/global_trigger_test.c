/* global_trigger_test.c — BACKBEAT_TRIGGER on the global recorder, end to end: two threads serve
 * 10 000 requests each, one of which takes 400 ms; the rule `span gt::kv::RequestBegin > 300ms`
 * with BACKBEAT_TRIGGER_AFTER=300ms must write exactly one dump, read back with the reader:
 * the slow span's enter and exit, records from before it and from the after-window, and the
 * backbeat::Trigger record naming the rule. A bad rule is reported and left out. */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backbeat/backbeat.h"
#include "backbeat/reader.h"
#include "backbeat/trigger.h"
#include "check.h"

BB_SPAN_ENTER_EVENT(req_begin, "gt::kv", "RequestBegin", NULL, BB_SPAN_ID(uint64_t, span, NULL));
BB_SPAN_EXIT_EVENT(req_end, "gt::kv", "RequestEnd", NULL, BB_SPAN_ID(uint64_t, span, NULL));
BB_EVENT(tick, "gt::other", "Tick", NULL, BB_FIELD(uint64_t, n, NULL));

static uint64_t g_slow;

static void *worker(void *arg) {
    intptr_t id = (intptr_t)arg;
    for (int i = 0; i < 10000; i++) {
        uint64_t sid = BB_SPAN_ENTER(bb_global(), req_begin, 0);
        if (id == 1 && i == 5000) {
            g_slow = sid;
            struct timespec d = {0, 400000000};
            nanosleep(&d, NULL);
        }
        BB_SPAN_EXIT(bb_global(), req_end, sid);
    }
    return NULL;
}

typedef struct found {
    int enter, exit, trig, before, after;
    uint64_t enter_ts, exit_ts, trig_after;
    char rule[128];
    const bb_rinstance *inst;
} found;

static int on_record(const bb_record *r, void *ctx) {
    found *f = ctx;
    const char *name = r->schema->name.ptr;
    size_t len = r->schema->name.len;
    uint64_t v = 0;
    if (r->schema->record_size >= 8) memcpy(&v, r->fields, 8);
    if (!strncmp(name, "gt::kv::RequestBegin", len) && v == g_slow) f->enter++, f->enter_ts = r->ts;
    else if (!strncmp(name, "gt::kv::RequestEnd", len) && v == g_slow)
        f->exit++, f->exit_ts = r->ts;
    else if (!strncmp(name, "backbeat::Trigger", len)) {
        f->trig++;
        memcpy(&f->trig_after, r->fields + 16, 8);
        uint32_t rid;
        memcpy(&rid, r->fields + 32, 4);
        bb_strview s;
        if (bb_rinstance_intern(f->inst, rid, &s))
            snprintf(f->rule, sizeof f->rule, "%.*s", (int)s.len, s.ptr);
    }
    return 0;
}

static int on_record2(const bb_record *r, void *ctx) {
    found *f = ctx;
    if (r->ts < f->enter_ts) f->before++;
    if (r->ts > f->exit_ts) f->after++;
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
    CHECK(f.enter == 1 && f.exit == 1, "the slow span's enter (%d) and exit (%d)", f.enter, f.exit);
    CHECK(f.exit_ts - f.enter_ts >= 400000000u, "it lasted 400 ms");
    CHECK(f.trig == 1 && !strcmp(f.rule, "span gt::kv::RequestBegin > 300ms"),
          "one backbeat::Trigger (%d) naming the rule ('%s')", f.trig, f.rule);
    CHECK(f.trig_after == 300000000u, "the after-window in the record");
    CHECK(f.before > 0 && f.after > 0, "records before (%d) and after (%d) the span", f.before,
          f.after);
    bb_dump_close(d);
}

int main(void) {
    char dir[] = "/tmp/bb_gtrig_XXXXXX";
    if (!mkdtemp(dir)) return 77;
    char path[256];
    snprintf(path, sizeof path, "%s/app.bb", dir);
    setenv("BACKBEAT_ENABLE", "1", 1);
    setenv("BACKBEAT_PATH", path, 1);
    setenv("BACKBEAT_BYTES", "4M", 1);
    setenv("BACKBEAT_TRIGGER",
           "span gt::kv::RequestBegin > 300ms; gt::kv::RequestEnd nope == 1; span gt::kv::X > 5q",
           1);
    setenv("BACKBEAT_TRIGGER_AFTER", "300ms", 1);
    char errpath[256];
    snprintf(errpath, sizeof errpath, "%s.stderr", dir);
    fflush(stderr);
    int saved = dup(2);
    if (!freopen(errpath, "w", stderr)) return 77;
    pthread_t th[2];
    for (intptr_t k = 0; k < 2; k++) pthread_create(&th[k], NULL, worker, (void *)k);
    for (int k = 0; k < 2; k++) pthread_join(th[k], NULL);
    for (int i = 0; i < 20; i++) BB_GRECORD(tick, .n = (uint64_t)i); /* after the window, too */
    bb_trigger_stats st = {0};
    for (int i = 0; i < 1000 && !st.fired; i++) { /* fired at the exit, 400 ms in */
        struct timespec d = {0, 10000000};
        nanosleep(&d, NULL);
        bb_recorder_trigger_stats(bb_global(), &st);
    }
    bb_global_disable(); /* the dump (300 ms after) is written by the trigger thread */
    struct timespec d = {1, 0};
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
    CHECK(strstr(msgs, "BACKBEAT_TRIGGER: rule 'gt::kv::RequestEnd nope == 1': column 55: event "
                       "'gt::kv::RequestEnd' has no field 'nope'; the program runs on without it"),
          "the bad field rule reported");
    CHECK(strstr(msgs, "BACKBEAT_TRIGGER: rule 'span gt::kv::X > 5q': column 83: bad duration"),
          "the bad duration reported");
    CHECK(strstr(msgs, "trigger 'span gt::kv::RequestBegin > 300ms' fired on gt::kv::RequestBegin"),
          "the firing announced");
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
