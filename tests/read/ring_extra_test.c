/* ring_extra_test.c — bb_ring_snapshot_extra_fd (ring_reader.h): a ring file's snapshot plus
 * records the reader adds (what `backbeat watch` does with backbeat::Trigger), read back with
 * the reader: the file's records untouched, the added ones in one more Shard (id = the file's
 * shard count) in the order given, the schema of an event the file lacks added once, an event
 * the file has not added again, each interned field's string resolving through the instance's
 * intern table (ids past the file's, the file's own strings untouched); no record added: the
 * plain snapshot; bad arguments refused with BB_ERR_INVALID. */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../support/check.h"
#include "backbeat/backbeat.h"
#include "backbeat/reader.h"
#include "backbeat/ring_reader.h"

BB_EVENT(xt_ev, "xt", "Ev", NULL, BB_FIELD(uint64_t, n, NULL), BB_INTERN_DYN_F(who, NULL),
         BB_FIELD(uint32_t, pad, NULL));

/* An event no program registers: only the added records carry it. */
typedef struct note {
    uint64_t v;
    uint32_t text, other;
} note;
static const bb_field_desc note_fields[] = {
    {.name = "v", .offset = 0, .width = 8, .type = BB_TYPE_U64},
    {.name = "text", .offset = 8, .width = 4, .type = BB_TYPE_INTERNED, .type_arg = 1},
    {.name = "other", .offset = 12, .width = 4, .type = BB_TYPE_U32},
};
static bb_event_desc note_desc = {.abi = BB__ABI_LAYOUT,
                                  .name = "xt::Note",
                                  .fields = note_fields,
                                  .field_count = 3,
                                  .record_size = sizeof(note)};

typedef struct seen {
    const bb_rinstance *inst;
    int ev, notes, order_bad, text_bad, who_bad, foreign_ev;
    uint64_t last_v;
} seen;

static bool named(const bb_rschema *s, const char *n) {
    return s->name.len == strlen(n) && !memcmp(s->name.ptr, n, s->name.len);
}

static bool str_is(const bb_rinstance *in, const uint8_t *at, const char *want) {
    uint32_t id;
    memcpy(&id, at, 4);
    bb_strview s;
    return bb_rinstance_intern(in, id, &s) && s.len == strlen(want) && !memcmp(s.ptr, want, s.len);
}

static int on_record(const bb_record *r, void *ctx) {
    seen *s = ctx;
    if (named(r->schema, "xt::Note")) {
        note n;
        memcpy(&n, r->fields, sizeof n);
        s->notes++;
        s->order_bad += r->ts != 1000 + n.v || n.other != 7 || (s->last_v & (1u << n.v));
        s->last_v |= 1u << n.v; /* the set of values seen (walked newest first) */
        char want[32];
        snprintf(want, sizeof want, "note %llu", (unsigned long long)n.v);
        s->text_bad += !str_is(s->inst, r->fields + 8, want);
    } else if (named(r->schema, "xt::Ev")) {
        s->ev++;
        s->who_bad += !str_is(s->inst, r->fields + 8, "writer");
    }
    return 0;
}

int main(void) {
    char dir[] = "/tmp/bb_ring_extra.XXXXXX";
    if (!mkdtemp(dir)) return 77;
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 2;
    o.bytes_per_shard = 4096;
    bb_recorder *rec = NULL;
    bb_error err;
    if (bb_recorder_create_ring(&o, dir, true, &rec, &err) != BB_OK) {
        printf("skipped: %s\n", err.message);
        rmdir(dir);
        return 77;
    }
    char ring_path[512];
    snprintf(ring_path, sizeof ring_path, "%s", bb_recorder_ring_path(rec));
    bb_recorder_enable(rec, true);
    for (uint64_t n = 0; n < 20; n++)
        BB_RECORD(rec, xt_ev, .n = n, .who = bb_intern_str(rec, "writer"));
    bb_ring *ring = NULL;
    CHECK(bb_ring_open(ring_path, &ring, &err) == BB_OK, "open: %s", err.message);
    if (!ring) return 1;
    /* Three records: two of the new event (its schema added once), one of the file's event. */
    note n1 = {1, 0, 7}, n2 = {2, 0, 7};
    const char *s1[3] = {NULL, "note 1", NULL}, *s2[3] = {NULL, "note 2", NULL};
    xt_ev ev_fields = {.n = 99};
    const char *ev_strings[3] = {NULL, "writer", NULL};
    bb_ring_extra x[3] = {{&note_desc, 1001, &n1, s1},
                          {BB_DESC(xt_ev), 5, &ev_fields, ev_strings},
                          {&note_desc, 1002, &n2, s2}};
    char path[600];
    snprintf(path, sizeof path, "%s/x.bb", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(bb_ring_snapshot_extra_fd(ring, fd, x, 3, NULL, &err) == BB_OK, "%s", err.message);
    close(fd);
    bb_dump *d = NULL;
    CHECK(bb_dump_open(path, &d, &err) == BB_OK, "the dump opens: %s", err.message);
    if (d) {
        int note_schemas = 0, ev_schemas = 0;
        for (size_t i = 0; i < bb_dump_schema_count(d); i++) {
            note_schemas += named(bb_dump_schema(d, i), "xt::Note");
            ev_schemas += named(bb_dump_schema(d, i), "xt::Ev");
        }
        CHECK(note_schemas == 1 && ev_schemas == 1, "schemas: Note %d, Ev %d", note_schemas,
              ev_schemas);
        const bb_rinstance *in = bb_dump_instance(d, 0);
        CHECK(in->shard_count == 3, "the file's 2 shards and one more: %zu", in->shard_count);
        seen s = {in, 0, 0, 0, 0, 0, 0, 0};
        for (size_t k = 0; k + 1 < in->shard_count; k++)
            bb_shard_walk(d, &in->shards[k], on_record, &s, NULL);
        CHECK(s.ev == 20 && s.notes == 0 && s.who_bad == 0, "the file's records: %d (%d bad)", s.ev,
              s.who_bad);
        const bb_rshard *last = &in->shards[in->shard_count - 1];
        CHECK(last->shard_id == 2, "the added shard's id %u", last->shard_id);
        s.ev = 0;
        bb_shard_walk(d, last, on_record, &s, NULL);
        CHECK(s.notes == 2 && s.last_v == 6 && s.ev == 1 && !s.order_bad && !s.text_bad &&
                  !s.who_bad,
              "the added records: %d notes (%d bad, %d bad strings), %d Ev", s.notes, s.order_bad,
              s.text_bad, s.ev);
        bb_dump_close(d);
    }
    /* Nothing added: the plain snapshot. */
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    uint64_t w0 = 0, w1 = 0;
    CHECK(bb_ring_snapshot_extra_fd(ring, fd, NULL, 0, &w0, &err) == BB_OK, "%s", err.message);
    close(fd);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(bb_ring_snapshot_fd(ring, fd, &w1, &err) == BB_OK && w0 == w1 && w0 > 0,
          "no record added: the plain snapshot (%llu, %llu bytes)", (unsigned long long)w0,
          (unsigned long long)w1);
    /* Bad arguments. */
    bb_ring_extra many[65];
    for (int i = 0; i < 65; i++) many[i] = x[0];
    CHECK(bb_ring_snapshot_extra_fd(ring, fd, many, 65, NULL, &err) == BB_ERR_INVALID,
          "65 records refused");
    bb_ring_extra none = {NULL, 1, &n1, NULL};
    CHECK(bb_ring_snapshot_extra_fd(ring, fd, &none, 1, NULL, &err) == BB_ERR_INVALID &&
              strstr(err.message, "no event"),
          "a record with no event refused: %s", err.message);
    CHECK(bb_ring_snapshot_extra_fd(ring, fd, NULL, 1, NULL, &err) == BB_ERR_INVALID,
          "records NULL refused");
    close(fd);
    bb_ring_close(ring);
    bb_recorder_free(rec);
    unlink(ring_path);
    unlink(path);
    rmdir(dir);
    return failures ? 1 : 0;
}
