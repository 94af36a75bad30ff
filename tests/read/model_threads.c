/* model_threads.c — several iterators over one model (and walks over one dump) at once from
 * different threads: the model and dumps are read-only after open, so each thread must see the
 * same sequence as a single-threaded run; the model itself is opened with its rings walked on
 * several threads (bb_model_open_threads). Labelled concurrent (runs under ThreadSanitizer).
 * Exits 77 when the golden vectors are absent.
 */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backbeat/model.h"
#include "backbeat/reader.h"

enum { THREADS = 4, ROUNDS = 20 };

typedef struct job {
    const bb_model *m;
    bb_dump *d;
    uint64_t sum;
    uint64_t count;
} job;

static int add_ts(const bb_record *r, void *p) {
    *(uint64_t *)p += r->ts;
    return 0;
}

/* A checksum of the merged stream: order-sensitive over ts, event id, and decoded fields. */
static void *run(void *p) {
    job *j = p;
    for (int round = 0; round < ROUNDS; round++) {
        bb_model_iter *it = NULL;
        if (bb_model_iter_new(j->m, &it) != BB_OK) return NULL;
        bb_mrecord r;
        uint64_t h = 1469598103934665603ull, n = 0;
        while (bb_model_next(it, &r)) {
            h = (h ^ r.rec.ts) * 1099511628211ull;
            h = (h ^ r.rec.event_id) * 1099511628211ull;
            for (size_t f = 0; f < r.rec.schema->field_count; f++) {
                bb_value v = bb_decode_field(r.rec.schema, f, r.rec.fields, r.instance);
                h = (h ^ (v.u + (uint64_t)v.i + v.str.len + (uint64_t)v.kind)) * 1099511628211ull;
            }
            n++;
        }
        bb_model_iter_free(it);
        uint64_t walk = 0;
        const bb_rinstance *in = bb_dump_instance(j->d, 0);
        for (size_t s = 0; s < in->shard_count; s++)
            bb_shard_walk(j->d, &in->shards[s], add_ts, &walk, NULL);
        h ^= walk;
        if (round == 0) {
            j->sum = h;
            j->count = n;
        } else if (h != j->sum || n != j->count) {
            j->count = UINT64_MAX; /* inconsistent */
        }
    }
    return NULL;
}

int main(void) {
    const char *dir = getenv("BACKBEAT_COMPAT_DIR");
    if (!dir || !*dir) dir = "/work/shared/compat";
    static const char *const files[] = {"multi_a.bb", "multi_b.bb", "multi_other.bb"};
    bb_dump *d[3] = {0};
    for (int i = 0; i < 3; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        if (access(path, R_OK) != 0) {
            fprintf(stderr, "golden vectors absent: skipped\n");
            return 77;
        }
        bb_error err;
        if (bb_dump_open(path, &d[i], &err) != BB_OK) {
            fprintf(stderr, "FAIL open: %s\n", err.message);
            return 1;
        }
    }
    bb_model *m = NULL;
    bb_error err;
    if (bb_model_open_threads(d, 3, true, THREADS, &m, &err) != BB_OK) { /* rings walked at once */
        fprintf(stderr, "FAIL model: %s\n", err.message);
        return 1;
    }
    job ref = {m, d[1], 0, 0};
    run(&ref);
    job jobs[THREADS];
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (job){m, d[1], 0, 0};
        pthread_create(&th[i], NULL, run, &jobs[i]);
    }
    int failures = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
        if (jobs[i].sum != ref.sum || jobs[i].count != ref.count) {
            fprintf(stderr, "FAIL thread %d saw a different stream\n", i);
            failures++;
        }
    }
    if (ref.count != 50) {
        fprintf(stderr, "FAIL %llu records, want 50\n", (unsigned long long)ref.count);
        failures++;
    }
    if (!failures) printf("ok %d threads x %d rounds, identical streams\n", THREADS, ROUNDS);
    bb_model_close(m);
    for (int i = 0; i < 3; i++) bb_dump_close(d[i]);
    return failures ? 1 : 0;
}
