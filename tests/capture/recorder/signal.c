/* signal.c — records written from a signal handler, and a dump taken from one
 * (bb_recorder_dump_fd_signal_safe), decode correctly: the main thread records a numbered
 * stream while an interval timer interrupts it (at arbitrary points, also inside the record
 * fast path); the handler records its own numbered stream and, once, dumps the live rings.
 * Both the handler's dump and a normal dump afterwards hold both streams, in order, exact. */
/* SPDX-License-Identifier: MIT */
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "rec_util.h"

BB_EVENT(main_ev, "test::signal", "Main", NULL, BB_FIELD(uint64_t, seq, NULL),
         BB_FIELD(uint64_t, check, NULL));
BB_EVENT(sig_ev, "test::signal", "InHandler", NULL, BB_FIELD(uint64_t, seq, NULL),
         BB_FIELD(uint64_t, check, NULL), BB_FIELD(uint32_t, signo, NULL),
         BB_INTERN_F(where, NULL));

static bb_recorder *rec;
static volatile sig_atomic_t sig_count, dumped, dump_status = -1;
static volatile uint64_t main_done_at_dump, sig_done_at_dump;
static volatile uint64_t main_done;
static int dump_fd = -1;

static uint64_t chk(uint64_t seq, uint64_t salt) {
    return (seq + salt) * 0x9E3779B97F4A7C15ull ^ (seq >> 7);
}

static void on_alarm(int signo) {
    uint64_t k = (uint64_t)sig_count;
    BB_RECORD(rec, sig_ev, .seq = k, .check = chk(k, 1), .signo = (uint32_t)signo,
              .where = BB_INTERN(rec, "handler"));
    sig_count = (sig_atomic_t)(k + 1);
    if (k == 40 && !dumped) {
        dumped = 1;
        main_done_at_dump = main_done;
        sig_done_at_dump = k + 1;
        dump_status = (sig_atomic_t)bb_recorder_dump_fd_signal_safe(rec, dump_fd);
    }
}

typedef struct streams {
    uint64_t main_n, sig_n, main_newest, sig_newest, bad;
    uint64_t main_prev, sig_prev;
    uint64_t main_id, sig_id;
    const rec_dump *d;
} streams;

static int walk(const bb_record *r, void *ctx) {
    streams *s = ctx;
    uint64_t seq, c;
    memcpy(&seq, r->fields, 8);
    memcpy(&c, r->fields + 8, 8);
    if (r->event_id == s->main_id) {
        if (c != chk(seq, 0) || (s->main_n && seq + 1 != s->main_prev)) s->bad++;
        if (!s->main_n) s->main_newest = seq;
        s->main_prev = seq;
        s->main_n++;
    } else if (r->event_id == s->sig_id) {
        uint32_t signo, where;
        memcpy(&signo, r->fields + 16, 4);
        memcpy(&where, r->fields + 20, 4);
        const char *w = rec_intern(s->d, where);
        if (c != chk(seq, 1) || signo != SIGALRM || !w || strcmp(w, "handler") != 0 ||
            (s->sig_n && seq + 1 != s->sig_prev))
            s->bad++;
        if (!s->sig_n) s->sig_newest = seq;
        s->sig_prev = seq;
        s->sig_n++;
    } else {
        s->bad++;
    }
    return 0;
}

static void check_dump(rec_dump *d, uint64_t main_min, uint64_t main_max, uint64_t sig_n) {
    streams s;
    memset(&s, 0, sizeof s);
    s.main_id = bb_event_id(BB_DESC(main_ev));
    s.sig_id = bb_event_id(BB_DESC(sig_ev));
    s.d = d;
    CHECK_EQ_U64(d->inst->shard_count, 1);
    bb_shard_walk(d->dump, &d->inst->shards[0], walk, &s, NULL);
    CHECK_EQ_U64(s.bad, 0);
    /* nothing lost: the ring is big enough for everything */
    CHECK_EQ_U64(s.sig_n, sig_n);
    CHECK(s.sig_n == 0 || (s.sig_newest + 1 == sig_n && s.sig_prev == 0));
    /* the main stream may have had one record in flight when the handler dumped */
    CHECK(s.main_n > 0 && s.main_prev == 0);
    CHECK(s.main_newest + 1 >= main_min && s.main_newest + 1 <= main_max);
    CHECK_EQ_U64(s.main_n, s.main_newest + 1);
}

int main(void) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 1;
    o.bytes_per_shard = 8u << 20;
    if (bb_recorder_create(&o, &rec) != BB_OK) return 1;
    bb_recorder_enable(rec, true);
    char path[] = "/tmp/bb_rec_signal_XXXXXX";
    dump_fd = mkstemp(path);
    if (dump_fd < 0) return 1;
    unlink(path);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 200}, {0, 200}};
    setitimer(ITIMER_REAL, &it, NULL);
    uint64_t i = 0;
    while (sig_count < 80 && i < 150000) {
        BB_RECORD(rec, main_ev, .seq = i, .check = chk(i, 0));
        main_done = ++i;
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    signal(SIGALRM, SIG_IGN);
    uint64_t sigs = (uint64_t)sig_count;
    printf("signal: %llu main records, %llu handler records\n", (unsigned long long)i,
           (unsigned long long)sigs);
    CHECK(sigs > 0);

    /* The dump the handler wrote. */
    if (dumped) {
        CHECK_EQ_U64(dump_status, BB_OK);
        off_t len = lseek(dump_fd, 0, SEEK_END);
        uint8_t *buf = malloc((size_t)len);
        CHECK(pread(dump_fd, buf, (size_t)len, 0) == len);
        rec_dump d;
        memset(&d, 0, sizeof d);
        bb_error err;
        CHECK(bb_dump_open_memory(buf, (size_t)len, "handler dump", &d.dump, &err) == BB_OK);
        if (d.dump) {
            d.inst = bb_dump_find_instance(d.dump, bb_recorder_instance_id(rec));
            CHECK(d.inst != NULL);
            if (d.inst) check_dump(&d, main_done_at_dump, main_done_at_dump + 1, sig_done_at_dump);
            bb_dump_close(d.dump);
        }
        free(buf);
    } else {
        fprintf(stderr, "signal: the handler never dumped (too few timer signals)\n");
        CHECK(sigs <= 40);
    }

    /* A normal dump afterwards: everything. */
    rec_dump d;
    rec_dump_take(rec, &d);
    check_dump(&d, i, i, sigs);
    rec_dump_release(&d);
    close(dump_fd);
    bb_recorder_free(rec);
    return rec_finish("recorder_signal");
}
