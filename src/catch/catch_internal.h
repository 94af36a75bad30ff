/* catch_internal.h — what the in-process trigger engine's files share: the engine of one
 * recorder, its rule tables, its open spans and its firing slot. */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_CATCH_INTERNAL_H
#define BACKBEAT_CATCH_INTERNAL_H

#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>

#include "backbeat/trigger.h"
#include "trigger/rule.h"

#define TC_BOUND 512          /* events a table can bind (power of two) */
#define TC_SPANS 2048         /* spans a span rule can hold open at once (power of two) */
#define TC_POLL_NS 2000000ull /* how often open spans are checked while span rules are armed */
#define TC_UNKNOWN_POLL_NS \
    50000000ull /* how often, while a rule names no event, the thread
                                          looks for the recorder's first record */

enum { TC_PLAIN = 0, TC_ENTER = 1, TC_EXIT = 2 };

/* One rule's binding to one event. */
typedef struct tc_item {
    uint8_t rule;
    uint8_t role; /* TC_* */
    uint8_t has_cond;
    tg_cond cond;
} tc_item;

/* One event's bindings: id is 0 (free), 1 (being filled) or the event's id (ready). */
typedef struct tc_bound {
    uint64_t id;      /* atomic */
    uint32_t name_id; /* the event's name, interned */
    const char *name;
    uint32_t nitems;
    tc_item items[TG_MAX_RULES];
} tc_bound;

/* The rules armed at one moment, immutable once published (a later add publishes a new one). */
typedef struct tc_table {
    tg_rule rules[TG_MAX_RULES];
    uint32_t rule_ids[TG_MAX_RULES]; /* each rule's text, interned */
    size_t nrules;
    bool spans; /* a span rule is armed */
    tc_bound bound[TC_BOUND];
    struct tc_table *older; /* kept until the engine is freed (writers may still read it) */
} tc_table;

/* An open span of a span rule: sid 0 (free), TC_BUSY (being filled), TC_GONE (closed) or ready. */
#define TC_BUSY UINT64_MAX
#define TC_GONE (UINT64_MAX - 1)
typedef struct tc_span {
    uint64_t sid; /* atomic */
    uint64_t enter_ts;
    uint32_t rule, name_id;
    uint32_t shard; /* the enter's (where the calling thread records), for the firing */
    const char *name;
} tc_span;

typedef struct tc_engine {
    bb_recorder *rec;
    pthread_mutex_t lock; /* adds and options */
    tc_table *tab;        /* atomic */
    bb_trigger_options opts;
    char dump_dir[4096];
    tc_span spans[TC_SPANS];
    /* the firing slot: pending (atomic) 0 idle, 1 claimed, 2 ready for the thread */
    uint32_t pending;
    bb_trigger_firing firing;
    char rule_text[TG_RULE_TEXT], event_name[TG_NAME_MAX];
    uint64_t fire_mono;
    uint64_t last_dump_mono;                                /* atomic; 0: none yet */
    uint64_t fired, suppressed, untracked, suppressed_seen; /* atomic */
    uint32_t ndumps;
    uint32_t unknown;        /* atomic: bit k, rule k of the table named no registered event when it
                         was added (checked again after the recorder's first record) */
    uint32_t bind_err_state; /* atomic: 0 none, 1 being written, 2 ready, 3 reported */
    char bind_err[256];      /* a rule that could not bind to an event registered late */
    sem_t sem;
    pthread_t thread;
    bool running, stop; /* stop: atomic */
} tc_engine;

/* The writer's side (catch_hit.c): the recorder hook, and the firing of a rule. */
void tc_hit(void *ctx, const bb_event_desc *d, const void *fields, uint64_t ts);
/* The level of a log call site's event (0 trace .. 5 fatal), -1 for another event
 * (catch_check.c). */
int tc_log_level(const bb_event_desc *d);
/* `shard`: the matching record's (the calling thread's for a record rule, the enter's for a
 * span rule), what the backbeat::Trigger record's `shard` says. */
void tc_fire(tc_engine *e, const tc_table *t, uint32_t rule, const char *name, uint32_t name_id,
             uint64_t ts, uint64_t sid, uint64_t duration, bool hung, uint32_t shard);
/* The shard the calling thread records into now. */
uint32_t tc_shard_now(bb_recorder *rec);
/* Check `rules` against the registered events (catch_check.c): BB_ERR_INVALID and a message
 * for a bad field or value of an event a rule names; bit k of *unknown set when rule k names no
 * registered event (or log call site). */
bb_status tc_check_rules(const tg_rule *rules, size_t n, uint32_t *unknown, bb_error *err);
/* Warn on stderr, once, for each rule of `e->unknown` that still names no registered event (or
 * log call site), and clear it (catch_check.c). Called by the trigger thread once the recorder took
 * its first record: the program's events registered by then (constructors run after a library
 * built at load) are not warned for. */
void tc_warn_unknown(tc_engine *e);
/* The trigger thread (catch_thread.c): open spans past their deadline, the after-window, the
 * callback or the dump. */
void *tc_thread(void *arg);
uint64_t tc_mono_ns(void);
/* The backbeat::Trigger event (catch_event.c): registered once, recorded at each firing. */
void tc_event_register(void);
void tc_event_record(tc_engine *e, const bb_trigger_firing *f, uint32_t rule_id, uint32_t name_id);
/* The arming rule (catch_arm.c): every pattern ever armed in this process. */
bool tc_arm_patterns(const tc_table *t);
/* Is `d` the engine's own event (never armed)? */
bool tc_is_own_event(const bb_event_desc *d);

#endif /* BACKBEAT_CATCH_INTERNAL_H */
