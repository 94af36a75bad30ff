/* lazy_count.c — counts the bbtest::Mark records of a dump for lazy_test.c, with the reader. */
#include <stdio.h>
#include <string.h>

#include <backbeat/reader.h>

uint64_t lz_count_marks(const char *path);

static int count_cb(const bb_record *r, void *ctx) {
    if (r->schema->name.len == 12 && !memcmp(r->schema->name.ptr, "bbtest::Mark", 12))
        ++*(uint64_t *)ctx;
    return 0;
}

/* Number of Mark records in the dump at `path` (UINT64_MAX when it cannot be read). */
uint64_t lz_count_marks(const char *path) {
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
