/* table/layout.h — the shape of backbeat's sparse-wide Parquet table for one model
 * (FORMAT.md, "What the reference CLI makes of a dump"), and where each event field goes.
 *
 * Names and types are a function of the event, not of which dumps were converted together.
 * Columns, in order: the dense REQUIRED `seq`, `ts_nanos`, `event`, `event_id`,
 * `instance_id`, then OPTIONAL `ts` (INT64 TIMESTAMP(NANOS, UTC): ts_nanos, NULL past
 * 2^63-1 ns, year 2262), OPTIONAL `pid` (UINT64: the OS pid of the record's instance, from its
 * dump's Process section; NULL when the dump has none); then the promoted role fields (key, span_id, parent_span_id) as top-level OPTIONAL columns, unioned
 * by name across events in registry order; then one OPTIONAL group per qualified event name
 * (whatever versions, i.e. event ids, are present), holding the union by field name of every
 * version's other fields as OPTIONAL leaves (a field a version lacks is NULL on its rows). A
 * leaf's type is the join of its fields' kinds (table/widen.h), never the first one seen.
 * The `event` column and the views carry the qualified name (no "#<id>" suffix: `event_id`
 * tells versions apart).
 *
 * Name clashes (which the format does not rule out) are resolved so the schema stays valid:
 * a role field whose name is a dense column's or an event's name, or that repeats a
 * name already promoted for the same event, stays in its event's group instead ("demoted");
 * a group whose name equals a dense column's gets "#2" appended; repeated
 * field names inside one version get "#2", "#3", ... After every rename the names are unique:
 * a name already taken among its siblings (the root's columns and groups, or one group's
 * leaves) gets the next "#k" (k = 2, 3, ...) that is free. A NUL byte in an event or field
 * name is written as the two characters "\0" in every name the table carries (columns,
 * groups, the `event` column, the views).
 */
/* SPDX-License-Identifier: MIT */
#ifndef BB_CONVERT_LAYOUT_H
#define BB_CONVERT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backbeat/model.h"
#include "logfmt/logfmt.h"
#include "parquet/column.h"
#include "parquet/footer.h"

/* Leaf indices of the dense columns. */
enum {
    PQ_L_SEQ = 0,
    PQ_L_TS = 1,
    PQ_L_EVENT = 2,
    PQ_L_EVENT_ID = 3,
    PQ_L_INSTANCE = 4,
    PQ_L_TSTAMP = 5,
    PQ_L_PID = 6, /* OPTIONAL UINT64: the instance's OS pid, NULL when its dump has none */
    PQ_DENSE = 7
};

/* Where one field of an event goes. */
typedef struct tw_fmap {
    int32_t leaf;     /* leaf (column) index */
    int32_t node;     /* schema node of that leaf */
    uint8_t null_def; /* definition level of a NULL value: 1 in a group, 0 when promoted */
    uint8_t fast;     /* PQ_FAST_*: decode inline (integer / bool into its natural column) */
    bool promoted;
    bool pad; /* padding (bb_rfield_is_padding): no column, leaf and node -1 */
} tw_fmap;

enum {
    PQ_FAST_NONE = 0,
    PQ_FAST_UNSIGNED = 1,
    PQ_FAST_SIGNED = 2,
    PQ_FAST_BOOL = 3,
    PQ_FAST_STRING = 4 /* enum label or interned text into a STRING leaf: the decoded text
                             cached by the raw value (table/table_row.c) */
};

/* One event type of the model. */
typedef struct tw_plan {
    uint64_t id;
    const bb_rschema *schema; /* the model's (union registry) schema */
    const char *display;      /* the qualified name, NULs escaped as "\\0" (= display_own) */
    size_t display_len;
    char *display_own; /* owned */
    bool first;        /* first plan (version) of its name in registry order */
    int group_node;    /* schema node of its name's group, -1 when it has none */
    tw_fmap *map;      /* per field of the schema */
    int32_t *missing;  /* leaves of the group this version has no field for */
    size_t nmissing;
    pq_dict_cache c_event, c_id;
    bool log;     /* a log call site (docs/LOG_LINES.md): its rows fill `log_message` */
    lf_site site; /* valid if log (views into the schema) */
} tw_plan;

typedef struct tw_leaf {
    pq_type type;
    uint8_t kind; /* tw_kind (table/widen.h): the join of its fields' kinds */
    int max_def;
    bool dict;
    int node;
} tw_leaf;

/* A promoted column. */
typedef struct tw_promoted {
    int leaf;
    int node;
    uint8_t role; /* role of its first declaration in registry order */
} tw_promoted;

typedef struct tw_layout {
    pq_node *nodes;
    size_t nnodes;
    tw_leaf *leaves;
    size_t nleaves;
    tw_plan *plans; /* model schema order */
    size_t nplans;
    tw_promoted *prom;
    size_t nprom;
    uint32_t *lookup; /* hash table id -> plan index + 1 */
    size_t lookup_mask;
    int32_t log_leaf; /* the OPTIONAL STRING `log_message` column right after the dense ones
                         (leaf PQ_DENSE), -1 when the model has no log call site */
} tw_layout;

/* Build the layout of `model`. Returns false on allocation failure (*lay is then freed). */
bool tw_layout_build(const bb_model *model, tw_layout *lay);
void tw_layout_free(tw_layout *lay);

/* The plan of event `id`, or NULL if the model has no such schema. */
tw_plan *tw_layout_find(const tw_layout *lay, uint64_t id);

/* The Parquet-side type of a backbeat field type. */
pq_type tw_type_of_field(uint8_t bb_type);

/* Printable names: field type (format/names.h's bb__type_name, "unknown" for a type the format
 * does not define), table type ("UINT64", ...). Roles and phases: bb__role_name, bb__phase_name. */
const char *tw_field_type_name(uint8_t type);
const char *tw_type_name(pq_type t);

#endif /* BB_CONVERT_LAYOUT_H */
