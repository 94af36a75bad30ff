/* rule.h — trigger rules: their grammar (one for the environment, the API and the CLI), their
 * binding to an event's schema, and their evaluation on a record's field bytes.
 *
 *   RULES := RULE (';' RULE)*
 *   RULE  := 'span' NAME '>' DURATION      a span of that name lasted (or is open) longer
 *          | NAME                          any record of that event
 *          | NAME FIELD OP VALUE           OP: == != < <= > >=
 *          | 'log' OP LEVEL                a log line (BB_LOG, BB_GLOG) whose level compares so
 *   NAME  := a qualified event name, '*' and '?' as in `convert --event` (fnmatch)
 *   DURATION := integer or decimal with unit ns, us, ms or s (250us, 50ms, 2s)
 *   VALUE := integer | float | enum label (identifier) | "quoted string" (interned fields)
 *   LEVEL := trace | debug | info | warn | error | fatal (any case; "warning" is warn)
 *
 * Errors name the rule and the column (1-based, in the whole text given) of the mistake.
 * Knows nothing of recorders or readers: both libraries use it (in-process triggers, `watch`).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BACKBEAT_TRIGGER_RULE_H
#define BACKBEAT_TRIGGER_RULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/schema.h"

#define TG_RULE_TEXT 256 /* bytes of a rule's text, NUL included */
#define TG_NAME_MAX 128
#define TG_FIELD_MAX 64
#define TG_STR_MAX 128
#define TG_MAX_RULES 16

typedef enum tg_kind { TG_SPAN = 0, TG_EVENT = 1, TG_FIELD = 2, TG_LOG = 3 } tg_kind;
typedef enum tg_op { TG_EQ = 0, TG_NE, TG_LT, TG_LE, TG_GT, TG_GE } tg_op;
typedef enum tg_vkind { TG_V_INT = 0, TG_V_FLOAT, TG_V_LABEL, TG_V_STRING } tg_vkind;

/* One rule as written. */
typedef struct tg_rule {
    tg_kind kind;
    char text[TG_RULE_TEXT]; /* the rule, trimmed */
    size_t column;           /* 1-based column of the rule's first character in the text */
    char pattern[TG_NAME_MAX];
    char field[TG_FIELD_MAX];
    size_t field_col, value_col; /* columns, for binding errors */
    tg_op op;
    tg_vkind vkind;
    bool neg;             /* TG_V_INT: the value is -mag */
    uint64_t mag;         /* TG_V_INT: magnitude */
    double fval;          /* TG_V_FLOAT (and TG_V_INT as a double) */
    char str[TG_STR_MAX]; /* TG_V_LABEL / TG_V_STRING */
    uint64_t duration_ns; /* TG_SPAN */
    int level;            /* TG_LOG: 0 trace .. 5 fatal (compared with `op`) */
} tg_rule;

/* Parse `text` (rules separated by ';'; empty rules are skipped) into out[cap]; *n = count.
 * Returns true, or false with a one-line message in err[errcap] naming the rule and the column
 * (rules parsed before the bad one are in out[0..*n)). */
bool tg_parse(const char *text, tg_rule *out, size_t cap, size_t *n, char *err, size_t errcap);

/* Parse a duration ("250us", "50ms", "2s", "1.5s", "0"): true and *ns, or false. */
bool tg_parse_duration(const char *s, uint64_t *ns);

/* The level (0 trace .. 5 fatal) of a log call site's event (name "backbeat.log::...", its
 * description "backbeat-log 1\nlevel: LEVEL\n...", docs/LOG_LINES.md), -1 for another event.
 * `desc` may be NULL (-1); it need not be NUL-terminated (desc_len bytes). */
int tg_log_site_level(const char *name, const char *desc, size_t desc_len);

/* True when log rule `r` fires on a line of level `level` (a TG_LOG rule; false for others and
 * for level -1). */
bool tg_log_fires(const tg_rule *r, int level);

/* True when the rule's pattern names the event called `name` (fnmatch, as `convert --event`);
 * never for a log rule (it names levels: tg_log_fires). */
bool tg_names(const tg_rule *r, const char *name);

/* True when exit event `name` closes the spans of span rule `r`: its name matches the rule's
 * pattern, or it lies in the pattern's namespace (RequestBegin / RequestEnd). */
bool tg_closes_span(const tg_rule *r, const char *name);

/* A FIELD rule bound to one event's schema: where the field is and what to compare with. */
typedef struct tg_cond {
    uint16_t offset, width;
    uint8_t type; /* enum bb_type */
    uint8_t cmp;  /* TG_CMP_* */
    tg_op op;
    uint64_t u;      /* unsigned / enum / bool / interned id */
    int64_t i;       /* signed */
    double f;        /* float comparisons */
    const char *str; /* TG_CMP_STRING: the rule's string (compared through a resolver) */
} tg_cond;
enum { TG_CMP_UNSIGNED = 0, TG_CMP_SIGNED, TG_CMP_FLOAT, TG_CMP_STRING, TG_CMP_NEVER };

/* Bind field rule `r` to event `ev` (its name matched). Interned fields compare strings: with
 * `intern` non-NULL the string is turned into an id once (the in-process table: equal bytes,
 * equal id), else through the resolver given to tg_cond_eval. Returns true, or false with a
 * message in err[errcap] (unknown field, a VALUE of the wrong type, an unknown label). */
bool tg_bind(const tg_rule *r, const bb_event_desc *ev, uint32_t (*intern)(void *, const char *),
             void *intern_ctx, tg_cond *out, char *err, size_t errcap);

/* Does the record's field bytes `fields` (the event's record_size) satisfy `c`? `resolve`
 * (NULL: compare interned ids) returns the string of an interned id, or NULL. */
bool tg_cond_eval(const tg_cond *c, const uint8_t *fields, const char *(*resolve)(void *, uint32_t),
                  void *resolve_ctx);

/* The span id of a record of `ev` (its span_id field), 0 when it has none. */
uint64_t tg_span_id(const bb_event_desc *ev, const uint8_t *fields);

#endif /* BACKBEAT_TRIGGER_RULE_H */
