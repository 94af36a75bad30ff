/* rec_util.c — see rec_util.h. */
/* SPDX-License-Identifier: MIT */
#include "rec_util.h"

#include <string.h>
#include <unistd.h>

int rec_failures;

/* The dump written to a file in `dir` by bb_recorder_dump_path (directly from the live rings
 * when no writer moves, else through the copies), read back into d->buf. */
static bb_status take_file(bb_recorder *rec, rec_dump *d, const char *dir, bb_error *err) {
    char path[4096];
    snprintf(path, sizeof path, "%s/rec_util_%ld.bb", dir, (long)getpid());
    bb_status st = bb_recorder_dump_path(rec, path, NULL, err);
    if (st != BB_OK) return st;
    FILE *f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0) exit(1);
    long n = ftell(f);
    d->buf = malloc(n > 0 ? (size_t)n : 1);
    rewind(f);
    if (n < 0 || !d->buf || fread(d->buf, 1, (size_t)n, f) != (size_t)n) exit(1);
    fclose(f);
    unlink(path);
    d->len = (size_t)n;
    return BB_OK;
}

void rec_dump_take(bb_recorder *rec, rec_dump *d) {
    memset(d, 0, sizeof *d);
    bb_error err;
    const char *dir = getenv("REC_DUMP_DIR");
    bb_status st = dir && *dir ? take_file(rec, d, dir, &err)
                               : bb_recorder_dump_buffer(rec, &d->buf, &d->len, &err);
    if (st != BB_OK) {
        fprintf(stderr, "dump failed: %s\n", err.message);
        exit(1);
    }
    st = bb_dump_open_memory(d->buf, d->len, "memory", &d->dump, &err);
    if (st != BB_OK) {
        fprintf(stderr, "reopen failed: %s\n", err.message);
        exit(1);
    }
    d->inst = bb_dump_find_instance(d->dump, bb_recorder_instance_id(rec));
    if (!d->inst) {
        fprintf(stderr, "instance missing from dump\n");
        exit(1);
    }
}

void rec_dump_release(rec_dump *d) {
    bb_dump_close(d->dump);
    free(d->buf);
    memset(d, 0, sizeof *d);
}

static int collect_one(const bb_record *r, void *ctx) {
    rec_list *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1024;
        l->items = realloc(l->items, l->cap * sizeof *l->items);
        if (!l->items) exit(1);
    }
    rec_item *it = &l->items[l->n++];
    it->ts = r->ts;
    it->event_id = r->event_id;
    it->offset = r->offset;
    it->position = r->position;
    it->size = r->schema->record_size;
    memcpy(it->fields, r->fields, it->size < sizeof it->fields ? it->size : sizeof it->fields);
    return 0;
}

void rec_collect(const rec_dump *d, uint32_t shard, rec_list *out) {
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < d->inst->shard_count; i++)
        if (d->inst->shards[i].shard_id == shard)
            bb_shard_walk(d->dump, &d->inst->shards[i], collect_one, out, NULL);
}

const char *rec_intern(const rec_dump *d, uint32_t id) {
    static char buf[1024];
    bb_strview v;
    if (!bb_rinstance_intern(d->inst, id, &v) || v.len >= sizeof buf) return NULL;
    memcpy(buf, v.ptr, v.len);
    buf[v.len] = 0;
    return buf;
}

int rec_finish(const char *name) {
    if (rec_failures) {
        fprintf(stderr, "%s: %d check(s) failed\n", name, rec_failures);
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}
