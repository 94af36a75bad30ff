/* count.c — the tool half of the consumer: opens a dump with the installed read library and
 * counts its records (every shard of every instance), and those of one event.
 * usage: count DUMP [EVENT-NAME]   prints "<records> <records of EVENT-NAME>" */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include <backbeat/reader.h>

struct tally {
    const char *name;
    unsigned long all, named;
};

static int on_record(const bb_record *r, void *ctx) {
    struct tally *t = ctx;
    t->all++;
    if (t->name && r->schema && r->schema->name.len == strlen(t->name) &&
        !memcmp(r->schema->name.ptr, t->name, r->schema->name.len))
        t->named++;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DUMP [EVENT-NAME]\n", argv[0]);
        return 2;
    }
    bb_dump *d;
    bb_error err;
    if (bb_dump_open(argv[1], &d, &err) != BB_OK) {
        fprintf(stderr, "count: %s\n", err.message);
        return 1;
    }
    struct tally t = {argc > 2 ? argv[2] : NULL, 0, 0};
    for (size_t i = 0; i < bb_dump_instance_count(d); i++) {
        const bb_rinstance *inst = bb_dump_instance(d, i);
        for (size_t s = 0; s < inst->shard_count; s++)
            bb_shard_walk(d, &inst->shards[s], on_record, &t, NULL);
    }
    bb_dump_close(d);
    printf("%lu %lu\n", t.all, t.named);
    return 0;
}
