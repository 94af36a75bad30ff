/* abi_refuse.c — the layout check (src/capture/abi.c, include/backbeat/detail/abi.h): a plugin
 * built with another layout tag is refused with one message on stderr naming it, its events and
 * views never enter the registry or a dump, its records (inline and function form) never reach
 * the recorder, and the host goes on recording its own events around it. */
/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backbeat/backbeat.h"
#include "backbeat/reader.h"

#include "check.h"

BB_EVENT(host_ev, "host", "Event", NULL, BB_FIELD(uint32_t, n, NULL));

struct foreign_api {
    int (*record)(bb_recorder *rec, int n);
};

/* Records of each kind in a dump: host events, foreign ones, and records with no schema. */
struct tally {
    int host, foreign, other;
};

static bool named(const bb_rschema *s, const char *name) {
    return s->name.len == strlen(name) && memcmp(s->name.ptr, name, s->name.len) == 0;
}

static int count(const bb_record *r, void *ctx) {
    struct tally *t = ctx;
    if (named(r->schema, "host::Event")) t->host++;
    else if (named(r->schema, "foreign::Event")) t->foreign++;
    else t->other++;
    return 0;
}

/* Load the plugin with stderr sent to `log`; returns its handle. */
static void *load_plugin(const char *log) {
    fflush(stderr);
    int saved = dup(2), fd = open(log, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    dup2(fd, 2);
    void *h = dlopen(BB_FOREIGN_PLUGIN, RTLD_NOW);
    struct foreign_api *api = h ? dlsym(h, "foreign_api") : NULL;
    if (api) {
        CHECK(api->record(NULL, 1) == BB_ERR_INVALID, "NULL recorder");
    }
    dup2(saved, 2);
    close(fd);
    close(saved);
    return h;
}

static char *slurp(const char *path) {
    static char buf[4096];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = 0;
    return buf;
}

int main(void) {
    char log[] = "/tmp/bb_abi_refuse.XXXXXX";
    int lfd = mkstemp(log);
    CHECK(lfd >= 0, "mkstemp");
    close(lfd);

    bb_recorder *rec = bb_recorder_new(1, 1 << 16);
    CHECK(rec != NULL, "recorder");
    bb_recorder_enable(rec, true);
    BB_RECORD(rec, host_ev, .n = 1);

    void *h = load_plugin(log);
    CHECK(h != NULL, "dlopen %s: %s", BB_FOREIGN_PLUGIN, dlerror());
    struct foreign_api *api = h ? dlsym(h, "foreign_api") : NULL;
    CHECK(api != NULL, "dlsym");
    if (api) CHECK(api->record(rec, 100) == BB_ERR_INVALID, "function form refused");
    BB_RECORD(rec, host_ev, .n = 2);

    /* One message, naming the plugin and both layouts. */
    const char *msg = slurp(log);
    char head[64]; /* the library's prefix: "backbeat[PID]: YYYYMMDDThhmmssmmmZ " */
    int hl = snprintf(head, sizeof head, "backbeat[%ld]: ", (long)getpid());
    CHECK(strncmp(msg, head, (size_t)hl) == 0 && strlen(msg) > (size_t)hl + 20 &&
              msg[hl + 8] == 'T' && msg[hl + 18] == 'Z' &&
              strncmp(msg + hl + 19, " refusing the events of ", 24) == 0,
          "message: %s", msg);
    CHECK(strstr(msg, "foreign_plugin") != NULL, "names the plugin: %s", msg);
    CHECK(strstr(msg, "0x62629999") && strstr(msg, "0x62620003"), "both layouts: %s", msg);
    CHECK(strchr(msg, '\n') == msg + strlen(msg) - 1, "exactly one line: %s", msg);
    unlink(log);

    /* Registry and views: the host's only. */
    const bb_event_desc *snap[64];
    size_t n = bb_registry_snapshot(snap, 64);
    for (size_t i = 0; i < n && i < 64; i++)
        CHECK(strcmp(snap[i]->name, "foreign::Event") != 0, "foreign event registered");
    const bb_view_desc *views[16];
    CHECK(bb_views_snapshot(views, 16) == 0, "foreign view set registered");

    /* The dump: both host records, nothing else, no torn bytes. */
    void *buf = NULL;
    size_t len = 0;
    bb_error err;
    CHECK(bb_recorder_dump_buffer(rec, &buf, &len, &err) == BB_OK, "dump: %s", err.message);
    bb_dump *d = NULL;
    CHECK(bb_dump_open_memory(buf, len, "abi.bb", &d, &err) == BB_OK, "open: %s", err.message);
    struct tally t = {0, 0, 0};
    bb_walk_stats st = {0, 0};
    for (size_t i = 0; d && i < bb_dump_instance_count(d); i++) {
        const bb_rinstance *in = bb_dump_instance(d, i);
        for (size_t s = 0; s < in->shard_count; s++)
            bb_shard_walk(d, &in->shards[s], count, &t, &st);
    }
    CHECK(t.host == 2 && t.foreign == 0 && t.other == 0, "host %d foreign %d other %d", t.host,
          t.foreign, t.other);
    CHECK(d && bb_dump_find_schema(d, bb_event_id(BB_DESC(host_ev))) != NULL, "host schema");
    bb_dump_close(d);
    free(buf);
    if (h) dlclose(h);
    bb_recorder_free(rec);
    return failures ? 1 : 0;
}
