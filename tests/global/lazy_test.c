/* lazy_test.c — the global recorder built by racing first uses: threads released together all
 * get the same recorder, every record lands (BACKBEAT_ENABLE arms it before the first one is
 * taken), enable/disable work, and a synchronous dump holds exactly what was recorded. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>

#include <backbeat/event.h>
#include <backbeat/global.h>
#include <backbeat/reader.h>

#include "gtest_util.h"

BB_EVENT(lz_mark, "bbtest", "Mark", "One record of one thread.",
         BB_KEY(uint64_t, thread, "Thread number."),
         BB_FIELD(uint64_t, seq, "Sequence number within the thread."));

enum { THREADS = 8, PER_THREAD = 200 };

static pthread_barrier_t start;
static bb_recorder *seen[THREADS];

static void *worker(void *arg) {
    uint64_t t = (uint64_t)(uintptr_t)arg;
    pthread_barrier_wait(&start);
    for (uint64_t i = 0; i < PER_THREAD; i++) BB_GRECORD(lz_mark, .thread = t, .seq = i);
    seen[t] = bb_global();
    return NULL;
}

static int count_cb(const bb_record *r, void *ctx) {
    if (r->schema->name.len == 12 && !memcmp(r->schema->name.ptr, "bbtest::Mark", 12))
        ++*(uint64_t *)ctx;
    return 0;
}

/* Number of Mark records in the dump at `path` (UINT64_MAX when it cannot be read). */
static uint64_t count_marks(const char *path) {
    bb_dump *d;
    bb_error err;
    uint64_t n = 0;
    if (bb_dump_open(path, &d, &err) != BB_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return UINT64_MAX;
    }
    for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
        const bb_rinstance *inst = bb_dump_instance(d, i);
        for (size_t s = 0; s < inst->shard_count; s++)
            bb_shard_walk(d, &inst->shards[s], count_cb, &n, NULL);
    }
    bb_dump_close(d);
    return n;
}

int main(void) {
    char dir[1024], path[1200];
    gt_tmpdir(dir, sizeof dir, "lazy");
    snprintf(path, sizeof path, "BACKBEAT_PATH=%s/z.bb", dir);
    putenv(path);
    putenv("BACKBEAT_ENABLE=1");
    putenv("BACKBEAT_SHARDS=4");
    putenv("BACKBEAT_BYTES=1M");
    putenv("BACKBEAT_THROTTLE_MS=0");
    CHECK(bb__global_rec == NULL); /* nothing built it yet */

    pthread_barrier_init(&start, NULL, THREADS);
    pthread_t th[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++) pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    bb_recorder *g = bb_global();
    CHECK(g != NULL);
    for (int i = 0; i < THREADS; i++) CHECK(seen[i] == g);
    CHECK(bb_global_init() == BB_OK);
    CHECK(bb_global_enabled());
    CHECK(bb_recorder_shard_count(g) == 4);

    char name[2048];
    CHECK(bb_global_dump(name, sizeof name, NULL) == BB_OK);
    CHECK(count_marks(name) == (uint64_t)THREADS * PER_THREAD);

    /* disabled: nothing more is recorded */
    bb_global_disable();
    CHECK(!bb_global_enabled());
    BB_GRECORD(lz_mark, .thread = 99, .seq = 0);
    bb_global_enable();
    CHECK(bb_global_enabled());
    BB_GRECORD(lz_mark, .thread = 100, .seq = 0);
    CHECK(bb_global_dump(name, sizeof name, NULL) == BB_OK);
    CHECK(count_marks(name) == (uint64_t)THREADS * PER_THREAD + 1);

    /* a trigger from this thread reaches the dumper thread */
    bb_global_trigger();
    for (int i = 0; i < 3000 && gt_list(dir, "z.", ".bb", NULL, 0) < 3; i++) usleep(10000);
    CHECK(gt_list(dir, "z.", ".bb", NULL, 0) == 3);
    CHECK(bb_global_thread_init() == BB_OK);
    gt_rmdir(dir);
    return gt_done();
}
