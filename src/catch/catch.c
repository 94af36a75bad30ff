/* catch.c — in-process triggers of a recorder (backbeat/trigger.h): its engine created on first
 * use, rules parsed, checked against the registered events (catch_check.c) and armed, the trigger
 * thread. */
/* SPDX-License-Identifier: MIT */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/registry.h"
#include "backbeat/trigger.h"
#include "capture/trigger_hook.h"
#include "catch/catch_internal.h"
#include "common/error_set.h"

#define TC_PATTERNS 256
/* Every rule ever armed in this process, for the arming rule (read under the registry's lock,
 * appended under g_lock, never removed: an armed event no rule of a recorder names costs that
 * recorder one lookup). */
static tg_rule g_armed[TC_PATTERNS];
static uint32_t g_narmed; /* atomic */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static bool want(const bb_event_desc *d) {
    if (!d->name || tc_is_own_event(d)) return false;
    uint32_t n = __atomic_load_n(&g_narmed, __ATOMIC_ACQUIRE);
    int level = tc_log_level(d);
    for (uint32_t k = 0; k < n; k++) {
        const tg_rule *r = &g_armed[k];
        if (r->kind == TG_LOG) {
            if (tg_log_fires(r, level)) return true;
        } else if (r->kind == TG_SPAN
                       ? (d->phase == BB_PHASE_ENTER && tg_names(r, d->name)) ||
                             (d->phase == BB_PHASE_EXIT && tg_closes_span(r, d->name))
                       : tg_names(r, d->name))
            return true;
    }
    return false;
}

static void arm(const tg_rule *rules, size_t n) {
    pthread_mutex_lock(&g_lock);
    for (size_t k = 0; k < n && g_narmed < TC_PATTERNS; k++) {
        g_armed[g_narmed] = rules[k];
        __atomic_store_n(&g_narmed, g_narmed + 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&g_lock);
    bb__registry_arm(want);
}

static void engine_stop(tc_engine *e) {
    if (!e->running) return;
    __atomic_store_n(&e->stop, true, __ATOMIC_RELEASE);
    sem_post(&e->sem);
    pthread_join(e->thread, NULL);
    e->running = false;
}

static void engine_drop(void *ctx) {
    tc_engine *e = ctx;
    engine_stop(e);
    for (tc_table *t = e->tab, *o; t; t = o) {
        o = t->older;
        free(t);
    }
    sem_destroy(&e->sem);
    pthread_mutex_destroy(&e->lock);
    free(e);
}

/* The engine of `rec`, created on first use. */
static tc_engine *engine_of(bb_recorder *rec) {
    pthread_mutex_lock(&g_lock);
    tc_engine *e = bb__recorder_trigger_ctx(rec);
    if (!e && (e = calloc(1, sizeof *e)) != NULL) {
        e->rec = rec;
        e->opts.throttle_ns = 1000000000ull;
        pthread_mutex_init(&e->lock, NULL);
        sem_init(&e->sem, 0, 0);
        bb__recorder_set_trigger(rec, tc_hit, e, engine_drop);
    }
    pthread_mutex_unlock(&g_lock);
    return e;
}

/* A new table: the rules of the current one and `add`, published over it. */
static bb_status publish(tc_engine *e, const tg_rule *add, size_t n, bb_error *err) {
    tc_table *old = e->tab;
    size_t have = old ? old->nrules : 0;
    if (have + n > TG_MAX_RULES)
        return bb__err_set(err, BB_ERR_FULL, UINT64_MAX, NULL,
                           "trigger rules: at most %d per recorder", TG_MAX_RULES);
    tc_table *t = calloc(1, sizeof *t);
    if (!t) return bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "out of memory");
    if (old) memcpy(t->rules, old->rules, have * sizeof t->rules[0]);
    memcpy(t->rules + have, add, n * sizeof add[0]);
    t->nrules = have + n;
    for (size_t k = 0; k < t->nrules; k++) {
        t->rule_ids[k] = bb_intern_str(e->rec, t->rules[k].text);
        t->spans |= t->rules[k].kind == TG_SPAN;
    }
    t->older = old;
    __atomic_store_n(&e->tab, t, __ATOMIC_RELEASE);
    return BB_OK;
}

static bb_status start(tc_engine *e, bb_error *err) {
    if (e->running) return BB_OK;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&e->thread, NULL, tc_thread, e);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc)
        return bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "trigger thread: %s", strerror(rc));
    e->running = true;
    return BB_OK;
}

/* Contract: see trigger.h. */
bb_status bb_recorder_trigger_add(bb_recorder *rec, const char *text, bb_error *err) {
    bb__err_clear(err);
    if (!rec || !text)
        return bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "no recorder or rule");
    static tg_rule rules[TG_MAX_RULES]; /* under g_parse */
    static pthread_mutex_t g_parse = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&g_parse);
    size_t n;
    char msg[256];
    bb_status st = BB_OK;
    tc_engine *e = NULL;
    uint32_t unknown = 0;
    if (!tg_parse(text, rules, TG_MAX_RULES, &n, msg, sizeof msg))
        st = bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "%s", msg);
    else if (n && (st = tc_check_rules(rules, n, &unknown, err)) == BB_OK && !(e = engine_of(rec)))
        st = bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "out of memory");
    if (e) {
        tc_event_register();
        pthread_mutex_lock(&e->lock);
        size_t have = e->tab ? e->tab->nrules : 0;
        if ((st = publish(e, rules, n, err)) == BB_OK) {
            /* Named events may register after this (a recorder built at load, before the
             * program's constructors): the trigger thread warns after the first record. */
            __atomic_or_fetch(&e->unknown, unknown << have, __ATOMIC_RELEASE);
            st = start(e, err);
        }
        pthread_mutex_unlock(&e->lock);
        if (st == BB_OK) arm(rules, n);
    }
    pthread_mutex_unlock(&g_parse);
    return st;
}

/* Contract: see trigger.h. */
bb_status bb_recorder_trigger_options(bb_recorder *rec, const bb_trigger_options *opts,
                                      bb_error *err) {
    bb__err_clear(err);
    if (!rec || !opts || (!opts->fn && !opts->dump_dir))
        return bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL,
                           "trigger options: a callback or a dump directory is needed");
    if (opts->dump_dir && strlen(opts->dump_dir) >= 4000)
        return bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL,
                           "trigger options: dump directory too long");
    tc_engine *e = engine_of(rec);
    if (!e) return bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "out of memory");
    pthread_mutex_lock(&e->lock);
    e->opts = *opts;
    if (!e->opts.throttle_ns) e->opts.throttle_ns = 1000000000ull;
    snprintf(e->dump_dir, sizeof e->dump_dir, "%s", opts->dump_dir ? opts->dump_dir : "");
    e->opts.dump_dir = e->dump_dir;
    pthread_mutex_unlock(&e->lock);
    return BB_OK;
}

/* Contract: see trigger.h. */
void bb_recorder_trigger_stats(bb_recorder *rec, bb_trigger_stats *out) {
    memset(out, 0, sizeof *out);
    tc_engine *e = rec ? bb__recorder_trigger_ctx(rec) : NULL;
    if (!e) return;
    out->fired = __atomic_load_n(&e->fired, __ATOMIC_RELAXED);
    out->suppressed = __atomic_load_n(&e->suppressed, __ATOMIC_RELAXED);
    out->spans_untracked = __atomic_load_n(&e->untracked, __ATOMIC_RELAXED);
}

/* Contract: see trigger.h. */
void bb_recorder_trigger_clear(bb_recorder *rec) {
    tc_engine *e = rec ? bb__recorder_trigger_ctx(rec) : NULL;
    if (!e) return;
    bb__recorder_set_trigger(rec, NULL, e, engine_drop);
    engine_stop(e);
}
