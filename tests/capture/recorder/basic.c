/* basic.c — the recorder end to end through the reader: creation options, enable/disable,
 * BB_RECORD and the function forms, values read back exactly, clocks (manual, user, default,
 * BACKBEAT_CLOCK), record-too-large refusal, intern (static cache, dynamic, full table), views,
 * spans (explicit, BB_SPAN_ENTER/EXIT, scoped with cleanup, parent ids), dump_path. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rec_util.h"

BB_ENUM(role, uint8_t, (ROLE_CLIENT, 0, "client"), (ROLE_SERVER, 1, "server"));

BB_EVENT(packet_sent, "test::net", "PacketSent", "A packet was sent.",
         BB_KEY(uint64_t, conn_id, "The connection."),
         BB_FIELD(uint32_t, len, "Size.", BB_UNIT("bytes")),
         BB_ENUM_F(role, role, "Which side sent it."), BB_FIELD(uint8_t[3], pad, NULL));

BB_EVENT(named, "test::net", "Named", NULL, BB_INTERN_F(route, "A static string."),
         BB_INTERN_DYN_F(agent, "A dynamic string."));

BB_EVENT(tick, "test::misc", "Tick", NULL);

BB_EVENT(huge, "test::misc", "Huge", NULL, BB_FIELD(uint8_t[5000], blob, NULL));

BB_SPAN_ENTER_EVENT(req_begin, "test::span", "RequestBegin", NULL,
                    BB_SPAN_ID(uint64_t, span, "The span."),
                    BB_PARENT_SPAN_ID(uint64_t, parent, "The parent span."),
                    BB_FIELD(uint32_t, code, NULL), BB_FIELD(uint32_t, pad, NULL));
BB_SPAN_EXIT_EVENT(req_end, "test::span", "RequestEnd", NULL,
                   BB_SPAN_ID(uint64_t, span, "The span."),
                   BB_PARENT_SPAN_ID(uint64_t, parent, "The parent span."));

#define TEST_VIEWS_SQL "CREATE OR REPLACE VIEW test_basic AS SELECT 1;"
BB_VIEWS(test_views, TEST_VIEWS_SQL);

static uint64_t user_now(void *ctx) { return ++*(uint64_t *)ctx; }

static uint64_t wall_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bb_recorder *manual_recorder(uint32_t shards, uint64_t bytes) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = shards;
    o.bytes_per_shard = bytes;
    o.clock = BB_CLOCK_MANUAL;
    o.host = "test-host";
    bb_recorder *rec = NULL;
    CHECK(bb_recorder_create(&o, &rec) == BB_OK);
    if (!rec) exit(1);
    return rec;
}

static void test_create(void) {
    bb_recorder *rec = bb_recorder_new(3, 5000);
    CHECK(rec != NULL);
    CHECK_EQ_U64(bb_recorder_shard_count(rec), 3);
    CHECK_EQ_U64(bb_recorder_shard_capacity(rec), 8192);
    CHECK(!bb_recorder_enabled(rec));
    CHECK(bb_recorder_instance_id(rec) != 0);
    bb_recorder *rec2 = bb_recorder_new(1, 1);
    CHECK_EQ_U64(bb_recorder_shard_capacity(rec2), 4096); /* the floor */
    CHECK(bb_recorder_instance_id(rec2) != bb_recorder_instance_id(rec));
    bb_recorder_enable(rec, true);
    CHECK(bb_recorder_enabled(rec));
    bb_recorder_enable(rec, false);
    CHECK(!bb_recorder_enabled(rec));
    const char *clk = bb_recorder_clock_name(rec);
    CHECK(strcmp(clk, "tsc") == 0 || strcmp(clk, "monotonic") == 0);
    /* Under GLIBC_TUNABLES=glibc.pthread.rseq=0 (the _no_rseq variant) the fallback is used. */
    const char *tun = getenv("GLIBC_TUNABLES");
    const char *hint = bb_recorder_cpu_hint_name(rec);
    if (tun && strstr(tun, "rseq=0")) CHECK(strcmp(hint, "thread") == 0);
    else CHECK(strcmp(hint, "rseq") == 0 || strcmp(hint, "thread") == 0);
    printf("clock %s, cpu hint %s\n", clk, hint);
    bb_recorder_free(rec);
    bb_recorder_free(rec2);
    bb_recorder_free(NULL);

    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.clock = BB_CLOCK_USER; /* without a function */
    bb_recorder *bad = (bb_recorder *)&o;
    CHECK(bb_recorder_create(&o, &bad) == BB_ERR_INVALID && bad == NULL);
    o.clock = BB_CLOCK_MONOTONIC;
    o.bytes_per_shard = UINT64_C(1) << 50;
    CHECK(bb_recorder_create(&o, &bad) == BB_ERR_INVALID);
    CHECK(bb_recorder_create(&o, NULL) == BB_ERR_INVALID);

    /* NULL recorder: records are no-ops, never crashes. */
    BB_RECORD(NULL, tick);
    CHECK(bb_record_event(NULL, BB_DESC(tick), NULL, 0) == BB_ERR_INVALID);
    CHECK(bb_intern_str(NULL, "x") == BB_INTERN_FULL_ID);
}

/* The CPU -> shard map is cpu modulo the shard count, for CPUs past the shard count too
 * (Lemire's fastmod in the fast path). */
static void test_shard_map(void) {
    for (uint32_t n = 1; n <= 67; n += (n < 9 ? 1 : 7)) {
        bb_recorder *rec = bb_recorder_new(n, 4096);
        CHECK(rec != NULL);
        if (!rec) continue;
        const struct bb__recorder_hot *h = (const struct bb__recorder_hot *)(const void *)rec;
        int bad = 0;
        for (uint32_t cpu = 0; cpu < 5000; cpu++)
            if (bb__shard_of(h, cpu) != cpu % n) bad++;
        CHECK(bad == 0);
        bb_recorder_free(rec);
    }
}

static void test_record_values(void) {
    bb_recorder *rec = manual_recorder(1, 4096);
    CHECK(bb_recorder_clock_kind(rec) == BB_CLOCK_MANUAL);
    CHECK(strcmp(bb_recorder_clock_name(rec), "manual") == 0);
    /* Disabled: nothing written. */
    int evaluated = 0;
    BB_RECORD(rec, packet_sent, .conn_id = 1, .len = (uint32_t)(evaluated = 1));
    CHECK(evaluated == 0);
    CHECK(bb_record_event(rec, BB_DESC(packet_sent), &(packet_sent){.conn_id = 1}, 16) ==
          BB_ERR_DISABLED);

    bb_recorder_enable(rec, true);
    CHECK(bb_recorder_clock_set(rec, 1000) == BB_OK);
    BB_RECORD(rec, packet_sent, .conn_id = 7, .len = 1200, .role = ROLE_SERVER);
    bb_recorder_clock_advance(rec, 5);
    packet_sent p = {.conn_id = UINT64_MAX, .len = 0xdeadbeef, .role = ROLE_CLIENT};
    BB_RECORD_PTR(rec, packet_sent, &p);
    bb_recorder_clock_advance(rec, 5);
    BB_RECORD(rec, tick);
    CHECK(bb_record_event(rec, BB_DESC(packet_sent), &p, sizeof p) == BB_OK);
    CHECK(bb_record_event(rec, BB_DESC(packet_sent), &p, 3) == BB_ERR_INVALID);
    CHECK(bb_record_event_at(rec, BB_DESC(tick), 42, NULL, 0) == BB_OK);

    /* A record larger than the ring is refused and leaves the ring alone. */
    static huge h;
    BB_RECORD_PTR(rec, huge, &h);
    CHECK(bb_record_event(rec, BB_DESC(huge), &h, sizeof h) == BB_ERR_TOO_LARGE);
    bb_recorder_stats st;
    bb_recorder_stats_get(rec, &st);
    CHECK_EQ_U64(st.too_large, 2);

    rec_dump d;
    rec_dump_take(rec, &d);
    CHECK(d.inst->has_meta && d.inst->host.len == 9 &&
          memcmp(d.inst->host.ptr, "test-host", 9) == 0);
    CHECK_EQ_U64(d.inst->shard_count, 1);
    CHECK_EQ_U64(d.inst->shards[0].head, 3 * 34 + 2 * 18);
    rec_list l;
    rec_collect(&d, 0, &l);
    CHECK_EQ_U64(l.n, 5);
    if (l.n == 5) {
        /* newest first */
        CHECK_EQ_U64(l.items[0].ts, 42);
        CHECK_EQ_U64(l.items[0].event_id, bb_event_id(BB_DESC(tick)));
        CHECK_EQ_U64(l.items[1].ts, 1010);
        CHECK_EQ_U64(l.items[1].event_id, bb_event_id(BB_DESC(packet_sent)));
        CHECK(memcmp(l.items[1].fields, &p, 16) == 0);
        CHECK_EQ_U64(l.items[2].ts, 1010);
        CHECK_EQ_U64(l.items[2].size, 0);
        CHECK_EQ_U64(l.items[3].ts, 1005);
        CHECK(memcmp(l.items[3].fields, &p, 16) == 0);
        CHECK_EQ_U64(l.items[4].ts, 1000);
        const bb_rschema *s = bb_dump_find_schema(d.dump, l.items[4].event_id);
        CHECK(s != NULL);
        if (s) {
            bb_value v = bb_decode_field(s, 0, l.items[4].fields, d.inst);
            CHECK(v.kind == BB_VALUE_UINT && v.u == 7);
            v = bb_decode_field(s, 1, l.items[4].fields, d.inst);
            CHECK(v.kind == BB_VALUE_UINT && v.u == 1200);
            v = bb_decode_field(s, 2, l.items[4].fields, d.inst);
            CHECK(v.kind == BB_VALUE_ENUM && v.has_label && v.str.len == 6 &&
                  memcmp(v.str.ptr, "server", 6) == 0);
        }
    }
    free(l.items);
    /* Views ride in every dump. */
    bool found = false;
    for (size_t i = 0; i < bb_dump_view_count(d.dump); i++) {
        bb_strview v = bb_dump_view(d.dump, i);
        if (v.len == strlen(TEST_VIEWS_SQL) && memcmp(v.ptr, TEST_VIEWS_SQL, v.len) == 0)
            found = true;
    }
    CHECK(found);
    rec_dump_release(&d);
    bb_recorder_free(rec);
}

static void test_clocks(void) {
    uint64_t counter = 1000;
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 1;
    o.clock = BB_CLOCK_USER;
    o.user_clock = user_now;
    o.user_clock_ctx = &counter;
    bb_recorder *rec = NULL;
    CHECK(bb_recorder_create(&o, &rec) == BB_OK);
    CHECK(strcmp(bb_recorder_clock_name(rec), "user") == 0);
    CHECK(bb_recorder_clock_set(rec, 5) == BB_ERR_INVALID);
    bb_recorder_enable(rec, true);
    BB_RECORD(rec, tick);
    BB_RECORD(rec, tick);
    rec_dump d;
    rec_dump_take(rec, &d);
    rec_list l;
    rec_collect(&d, 0, &l);
    CHECK_EQ_U64(l.n, 2);
    if (l.n == 2) {
        CHECK_EQ_U64(l.items[0].ts, 1002);
        CHECK_EQ_U64(l.items[1].ts, 1001);
    }
    free(l.items);
    rec_dump_release(&d);
    bb_recorder_free(rec);

    /* Real clocks: nanoseconds since the epoch, close to CLOCK_REALTIME (loose bounds: the
     * machine may be loaded; this checks the epoch and the scale, not speed). */
    bb_clock_kind kinds[2] = {BB_CLOCK_MONOTONIC, BB_CLOCK_TSC};
    for (int k = 0; k < 2; k++) {
        bb_recorder_options_init(&o);
        o.shards = 1;
        o.clock = kinds[k];
        rec = NULL;
        bb_status st = bb_recorder_create(&o, &rec);
        if (kinds[k] == BB_CLOCK_TSC && st == BB_ERR_INVALID) continue; /* no invariant TSC */
        CHECK(st == BB_OK);
        if (!rec) continue;
        uint64_t w0 = wall_ns();
        uint64_t t0 = bb_recorder_now(rec);
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
        uint64_t t1 = bb_recorder_now(rec);
        uint64_t w1 = wall_ns();
        CHECK(t0 + 50 * 1000 * 1000 > w0 && t0 < w0 + 50 * 1000 * 1000);
        CHECK(t1 > t0 + 19 * 1000 * 1000);
        CHECK(t1 - t0 <= (w1 - w0) + 5 * 1000 * 1000);
        bb_recorder_free(rec);
    }

    /* BACKBEAT_CLOCK overrides the default; an unknown value leaves the default. */
    bb_recorder_options_init(&o);
    o.clock = BB_CLOCK_TSC;
    rec = NULL;
    bool have_tsc = bb_recorder_create(&o, &rec) == BB_OK;
    bb_recorder_free(rec);
    rec = bb_recorder_new(1, 4096);
    const char *dflt = rec ? bb_recorder_clock_name(rec) : "";
    bb_recorder_free(rec);
    setenv("BACKBEAT_CLOCK", "monotonic", 1);
    rec = bb_recorder_new(1, 4096);
    CHECK(rec && strcmp(bb_recorder_clock_name(rec), "monotonic") == 0);
    bb_recorder_free(rec);
    setenv("BACKBEAT_CLOCK", "tsc", 1);
    rec = bb_recorder_new(1, 4096);
    CHECK(rec && strcmp(bb_recorder_clock_name(rec), have_tsc ? "tsc" : "monotonic") == 0);
    bb_recorder_free(rec);
    setenv("BACKBEAT_CLOCK", "sundial", 1);
    rec = bb_recorder_new(1, 4096);
    CHECK(rec && strcmp(bb_recorder_clock_name(rec), dflt) == 0);
    bb_recorder_free(rec);
    unsetenv("BACKBEAT_CLOCK");
}

static uint32_t intern_hello(bb_recorder *rec) { return BB_INTERN(rec, "hello"); }

static void test_intern(void) {
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 1;
    o.clock = BB_CLOCK_MANUAL;
    o.intern_entries = 8;
    o.intern_bytes = 64;
    bb_recorder *rec = NULL;
    CHECK(bb_recorder_create(&o, &rec) == BB_OK);
    if (!rec) return;
    bb_recorder_enable(rec, true);
    uint32_t a = intern_hello(rec);
    CHECK(a != BB_INTERN_FULL_ID);
    CHECK_EQ_U64(intern_hello(rec), a); /* cached at the call site */
    CHECK_EQ_U64(bb_intern_str(rec, "hello"), a);
    uint32_t b = bb_intern(rec, "world", 5);
    CHECK(b != a && b != BB_INTERN_FULL_ID);
    CHECK_EQ_U64(bb_intern(rec, "world", 5), b);
    uint32_t e = bb_intern(rec, "", 0);
    CHECK(e != BB_INTERN_FULL_ID && e != a && e != b);
    BB_RECORD(rec, named, .route = a, .agent = b);
    /* A second recorder gets its own table: the call-site cache must not leak ids. */
    bb_recorder *other = manual_recorder(1, 4096);
    bb_intern_str(other, "first");
    uint32_t oh = intern_hello(other);
    CHECK(oh != BB_INTERN_FULL_ID);
    bb_recorder_enable(other, true); /* a dump holds the strings its records name */
    BB_RECORD(other, named, .route = oh, .agent = oh);
    rec_dump od;
    rec_dump_take(other, &od);
    const char *s = rec_intern(&od, oh);
    CHECK(s && strcmp(s, "hello") == 0);
    rec_dump_release(&od);
    bb_recorder_free(other);
    CHECK_EQ_U64(intern_hello(rec), a);

    /* Fill the table: 64 bytes, 8 entries. */
    uint32_t last = 0;
    char buf[32];
    int i;
    for (i = 0; i < 20; i++) {
        snprintf(buf, sizeof buf, "string-%02d", i);
        last = bb_intern_str(rec, buf);
        if (last == BB_INTERN_FULL_ID) break;
    }
    CHECK(last == BB_INTERN_FULL_ID);
    bb_recorder_stats st;
    bb_recorder_stats_get(rec, &st);
    CHECK(st.intern_full >= 1);
    CHECK_EQ_U64(bb_intern_str(rec, "hello"), a); /* existing strings still resolve */
    BB_RECORD(rec, named, .route = a, .agent = last);

    rec_dump d;
    rec_dump_take(rec, &d);
    s = rec_intern(&d, a);
    CHECK(s && strcmp(s, "hello") == 0);
    s = rec_intern(&d, b);
    CHECK(s && strcmp(s, "world") == 0);
    s = rec_intern(&d, BB_INTERN_FULL_ID);
    CHECK(s && strcmp(s, "<backbeat: intern table full>") == 0);
    /* strings no record names are not in the dump (issue 38: exactly what its records need) */
    CHECK(rec_intern(&d, e) == NULL);
    snprintf(buf, sizeof buf, "string-%02d", i - 1);
    uint32_t prev = bb_intern_str(rec, buf);
    if (i > 0 && prev != BB_INTERN_FULL_ID) CHECK(rec_intern(&d, prev) == NULL);
    rec_list l;
    rec_collect(&d, 0, &l);
    CHECK_EQ_U64(l.n, 2);
    if (l.n == 2) {
        const bb_rschema *sc = bb_dump_find_schema(d.dump, l.items[1].event_id);
        bb_value v = bb_decode_field(sc, 0, l.items[1].fields, d.inst);
        CHECK(v.kind == BB_VALUE_STRING && v.has_label && v.str.len == 5 &&
              memcmp(v.str.ptr, "hello", 5) == 0);
        v = bb_decode_field(sc, 1, l.items[1].fields, d.inst);
        CHECK(v.kind == BB_VALUE_STRING && v.has_label && v.str.len == 5 &&
              memcmp(v.str.ptr, "world", 5) == 0);
    }
    free(l.items);
    rec_dump_release(&d);
    bb_recorder_free(rec);
}

/* Look up a u64 field of a record by role. */
static uint64_t role_u64(const rec_dump *d, const rec_item *it, uint8_t role) {
    const bb_rschema *s = bb_dump_find_schema(d->dump, it->event_id);
    for (size_t i = 0; s && i < s->field_count; i++)
        if (s->fields[i].role == role) {
            uint64_t v = 0;
            memcpy(&v, it->fields + s->fields[i].offset, 8);
            return v;
        }
    return UINT64_MAX;
}

static uint64_t scoped_child(bb_recorder *rec, uint64_t parent) {
    BB_SPAN_SCOPED(child, rec, req_begin, req_end, parent, .code = 2);
    return child.id;
}

static void test_spans(void) {
    bb_recorder *rec = manual_recorder(1, 1 << 16);
    uint64_t a = bb_span_id_new(), b = bb_span_id_new();
    CHECK(a != 0 && b != 0 && a != b);
    CHECK_EQ_U64(b - a, 1); /* same thread: counts up from its random start */
    /* A fork child draws a new start: its ids are not the ones its parent mints next. */
    int fds[2];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        uint64_t c = bb_span_id_new();
        _exit(write(fds[1], &c, sizeof c) == (ssize_t)sizeof c ? 0 : 1);
    }
    uint64_t c = 0, p = bb_span_id_new();
    CHECK(pid > 0 && read(fds[0], &c, sizeof c) == (ssize_t)sizeof c);
    if (pid > 0) waitpid(pid, NULL, 0);
    close(fds[0]);
    close(fds[1]);
    CHECK(c != 0 && c != p && c != b + 1 && c != b + 2);

    /* Disabled: BB_SPAN_ENTER mints nothing. */
    CHECK_EQ_U64(BB_SPAN_ENTER(rec, req_begin, 0, .code = 1), 0);
    bb_recorder_enable(rec, true);

    uint64_t outer = BB_SPAN_ENTER(rec, req_begin, 0, .code = 1);
    CHECK(outer != 0);
    uint64_t child_id = scoped_child(rec, outer);
    CHECK(child_id != 0 && child_id != outer);
    BB_SPAN_EXIT(rec, req_end, outer);
    uint64_t expl = bb_span_id_new();
    BB_RECORD(rec, req_begin, .span = expl, .parent = outer, .code = 3);
    BB_RECORD(rec, req_end, .span = expl, .parent = outer);

    rec_dump d;
    rec_dump_take(rec, &d);
    rec_list l;
    rec_collect(&d, 0, &l);
    CHECK_EQ_U64(l.n, 6);
    if (l.n == 6) {
        /* oldest first: enter(outer), enter(child), exit(child), exit(outer), enter, exit */
        rec_item *r = l.items;
        uint64_t begin = bb_event_id(BB_DESC(req_begin)), end = bb_event_id(BB_DESC(req_end));
        CHECK(r[5].event_id == begin && role_u64(&d, &r[5], BB_ROLE_SPAN_ID) == outer &&
              role_u64(&d, &r[5], BB_ROLE_PARENT_SPAN_ID) == 0);
        CHECK(r[4].event_id == begin && role_u64(&d, &r[4], BB_ROLE_SPAN_ID) == child_id &&
              role_u64(&d, &r[4], BB_ROLE_PARENT_SPAN_ID) == outer);
        uint32_t code;
        memcpy(&code, r[4].fields + 16, 4);
        CHECK_EQ_U64(code, 2);
        CHECK(r[3].event_id == end && role_u64(&d, &r[3], BB_ROLE_SPAN_ID) == child_id &&
              role_u64(&d, &r[3], BB_ROLE_PARENT_SPAN_ID) == outer);
        CHECK(r[2].event_id == end && role_u64(&d, &r[2], BB_ROLE_SPAN_ID) == outer);
        CHECK(r[1].event_id == begin && role_u64(&d, &r[1], BB_ROLE_SPAN_ID) == expl &&
              role_u64(&d, &r[1], BB_ROLE_PARENT_SPAN_ID) == outer);
        CHECK(r[0].event_id == end && role_u64(&d, &r[0], BB_ROLE_SPAN_ID) == expl);
    }
    free(l.items);
    rec_dump_release(&d);

    /* bb_span_end records once. */
    bb_span sp = {rec, BB_DESC(req_end), 99, 0};
    CHECK(bb_span_end(&sp) == BB_OK);
    CHECK(bb_span_end(&sp) == BB_OK);
    rec_dump_take(rec, &d);
    rec_collect(&d, 0, &l);
    CHECK_EQ_U64(l.n, 7);
    free(l.items);
    rec_dump_release(&d);
    bb_recorder_free(rec);
}

static void test_dump_path(void) {
    bb_recorder *rec = manual_recorder(2, 4096);
    bb_recorder_enable(rec, true);
    BB_RECORD(rec, packet_sent, .conn_id = 3);
    char dir[] = "/tmp/bb_rec_basic_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/out.bb", dir);
    bb_error err;
    CHECK(bb_recorder_dump_path(rec, path, "other-host", &err) == BB_OK);
    bb_dump *dump = NULL;
    CHECK(bb_dump_open(path, &dump, &err) == BB_OK);
    if (dump) {
        const bb_rinstance *in = bb_dump_find_instance(dump, bb_recorder_instance_id(rec));
        CHECK(in && in->host.len == 10 && memcmp(in->host.ptr, "other-host", 10) == 0);
        CHECK(in && in->shard_count == 2);
        bb_dump_close(dump);
    }
    /* Only the final file remains (no temp left behind). */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "test $(ls -A %s | wc -l) -eq 1", dir);
    CHECK(system(cmd) == 0);
    unlink(path);
    /* An unwritable place: an error value with a message, no crash. */
    snprintf(path, sizeof path, "%s/missing/out.bb", dir);
    CHECK(bb_recorder_dump_path(rec, path, NULL, &err) == BB_ERR_IO);
    CHECK(strstr(err.message, "missing") != NULL);
    rmdir(dir);
    CHECK(bb_recorder_dump_fd(rec, -1, &err) == BB_ERR_INVALID);
    bb_recorder_free(rec);
}

int main(void) {
    test_create();
    test_shard_map();
    test_record_values();
    test_clocks();
    test_intern();
    test_spans();
    test_dump_path();
    return rec_finish("recorder_basic");
}
