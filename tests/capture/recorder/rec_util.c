/* rec_util.c — see rec_util.h. */
/* SPDX-License-Identifier: MIT */
#include "rec_util.h"

#include <string.h>

int rec_failures;

void rec_dump_take(bb_recorder *rec, rec_dump *d) {
    memset(d, 0, sizeof *d);
    bb_error err;
    bb_status st = bb_recorder_dump_buffer(rec, &d->buf, &d->len, &err);
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
