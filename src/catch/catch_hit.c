/* catch_hit.c — the writer's side of in-process triggers: a record of an armed event bound to
 * the rules (once per event), span enters and exits matched, field conditions evaluated, the
 * firing handed to the trigger thread. No lock, no allocation; a semaphore post per firing. */
/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "backbeat/recorder.h"
#include "catch/catch_internal.h"

static uint32_t intern_cb(void *rec, const char *s) { return bb_intern_str(rec, s); }

/* A rule that cannot bind to an event registered after it was armed (its field unknown or of
 * another type): left out for that event, said once by the trigger thread. */
static void bind_failed(tc_engine *e, const char *err) {
    uint32_t none = 0;
    if (!__atomic_compare_exchange_n(&e->bind_err_state, &none, 1, false, __ATOMIC_ACQUIRE,
                                     __ATOMIC_RELAXED))
        return;
    size_t n = strlen(err);
    if (n >= sizeof e->bind_err) n = sizeof e->bind_err - 1;
    memcpy(e->bind_err, err, n);
    e->bind_err[n] = '\0';
    __atomic_store_n(&e->bind_err_state, 2, __ATOMIC_RELEASE);
    sem_post(&e->sem);
}

/* Bind every rule of `t` to event `d` into b (the caller owns the entry). */
static void bind_event(tc_engine *e, const tc_table *t, const bb_event_desc *d, tc_bound *b) {
    char err[256];
    b->nitems = 0;
    b->name_id = bb_intern_str(e->rec, d->name);
    b->name = d->name;
    for (uint32_t k = 0; k < t->nrules; k++) {
        const tg_rule *r = &t->rules[k];
        tc_item *it = &b->items[b->nitems];
        memset(it, 0, sizeof *it);
        it->rule = (uint8_t)k;
        bool named = tg_names(r, d->name);
        if (r->kind == TG_LOG) {
            if (!tg_log_fires(r, tc_log_level(d))) continue; /* a line at a level it names */
        } else if (r->kind == TG_SPAN) {
            if (named && d->phase == BB_PHASE_ENTER) it->role = TC_ENTER;
            else if (d->phase == BB_PHASE_EXIT && tg_closes_span(r, d->name)) it->role = TC_EXIT;
            else continue;
        } else if (!named) {
            continue;
        } else if (r->kind == TG_FIELD) {
            if (!tg_bind(r, d, intern_cb, e->rec, &it->cond, err, sizeof err)) {
                if (!strpbrk(r->pattern, "*?[")) bind_failed(e, err);
                continue;
            }
            it->has_cond = 1;
        }
        b->nitems++;
    }
}

/* The bindings of event `d` in table t, bound now on first sight (a thread meeting an entry
 * another thread is binding waits for it: an exit missed would leave its span open); NULL when
 * the table is full. */
static const tc_bound *bindings(tc_engine *e, tc_table *t, const bb_event_desc *d) {
    uint64_t id = d->id;
    for (uint32_t k = 0; k < TC_BOUND; k++) {
        tc_bound *b = &t->bound[(id + k) & (TC_BOUND - 1)];
        uint64_t cur = __atomic_load_n(&b->id, __ATOMIC_ACQUIRE);
        while (cur == 1) cur = __atomic_load_n(&b->id, __ATOMIC_ACQUIRE); /* bound in a moment */
        if (cur == id) return b;
        if (cur != 0) continue;
        uint64_t zero = 0;
        if (!__atomic_compare_exchange_n(&b->id, &zero, 1, false, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE)) {
            k--; /* look at this entry again */
            continue;
        }
        bind_event(e, t, d, b);
        __atomic_store_n(&b->id, id, __ATOMIC_RELEASE);
        return b;
    }
    return NULL;
}

static void span_open(tc_engine *e, uint32_t rule, const tc_bound *b, uint64_t sid, uint64_t ts) {
    if (sid == 0 || sid >= TC_GONE) return;
    for (uint32_t k = 0; k < 64; k++) {
        tc_span *s = &e->spans[(sid * 0x9E3779B97F4A7C15ull + k) & (TC_SPANS - 1)];
        uint64_t cur = __atomic_load_n(&s->sid, __ATOMIC_RELAXED);
        if (cur != 0 && cur != TC_GONE) continue;
        if (!__atomic_compare_exchange_n(&s->sid, &cur, TC_BUSY, false, __ATOMIC_ACQUIRE,
                                         __ATOMIC_RELAXED))
            continue;
        /* relaxed atomics: the trigger thread may read a reused slot's fields before its CAS on
         * sid (which then fails) */
        __atomic_store_n(&s->enter_ts, ts, __ATOMIC_RELAXED);
        __atomic_store_n(&s->rule, rule, __ATOMIC_RELAXED);
        __atomic_store_n(&s->name_id, b->name_id, __ATOMIC_RELAXED);
        __atomic_store_n(&s->name, b->name, __ATOMIC_RELAXED);
        __atomic_store_n(&s->shard, tc_shard_now(e->rec), __ATOMIC_RELAXED);
        __atomic_store_n(&s->sid, sid, __ATOMIC_RELEASE);
        return;
    }
    __atomic_fetch_add(&e->untracked, 1, __ATOMIC_RELAXED);
}

/* The span `sid` of rule `rule` ended at `ts`: fires when it lasted too long (unless the
 * watcher caught it hung, which removed it). */
static void span_close(tc_engine *e, const tc_table *t, uint32_t rule, uint64_t sid, uint64_t ts) {
    if (sid == 0 || sid >= TC_GONE) return;
    for (uint32_t k = 0; k < 64; k++) {
        tc_span *s = &e->spans[(sid * 0x9E3779B97F4A7C15ull + k) & (TC_SPANS - 1)];
        uint64_t cur = __atomic_load_n(&s->sid, __ATOMIC_ACQUIRE);
        if (cur == 0) return;
        if (cur != sid || __atomic_load_n(&s->rule, __ATOMIC_RELAXED) != rule) continue;
        uint64_t enter = __atomic_load_n(&s->enter_ts, __ATOMIC_RELAXED);
        uint32_t name_id = __atomic_load_n(&s->name_id, __ATOMIC_RELAXED);
        const char *name = __atomic_load_n(&s->name, __ATOMIC_RELAXED);
        uint32_t shard = __atomic_load_n(&s->shard, __ATOMIC_RELAXED);
        if (!__atomic_compare_exchange_n(&s->sid, &cur, TC_GONE, false, __ATOMIC_ACQ_REL,
                                         __ATOMIC_RELAXED))
            return; /* the watcher took it */
        uint64_t dur = ts > enter ? ts - enter : 0;
        if (dur > t->rules[rule].duration_ns)
            tc_fire(e, t, rule, name, name_id, enter, sid, dur, false, shard);
        return;
    }
}

/* Contract: see catch_internal.h (the recorder's hook, trigger_hook.h). */
void tc_hit(void *ctx, const bb_event_desc *d, const void *fields, uint64_t ts) {
    tc_engine *e = ctx;
    tc_table *t = __atomic_load_n(&e->tab, __ATOMIC_ACQUIRE);
    if (!t) return;
    const tc_bound *b = bindings(e, t, d);
    if (!b) return;
    for (uint32_t k = 0; k < b->nitems; k++) {
        const tc_item *it = &b->items[k];
        if (it->role == TC_ENTER) {
            span_open(e, it->rule, b, tg_span_id(d, fields), ts);
        } else if (it->role == TC_EXIT) {
            span_close(e, t, it->rule, tg_span_id(d, fields), ts);
        } else if (!it->has_cond || tg_cond_eval(&it->cond, fields, NULL, NULL)) {
            tc_fire(e, t, it->rule, b->name, b->name_id, ts, tg_span_id(d, fields), 0, false,
                    tc_shard_now(e->rec));
        }
    }
}
