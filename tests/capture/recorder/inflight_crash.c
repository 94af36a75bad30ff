/* inflight_crash.c — a dump taken on the crash path (bb_recorder_dump_fd_signal_safe) leaves out a
 * record its writer left half written, also when a signal handler on that same thread recorded
 * in between. Deterministic: the test stands in for the interrupted writer (fetch_add path) by
 * doing its steps by hand — announce, reserve, publish the position, write the frame — and stops
 * before the retire; then records as a handler would and dumps. recorder_signal is the same
 * scenario with a real timer, where it only shows now and then. */
/* SPDX-License-Identifier: MIT */
#include <string.h>
#include <unistd.h>

#include "rec_util.h"

BB_EVENT(seq_ev, "test::inflight", "Seq", NULL, BB_FIELD(uint64_t, seq, NULL));
BB_EVENT(torn_ev, "test::inflight", "Torn", NULL, BB_FIELD(uint64_t, seq, NULL));

typedef struct counts {
    uint64_t seq_id, torn_id, seq_n, torn_n, seq_sum;
} counts;

static int count(const bb_record *r, void *ctx) {
    counts *c = ctx;
    uint64_t v;
    memcpy(&v, r->fields, 8);
    if (r->event_id == c->seq_id) c->seq_n++, c->seq_sum += v;
    if (r->event_id == c->torn_id) c->torn_n++;
    return 0;
}

/* The crash-path dump of `rec`, walked. */
static counts crash_dump(bb_recorder *rec) {
    counts c;
    memset(&c, 0, sizeof c);
    c.seq_id = bb_event_id(BB_DESC(seq_ev));
    c.torn_id = bb_event_id(BB_DESC(torn_ev));
    char path[] = "/tmp/bb_inflight_crash_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0) return c;
    unlink(path);
    CHECK_EQ_U64(bb_recorder_dump_fd_signal_safe(rec, fd), BB_OK);
    off_t len = lseek(fd, 0, SEEK_END);
    uint8_t *buf = malloc((size_t)len);
    CHECK(buf && pread(fd, buf, (size_t)len, 0) == len);
    bb_dump *d = NULL;
    bb_error err;
    if (buf && bb_dump_open_memory(buf, (size_t)len, "crash dump", &d, &err) == BB_OK) {
        const bb_rinstance *in = bb_dump_find_instance(d, bb_recorder_instance_id(rec));
        CHECK(in != NULL);
        if (in) bb_shard_walk(d, &in->shards[0], count, &c, NULL);
        bb_dump_close(d);
    } else {
        CHECK(!"the crash dump opens");
    }
    free(buf);
    close(fd);
    return c;
}

int main(void) {
    setenv("BACKBEAT_COMMIT", "fetch_add", 1); /* the path with announcements */
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 1;
    o.bytes_per_shard = 64u << 10;
    bb_recorder *rec;
    if (bb_recorder_create(&o, &rec) != BB_OK) return 1;
    bb_recorder_enable(rec, true);
    struct bb__recorder_hot *h = (struct bb__recorder_hot *)(void *)rec;
    if (h->commit != BB__COMMIT_FETCH_ADD) {
        fprintf(stderr, "inflight_crash: the recorder did not take the fetch_add path\n");
        return 1;
    }
    for (uint64_t i = 0; i < 10; i++) BB_RECORD(rec, seq_ev, .seq = i);

    /* The interrupted writer: every step of the fetch_add path but the retire. */
    struct bb__tslot *t = (struct bb__tslot *)(h->slot_base + bb__tls_slot_off);
    uint64_t fields = 0; /* the field bytes not written yet */
    size_t total = BB__FRAME_SIZE(sizeof fields);
    uint64_t taglen = ((uint64_t)total << 32) | h->tag_base;
    __atomic_store_n(&t->pos, BB__POS_UNKNOWN, __ATOMIC_RELEASE);
    __atomic_store_n(&t->taglen, taglen, __ATOMIC_RELEASE);
    uint64_t pos = __atomic_fetch_add(&h->cursors[0].head, (uint64_t)total, __ATOMIC_ACQ_REL);
    __atomic_store_n(&t->pos, pos, __ATOMIC_RELEASE);
    bb__frame_write(h->ring_of[0] + (pos & h->mask), 1, bb_event_id(BB_DESC(torn_ev)), &fields,
                    sizeof fields);

    /* The handler: one record on the same thread, then the crash-path dump. */
    BB_RECORD(rec, seq_ev, .seq = 10);
    CHECK_EQ_U64(__atomic_load_n(&t->taglen, __ATOMIC_ACQUIRE), taglen); /* put back */
    CHECK_EQ_U64(__atomic_load_n(&t->pos, __ATOMIC_ACQUIRE), pos);
    counts c = crash_dump(rec);
    CHECK_EQ_U64(c.torn_n, 0);
    CHECK_EQ_U64(c.seq_n, 11);
    CHECK_EQ_U64(c.seq_sum, 55);

    /* Control: once the writer retires, its record is whole and the same dump keeps it. */
    __atomic_store_n(&t->taglen, 0, __ATOMIC_RELEASE);
    c = crash_dump(rec);
    CHECK_EQ_U64(c.torn_n, 1);
    CHECK_EQ_U64(c.seq_n, 11);
    bb_recorder_free(rec);
    return rec_finish("recorder_inflight_crash");
}
