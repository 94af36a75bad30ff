/* ring_api_test.c — the contract of bb_recorder_create_ring and bb_recorder_ring_path
 * (recorder.h): the file's name and size, errors as values with a message naming the file, no
 * file left behind on failure, removal at bb_recorder_free unless kept, NULL path for an
 * anonymous recorder; and that dumps of a file-backed recorder are ordinary dumps. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../support/check.h"
#include "backbeat/backbeat.h"
#include "backbeat/reader.h"

BB_EVENT(api_ev, "ring_api", "Ev", NULL, BB_FIELD(uint64_t, n, NULL));

static bb_recorder_options opts(void) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 2;
    o.bytes_per_shard = 4096;
    o.instance_id = 0xABCDEF0123456789ull;
    return o;
}

/* Errors: no directory, a missing directory (BB_ERR_IO naming the file), invalid options. */
static void errors(void) {
    bb_recorder_options o = opts();
    bb_recorder *rec = (bb_recorder *)&o; /* must be reset to NULL */
    bb_error err;
    CHECK(bb_recorder_create_ring(&o, NULL, false, &rec, &err) == BB_ERR_INVALID && !rec, "no dir");
    CHECK(bb_recorder_create_ring(&o, "/nonexistent/ring-dir", false, &rec, &err) == BB_ERR_IO &&
              !rec,
          "missing dir");
    CHECK(strstr(err.message, "/nonexistent/ring-dir/backbeat.") && strstr(err.message, ".ring"),
          "message names the file: %s", err.message);
    o.shards = 5000;
    CHECK(bb_recorder_create_ring(&o, "/tmp", false, &rec, &err) == BB_ERR_INVALID && !rec,
          "invalid options");
    CHECK(bb_recorder_create_ring(&o, "/tmp", false, &rec, NULL) == BB_ERR_INVALID,
          "err may be NULL");
    bb_recorder *anon = bb_recorder_new(1, 4096);
    CHECK(anon && bb_recorder_ring_path(anon) == NULL, "anonymous recorder has no ring file");
    bb_recorder_free(anon);
    CHECK(bb_recorder_ring_path(NULL) == NULL, "NULL recorder");
}

/* The file: its name, its size, a live dump of it, removal at free unless kept. */
static void lifecycle(const char *dir, bool keep) {
    bb_recorder_options o = opts();
    bb_recorder *rec = NULL;
    bb_error err;
    CHECK(bb_recorder_create_ring(&o, dir, keep, &rec, &err) == BB_OK, "%s", err.message);
    if (!rec) return;
    char want[512], path[512];
    snprintf(want, sizeof want, "%s/backbeat.%ld.abcdef0123456789.ring", dir, (long)getpid());
    snprintf(path, sizeof path, "%s", bb_recorder_ring_path(rec));
    CHECK(!strcmp(path, want), "path %s", path);
    struct stat sb;
    CHECK(stat(path, &sb) == 0 && sb.st_size > 2 * 4096 && (sb.st_mode & 0777) == 0600,
          "size %lld mode %o", (long long)sb.st_size, (unsigned)(sb.st_mode & 0777));
    CHECK(sb.st_blocks * 512 >= sb.st_size, "the whole size is reserved on disk");
    bb_recorder_enable(rec, true);
    for (uint64_t n = 0; n < 50; n++) BB_RECORD(rec, api_ev, .n = n);
    void *buf = NULL;
    size_t len = 0;
    CHECK(bb_recorder_dump_buffer(rec, &buf, &len, &err) == BB_OK, "%s", err.message);
    bb_dump *d = NULL;
    CHECK(buf && bb_dump_open_memory(buf, len, "live.bb", &d, NULL) == BB_OK, "live dump opens");
    if (d) {
        const bb_rinstance *in = bb_dump_find_instance(d, o.instance_id);
        uint64_t records = 0;
        for (size_t s = 0; in && s < in->shard_count; s++) {
            bb_walk_stats st = {0, 0};
            bb_shard_walk(d, &in->shards[s], NULL, NULL, &st);
            records += st.records;
        }
        CHECK(records == 50, "%llu records in the live dump", (unsigned long long)records);
        bb_dump_close(d);
    }
    free(buf);
    bb_recorder_free(rec);
    CHECK((access(path, F_OK) == 0) == keep, "after free: %s %s", path, keep ? "kept" : "removed");
    unlink(path);
}

int main(void) {
    char dir[] = "/tmp/bb_ring_api.XXXXXX";
    if (!mkdtemp(dir)) return 1;
    errors();
    lifecycle(dir, false);
    lifecycle(dir, true);
    rmdir(dir);
    return failures ? 1 : 0;
}
