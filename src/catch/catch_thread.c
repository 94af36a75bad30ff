/* catch_thread.c — the trigger thread of a recorder: it claims open spans past their deadline
 * (hung spans), waits out the after-window of a firing, then calls the callback or dumps, and
 * warns for rules naming no event once the recorder took its first record; and tc_fire, which
 * hands a firing to it from any thread. */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backbeat/recorder.h"
#include "capture/trigger_hook.h"
#include "catch/catch_internal.h"
#include "common/message.h"

/* Contract: see catch_internal.h. */
uint64_t tc_mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Contract: see catch_internal.h. */
uint32_t tc_shard_now(bb_recorder *rec) {
    const struct bb__recorder_hot *h = (const struct bb__recorder_hot *)(const void *)rec;
    return bb__shard_of(h, bb__cpu_hint(h));
}

static void copy_str(char *dst, size_t cap, const char *s) {
    size_t n = s ? strlen(s) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, s, n);
    dst[n] = '\0';
}

/* Contract: see catch_internal.h. */
void tc_fire(tc_engine *e, const tc_table *t, uint32_t rule, const char *name, uint32_t name_id,
             uint64_t ts, uint64_t sid, uint64_t duration, bool hung, uint32_t shard) {
    uint32_t idle = 0;
    if (!__atomic_compare_exchange_n(&e->pending, &idle, 1, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED)) {
        __atomic_fetch_add(&e->suppressed, 1, __ATOMIC_RELAXED); /* within an after-window */
        return;
    }
    uint64_t now = tc_mono_ns();
    uint64_t last = __atomic_load_n(&e->last_dump_mono, __ATOMIC_RELAXED);
    if (last && now - last < e->opts.throttle_ns) { /* within the throttle window */
        __atomic_store_n(&e->pending, 0, __ATOMIC_RELEASE);
        __atomic_fetch_add(&e->suppressed, 1, __ATOMIC_RELAXED);
        return;
    }
    copy_str(e->rule_text, sizeof e->rule_text, t->rules[rule].text);
    copy_str(e->event_name, sizeof e->event_name, name);
    e->firing = (bb_trigger_firing){.rule = e->rule_text,
                                    .event = e->event_name,
                                    .ts = ts,
                                    .span_id = sid,
                                    .duration_ns = duration,
                                    .hung = hung,
                                    .shard = shard,
                                    .after_ns = e->opts.after_ns};
    e->fire_mono = now;
    __atomic_fetch_add(&e->fired, 1, __ATOMIC_RELAXED);
    tc_event_record(e, &e->firing, t->rule_ids[rule], name_id);
    __atomic_store_n(&e->pending, 2, __ATOMIC_RELEASE);
    sem_post(&e->sem);
}

/* Claim the open spans of `t`'s rules older than their rule's duration. */
static void scan_spans(tc_engine *e, const tc_table *t) {
    uint64_t now = bb_recorder_now(e->rec);
    for (uint32_t k = 0; k < TC_SPANS; k++) {
        tc_span *s = &e->spans[k];
        uint64_t sid = __atomic_load_n(&s->sid, __ATOMIC_ACQUIRE);
        uint32_t rule = __atomic_load_n(&s->rule, __ATOMIC_RELAXED);
        if (sid == 0 || sid >= TC_GONE || rule >= t->nrules) continue;
        uint64_t enter = __atomic_load_n(&s->enter_ts, __ATOMIC_RELAXED);
        if (now <= enter || now - enter <= t->rules[rule].duration_ns) continue;
        uint32_t name_id = __atomic_load_n(&s->name_id, __ATOMIC_RELAXED);
        const char *name = __atomic_load_n(&s->name, __ATOMIC_RELAXED);
        uint32_t shard = __atomic_load_n(&s->shard, __ATOMIC_RELAXED);
        if (__atomic_compare_exchange_n(&s->sid, &sid, TC_GONE, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED))
            tc_fire(e, t, rule, name, name_id, enter, sid, now - enter, true, shard);
    }
}

static void dump_into_dir(tc_engine *e) {
    char path[4200];
    snprintf(path, sizeof path, "%s/trigger.%016llx.%u.bb", e->dump_dir,
             (unsigned long long)bb_recorder_instance_id(e->rec), ++e->ndumps);
    bb_error err;
    static int reported;
    if (bb_recorder_dump_path(e->rec, path, NULL, &err) != BB_OK && !reported++) {
        char msg[4600];
        snprintf(msg, sizeof msg, "trigger dump %s failed: %s", path, err.message);
        bb__message(msg);
    }
}

/* The firing in the slot: the after-window, then the callback or the dump. */
static void deliver(tc_engine *e) {
    uint64_t until = e->fire_mono + e->firing.after_ns;
    for (uint64_t now = tc_mono_ns(); now < until && !__atomic_load_n(&e->stop, __ATOMIC_ACQUIRE);
         now = tc_mono_ns()) {
        uint64_t d = until - now > 10000000u ? 10000000u : until - now;
        struct timespec ts = {(time_t)(d / 1000000000u), (long)(d % 1000000000u)};
        nanosleep(&ts, NULL);
    }
    __atomic_store_n(&e->last_dump_mono, tc_mono_ns() | 1, __ATOMIC_RELAXED);
    uint64_t sup = __atomic_load_n(&e->suppressed, __ATOMIC_RELAXED);
    e->firing.suppressed = sup - e->suppressed_seen;
    e->suppressed_seen = sup;
    if (e->opts.fn) e->opts.fn(e->rec, &e->firing, e->opts.ctx);
    else if (e->dump_dir[0]) dump_into_dir(e);
    __atomic_store_n(&e->pending, 0, __ATOMIC_RELEASE);
}

/* Contract: see catch_internal.h. */
void *tc_thread(void *arg) {
    tc_engine *e = arg;
    while (!__atomic_load_n(&e->stop, __ATOMIC_ACQUIRE)) {
        const tc_table *t = __atomic_load_n(&e->tab, __ATOMIC_ACQUIRE);
        bool unknown = __atomic_load_n(&e->unknown, __ATOMIC_ACQUIRE) != 0;
        if ((t && t->spans) || unknown) {
            uint64_t wait = t && t->spans ? TC_POLL_NS : TC_UNKNOWN_POLL_NS;
            struct timespec abs;
            clock_gettime(CLOCK_MONOTONIC, &abs);
            abs.tv_nsec += (long)wait;
            if (abs.tv_nsec >= 1000000000L) abs.tv_sec++, abs.tv_nsec -= 1000000000L;
            while (sem_clockwait(&e->sem, CLOCK_MONOTONIC, &abs) != 0 && errno == EINTR) {}
            if (t && t->spans) scan_spans(e, t);
        } else {
            while (sem_wait(&e->sem) != 0 && errno == EINTR) {}
        }
        if (__atomic_load_n(&e->pending, __ATOMIC_ACQUIRE) == 2) deliver(e);
        if (__atomic_load_n(&e->bind_err_state, __ATOMIC_ACQUIRE) == 2) {
            char msg[sizeof e->bind_err + 64];
            snprintf(msg, sizeof msg, "trigger %s; left out for that event", e->bind_err);
            bb__message(msg);
            __atomic_store_n(&e->bind_err_state, 3, __ATOMIC_RELAXED);
        }
        if (unknown && bb__recorder_took_record(e->rec)) tc_warn_unknown(e);
    }
    if (__atomic_load_n(&e->unknown, __ATOMIC_ACQUIRE) && bb__recorder_took_record(e->rec))
        tc_warn_unknown(e); /* stopped within a poll of the first record */
    if (__atomic_load_n(&e->pending, __ATOMIC_ACQUIRE) == 2)
        deliver(e); /* a firing the stop overtook (an exit in its after-window): no wait */
    return NULL;
}
