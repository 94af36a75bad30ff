/* catch_test.c — in-process triggers on a recorder of the program's own: a slow span among many
 * fast ones (threads), a hung span caught while open, field rules on an enum label and an
 * interned string, a storm under the throttle, and every bad-rule class of the API. */
/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backbeat/backbeat.h"
#include "backbeat/trigger.h"
#include "check.h"

BB_ENUM(cstatus, uint8_t, (C_OK, 0, "ok"), (C_ERR, 2, "error"));
BB_SPAN_ENTER_EVENT(req_begin, "ct::kv", "RequestBegin", NULL, BB_SPAN_ID(uint64_t, span, NULL));
BB_SPAN_EXIT_EVENT(req_end, "ct::kv", "RequestEnd", NULL, BB_SPAN_ID(uint64_t, span, NULL),
                   BB_ENUM_F(cstatus, status, NULL), BB_FIELD(uint8_t[3], _pad, NULL),
                   BB_INTERN_DYN_F(client, NULL));
BB_EVENT(noise, "ct::other", "Noise", NULL, BB_FIELD(uint64_t, n, NULL));

typedef struct seen {
    int calls;
    bb_trigger_firing last;
    char rule[256], event[128];
    uint64_t at_mono;
} seen;

static uint64_t mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_fire(bb_recorder *rec, const bb_trigger_firing *f, void *ctx) {
    (void)rec;
    seen *s = ctx;
    s->last = *f;
    snprintf(s->rule, sizeof s->rule, "%s", f->rule);
    snprintf(s->event, sizeof s->event, "%s", f->event);
    s->at_mono = mono();
    __atomic_fetch_add(&s->calls, 1, __ATOMIC_RELEASE);
}

/* A recorder whose spans last what the test says, whatever the load of the machine (a thread
 * preempted for 50 ms between enter and exit is no slow request here): the manual clock, or
 * (many threads) the monotonic clock plus a per-thread skew. */
static __thread uint64_t t_skew; /* this thread's clock runs this far ahead */
static uint64_t skewed(void *ctx) {
    (void)ctx;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + t_skew;
}

static bb_recorder *make_clock(seen *s, uint64_t after_ns, uint64_t throttle_ns, bool manual) {
    bb_recorder *rec = NULL;
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 4;
    o.bytes_per_shard = 8u << 20; /* no wrap: writers of one ring never race on its bytes */
    o.clock = manual ? BB_CLOCK_MANUAL : BB_CLOCK_USER;
    o.user_clock = skewed;
    CHECK(bb_recorder_create(&o, &rec) == BB_OK, "create");
    bb_recorder_enable(rec, true);
    bb_trigger_options t = {
        .fn = on_fire, .ctx = s, .after_ns = after_ns, .throttle_ns = throttle_ns};
    bb_error err;
    CHECK(bb_recorder_trigger_options(rec, &t, &err) == BB_OK, "%s", err.message);
    return rec;
}

static bb_recorder *make(seen *s, uint64_t after_ns, uint64_t throttle_ns) {
    return make_clock(s, after_ns, throttle_ns, true);
}

static int calls(seen *s) { return __atomic_load_n(&s->calls, __ATOMIC_ACQUIRE); }

static void wait_calls(seen *s, int n, int ms) {
    for (int i = 0; i < ms && __atomic_load_n(&s->calls, __ATOMIC_ACQUIRE) < n; i++) {
        struct timespec d = {0, 1000000};
        nanosleep(&d, NULL);
    }
}

static bb_recorder *g_rec;
static uint64_t g_slow_span;

static void *worker(void *arg) {
    int id = (int)(intptr_t)arg;
    for (int i = 0; i < 10000; i++) {
        uint64_t sid = BB_SPAN_ENTER(g_rec, req_begin, 0);
        BB_RECORD(g_rec, noise, .n = (uint64_t)i);
        if (id == 1 && i == 5000) { /* the one slow request: 8 s (far above any preemption) */
            g_slow_span = sid;
            t_skew += 8000000000u;
        }
        BB_SPAN_EXIT(g_rec, req_end, sid, .status = C_OK);
    }
    return NULL;
}

static void slow_span(void) {
    seen s = {0};
    g_rec = make_clock(&s, 50000000, 0, false); /* the after-window holds the exit */
    bb_error err;
    CHECK(bb_recorder_trigger_add(g_rec, "span ct::kv::RequestBegin > 5s", &err) == BB_OK, "%s",
          err.message);
    pthread_t th[4];
    for (intptr_t k = 0; k < 4; k++) pthread_create(&th[k], NULL, worker, (void *)k);
    for (int k = 0; k < 4; k++) pthread_join(th[k], NULL);
    wait_calls(&s, 1, 500);
    CHECK(calls(&s) == 1, "one firing, got %d", calls(&s));
    CHECK(s.last.span_id == g_slow_span, "the slow span %llx (got %llx, %llu ns, hung %d)",
          (unsigned long long)g_slow_span, (unsigned long long)s.last.span_id,
          (unsigned long long)s.last.duration_ns, s.last.hung);
    CHECK(s.last.duration_ns >= 8000000000u && !s.last.hung, "duration %llu",
          (unsigned long long)s.last.duration_ns);
    bb_trigger_stats st;
    bb_recorder_trigger_stats(g_rec, &st);
    CHECK(st.fired == 1 && st.suppressed == 0, "fired %llu", (unsigned long long)st.fired);
    CHECK(s.last.after_ns == 50000000u, "after-window");
    CHECK(!strcmp(s.rule, "span ct::kv::RequestBegin > 5s") &&
              !strcmp(s.event, "ct::kv::RequestBegin"),
          "rule '%s' event '%s'", s.rule, s.event);
    bb_recorder_free(g_rec);
}

static void hung_span(void) {
    seen s = {0};
    bb_recorder *rec = make(&s, 0, 0);
    bb_error err;
    CHECK(bb_recorder_trigger_add(rec, "span ct::kv::RequestBegin > 30ms", &err) == BB_OK, "%s",
          err.message);
    bb_recorder_clock_set(rec, 1000000000);
    uint64_t sid = BB_SPAN_ENTER(rec, req_begin, 0);
    struct timespec d0 = {0, 10000000};
    nanosleep(&d0, NULL);
    CHECK(calls(&s) == 0, "not before its time");
    bb_recorder_clock_advance(rec, 40000000);
    wait_calls(&s, 1, 1000);
    CHECK(calls(&s) == 1 && s.last.hung && s.last.span_id == sid, "caught while open (%d)",
          calls(&s));
    BB_SPAN_EXIT(rec, req_end, sid); /* fires at most once */
    struct timespec d = {0, 20000000};
    nanosleep(&d, NULL);
    CHECK(calls(&s) == 1, "a span fires a rule once (%d)", calls(&s));
    bb_recorder_free(rec);
}

static void field_rules(void) {
    seen s = {0};
    bb_recorder *rec = make(&s, 0, 1);
    bb_error err;
    CHECK(bb_recorder_trigger_add(
              rec, "ct::kv::RequestEnd status == error; ct::kv::RequestEnd client == \"mallory\"",
              &err) == BB_OK,
          "%s", err.message);
    BB_RECORD(rec, req_end, .span = 1, .status = C_OK, .client = bb_intern_str(rec, "alice"));
    BB_RECORD(rec, req_end, .span = 2, .status = C_ERR, .client = bb_intern_str(rec, "alice"));
    wait_calls(&s, 1, 500);
    CHECK(calls(&s) == 1 && s.last.span_id == 2 && strstr(s.rule, "error"), "enum label rule (%d)",
          calls(&s));
    struct timespec d = {0, 5000000};
    nanosleep(&d, NULL);
    BB_RECORD(rec, req_end, .span = 3, .status = C_OK, .client = bb_intern_str(rec, "mallory"));
    wait_calls(&s, 2, 500);
    CHECK(calls(&s) == 2 && s.last.span_id == 3 && strstr(s.rule, "mallory"), "string rule (%d)",
          calls(&s));
    bb_recorder_free(rec);
}

static void storm(void) {
    seen s = {0};
    bb_recorder *rec = make(&s, 0, 60000000000ull);
    bb_error err;
    CHECK(bb_recorder_trigger_add(rec, "ct::other::Noise", &err) == BB_OK, "%s", err.message);
    for (int i = 0; i < 200000; i++) BB_RECORD(rec, noise, .n = (uint64_t)i);
    wait_calls(&s, 1, 500);
    struct timespec d = {0, 20000000};
    nanosleep(&d, NULL);
    bb_trigger_stats st;
    bb_recorder_trigger_stats(rec, &st);
    CHECK(calls(&s) == 1 && st.fired == 1 && st.suppressed == 199999,
          "storm: %d calls, %llu fired, %llu counted", calls(&s), (unsigned long long)st.fired,
          (unsigned long long)st.suppressed);
    bb_recorder_free(rec);
}

static void bad(bb_recorder *rec, const char *rule, const char *want) {
    bb_error err;
    CHECK(bb_recorder_trigger_add(rec, rule, &err) == BB_ERR_INVALID, "'%s' accepted", rule);
    CHECK(strstr(err.message, want) != NULL, "'%s': got '%s'", rule, err.message);
}

static void bad_rules(void) {
    seen s = {0};
    bb_recorder *rec = make(&s, 0, 0);
    bad(rec, "span ct::kv::RequestBegin > 5", "column 29: bad duration");
    bad(rec, "ct::kv::RequestEnd size > 3",
        "column 20: event 'ct::kv::RequestEnd' has no field 'size'");
    bad(rec, "ct::kv::RequestEnd status == 1.5x", "column 30: expected a number");
    bad(rec, "ct::kv::RequestEnd status == broken", "no label 'broken'");
    bad(rec, "ct::kv::RequestEnd client == 4", "interned string");
    bb_error err;
    CHECK(bb_recorder_trigger_add(rec, "late::Plugin x == 1", &err) == BB_OK,
          "an event not registered yet is accepted: %s", err.message);
    bb_recorder_free(rec);
}

/* A rule naming an event not registered yet (a plugin's): accepted, armed when it registers. */
static void late_event(void) {
    static const bb_field_desc f[] = {{.name = "y", .offset = 0, .width = 4, .type = BB_TYPE_U32}};
    static bb_event_desc late = {.abi = BB__ABI_LAYOUT,
                                 .name = "late::Plugin",
                                 .fields = f,
                                 .field_count = 1,
                                 .record_size = 4};
    seen s = {0};
    bb_recorder *rec = make(&s, 0, 1);
    bb_error err;
    CHECK(bb_recorder_trigger_add(rec, "late::Plugin y == 1", &err) == BB_OK, "%s", err.message);
    bb_registry_add(&late);
    uint32_t y = 0;
    CHECK(bb_record_event(rec, &late, &y, 4) == BB_OK, "record");
    y = 1;
    CHECK(bb_record_event(rec, &late, &y, 4) == BB_OK, "record");
    wait_calls(&s, 1, 500);
    CHECK(calls(&s) == 1 && !strcmp(s.event, "late::Plugin"), "the late event fired (%d)",
          calls(&s));
    bb_recorder_free(rec);
    bb_registry_remove(&late);
}

int main(void) {
    slow_span();
    hung_span();
    field_rules();
    storm();
    bad_rules();
    late_event();
    return failures ? 1 : 0;
}
