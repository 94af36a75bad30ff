/* catch_check.c — trigger rules checked against the registered events: a bad field or value of
 * an event a rule names is an error when the rule is added; a rule naming no event is warned for
 * once the recorder took its first record (the trigger thread asks). */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/registry.h"
#include "catch/catch_internal.h"
#include "common/error_set.h"
#include "common/message.h"

/* Contract: see catch_internal.h. */
int tc_log_level(const bb_event_desc *d) {
    const char *desc = d->description;
    return tg_log_site_level(d->name, desc, desc ? strlen(desc) : 0);
}

static bool has_glob(const char *p) { return strpbrk(p, "*?[") != NULL; }

/* Check rule r against the registered events: a bad field or value of an event it names is an
 * error. *named: whether a registered event (or log call site) is one it names. */
static bb_status check_rule(const tg_rule *r, const bb_event_desc **evs, size_t n, bool *named,
                            bb_error *err) {
    bool any = false;
    char msg[256];
    for (size_t i = 0; i < n; i++) {
        any |= tg_log_fires(r, tc_log_level(evs[i]));
        if (!tg_names(r, evs[i]->name)) continue;
        any = true;
        tg_cond c;
        if (r->kind == TG_FIELD && !tg_bind(r, evs[i], NULL, NULL, &c, msg, sizeof msg) &&
            !has_glob(r->pattern))
            return bb__err_set(err, BB_ERR_INVALID, UINT64_MAX, NULL, "%s", msg);
    }
    *named = any;
    return BB_OK;
}

/* The registered events (a snapshot, to free), their count in *n; NULL when out of memory. */
static const bb_event_desc **registered(size_t *n) {
    size_t cap = bb_registry_snapshot(NULL, 0) + 16;
    const bb_event_desc **evs = calloc(cap, sizeof *evs);
    if (!evs) return NULL;
    *n = bb_registry_snapshot(evs, cap);
    if (*n > cap) *n = cap;
    return evs;
}

/* Contract: see catch_internal.h. */
bb_status tc_check_rules(const tg_rule *rules, size_t n, uint32_t *unknown, bb_error *err) {
    size_t ne = 0;
    const bb_event_desc **evs = registered(&ne);
    if (!evs) return bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "out of memory");
    bb_status st = BB_OK;
    *unknown = 0;
    for (size_t k = 0; k < n && st == BB_OK; k++) {
        bool named = true;
        st = check_rule(&rules[k], evs, ne, &named, err);
        if (!named) *unknown |= 1u << k;
    }
    free(evs);
    return st;
}

/* Contract: see catch_internal.h. */
void tc_warn_unknown(tc_engine *e) {
    uint32_t unknown = __atomic_exchange_n(&e->unknown, 0, __ATOMIC_ACQ_REL);
    const tc_table *t = __atomic_load_n(&e->tab, __ATOMIC_ACQUIRE);
    size_t ne = 0;
    const bb_event_desc **evs = unknown && t ? registered(&ne) : NULL;
    for (size_t k = 0; evs && k < t->nrules; k++) {
        bool named = true;
        bb_error err;
        if (!(unknown & (1u << k)) || check_rule(&t->rules[k], evs, ne, &named, &err) != BB_OK ||
            named)
            continue; /* (a binding error is the writer's to report, as for a late event) */
        char msg[TG_RULE_TEXT + 160];
        snprintf(msg, sizeof msg,
                 "warning: trigger rule '%s' names no registered %s; it stays armed for one "
                 "that registers later",
                 t->rules[k].text, t->rules[k].kind == TG_LOG ? "log line at that level" : "event");
        bb__message(msg);
    }
    free(evs);
}
