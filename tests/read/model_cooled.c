/* model_cooled.c — a dump taken for one larger than the memory (bb__model_cache_set_memory):
 * the walk marks each ring cold above the part the merge reads first and the merge marks cold
 * what it left behind (src/read/model_cache.c), and neither changes a record. The same dump is
 * merged with the machine's memory (nothing advised) and with 16 MiB (each ring keeps 2 MiB),
 * walked on 1 and 2 threads, through the plain and the transient iterator: the same records, in
 * the same order, with the same fields; and the advice was given: the mapping's pages that
 * /proc/self/smaps counts as referenced fall below half of those resident, after the walk and
 * after the merge, where the plain merge referenced them all. The dump comes from pq_gendump
 * (BB_GENDUMP; exits 77 without it): 1.6 M records in 4 rings of 32 MiB.
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backbeat/model.h"
#include "backbeat/reader.h"
#include "read/model_cache.h"
#include "read/model_priv.h"
#include "read/model_transient.h"

#define MIB ((uint64_t)1 << 20)

static int fails;

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "model_cooled: %s\n", what);
        fails++;
    }
}

typedef struct pass {
    uint64_t hash, count;
} pass;

/* An order-sensitive hash of every record the model hands out: key, event and decoded fields. */
static pass merge_all(const bb_model *m, int transient) {
    pass p = {1469598103934665603ull, 0};
    bb_model_iter *it = NULL;
    if (bb_model_iter_new(m, &it) != BB_OK) return p;
    if (transient) bb__model_iter_transient(it);
    bb_mrecord r;
    while (bb_model_next(it, &r)) {
        p.hash = (p.hash ^ r.rec.ts) * 1099511628211ull;
        p.hash = (p.hash ^ (r.rec.event_id + r.rec.shard_id + r.rec.offset)) * 1099511628211ull;
        for (size_t f = 0; f < r.rec.schema->field_count; f++) {
            bb_value v = bb_decode_field(r.rec.schema, f, r.rec.fields, r.instance);
            p.hash =
                (p.hash ^ (v.u + (uint64_t)v.i + v.str.len + (uint64_t)v.kind)) * 1099511628211ull;
        }
        p.count++;
    }
    bb_model_iter_free(it);
    return p;
}

/* Rss and Referenced kB of the mapping of `path` (/proc/self/smaps; -1 without): pages marked
 * cold lose their referenced bit, and the walk and the merge reference every page they read. */
static void referenced(const char *path, long *rss, long *ref) {
    *rss = *ref = -1;
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[4352];
    int in = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strchr(line, '-') && strchr(line, ' ') && strstr(line, " r"))
            in = strstr(line, path) != NULL;
        if (in && sscanf(line, "Rss: %ld", rss) == 1) continue;
        if (in && sscanf(line, "Referenced: %ld", ref) == 1) in = 0;
    }
    if (f) fclose(f);
}

/* Open the model on `threads` walkers; every ring's `keep` must be `keep`. */
static bb_model *open_model(bb_dump *d, unsigned threads, uint64_t keep) {
    bb_model *m = NULL;
    bb_error e;
    if (bb_model_open_threads(&d, 1, false, threads, &m, &e) != BB_OK) {
        check(0, "model open");
        return NULL;
    }
    int same = m->nshards == 4;
    for (size_t i = 0; i < m->nshards; i++) same &= m->shards[i].keep == keep;
    check(same, keep ? "every ring keeps 2 MiB at 16 MiB of memory" : "nothing advised");
    return m;
}

int main(void) {
    const char *gen = getenv("BB_GENDUMP");
    if (!gen || access(gen, X_OK) != 0) {
        printf("model_cooled: skipped (BB_GENDUMP not set)\n");
        return 77;
    }
    char dir[] = "/tmp/bb_model_cooled_XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char path[64], cmd[4200];
    snprintf(path, sizeof path, "%s/c.bb", dir);
    snprintf(cmd, sizeof cmd, "'%s' '%s' 1600000 4 > /dev/null", gen, path);
    if (system(cmd) != 0) {
        fprintf(stderr, "model_cooled: %s failed\n", gen);
        return 1;
    }
    bb_dump *d = NULL;
    bb_error e;
    if (bb_dump_open(path, &d, &e) != BB_OK) {
        fprintf(stderr, "model_cooled: cannot open %s\n", path);
        return 1;
    }
    bb_model *m = open_model(d, 1, 0);
    long rss, plain_ref, rf;
    referenced(path, &rss, &plain_ref);
    pass ref = m ? merge_all(m, 0) : (pass){0, 0};
    check(ref.count == 1600000, "every record of the plain merge");
    bb_model_close(m);
    bb__model_cache_set_memory(16 * MIB);
    for (unsigned threads = 1; threads <= 2; threads++) {
        m = open_model(d, threads, 2 * MIB);
        referenced(path, &rss, &rf);
        check(rss <= 0 || (rf < rss / 2 && rf < plain_ref), "the walk marked the rings cold");
        for (int transient = 0; m && transient <= 1; transient++) {
            pass p = merge_all(m, transient);
            referenced(path, &rss, &rf);
            check(rss <= 0 || rf < rss / 2, "the merge marked what it left behind cold");
            check(p.count == ref.count && p.hash == ref.hash, "cooled merge differs");
        }
        bb_model_close(m);
    }
    bb__model_cache_set_memory(0);
    bb_dump_close(d);
    unlink(path);
    rmdir(dir);
    if (fails) return 1;
    printf("model_cooled: ok (%llu records, cooled and not)\n", (unsigned long long)ref.count);
    return 0;
}
