/* table/layout.c — the sparse-wide table's schema for a model (see table/layout.h). */
/* SPDX-License-Identifier: MIT */
#include "table/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/schema.h"
#include "table/widen.h"
#include "format/names.h"

static const char *const DENSE_NAMES[PQ_DENSE] = {"seq",         "ts_nanos", "event", "event_id",
                                                  "instance_id", "ts",       "pid"};
static const pq_type DENSE_TYPES[PQ_DENSE] = {PQ_UINT64, PQ_UINT64, PQ_STRING, PQ_UINT64,
                                              PQ_UINT64, PQ_INT64,  PQ_UINT64};
static const bool DENSE_DICT[PQ_DENSE] = {false, false, true, true, true, false, true};

pq_type tw_type_of_field(uint8_t t) {
    switch (t) {
    case BB_TYPE_U64: return PQ_UINT64;
    case BB_TYPE_U8: /* INT64 holds every value: the column type of i8..i64 versions too */
    case BB_TYPE_U16:
    case BB_TYPE_U32:
    case BB_TYPE_I8:
    case BB_TYPE_I16:
    case BB_TYPE_I32:
    case BB_TYPE_I64: return PQ_INT64;
    case BB_TYPE_BOOL: return PQ_BOOLEAN;
    default: return PQ_STRING;
    }
}

const char *tw_field_type_name(uint8_t t) {
    const char *n = bb__type_name(t);
    return n ? n : "unknown";
}

const char *tw_type_name(pq_type t) {
    switch (t) {
    case PQ_BOOLEAN: return "BOOLEAN";
    case PQ_INT64: return "INT64";
    case PQ_UINT64: return "UINT64";
    case PQ_STRING: return "STRING";
    case PQ_DOUBLE: return "DOUBLE";
    }
    return "STRING";
}

/* The widening kind of field `fd` of a plan: a log call site's double argument is DOUBLE
 * (LOG_LINES.md), every other field the kind of its type. */
static tw_kind field_kind(bool log, const bb_rfield *fd) {
    return log && lf_arg_is_double(fd) ? PQ_KIND_DOUBLE : tw_kind_of_field(fd->type);
}

/* Growable arrays of nodes and leaves. */
typedef struct builder {
    tw_layout *lay;
    size_t node_cap, leaf_cap, prom_cap;
    int group; /* the node emit_group made */
    bool failed;
} builder;

/* NUL-terminated malloc'ed copy of (p, n), NULL if out of memory. */
static char *dup_n(const char *p, size_t n) {
    char *s = malloc(n + 1);
    if (s) {
        if (n) memcpy(s, p, n);
        s[n] = 0;
    }
    return s;
}

/* Append a node (taking ownership of `name`); returns its index or -1. */
static int add_node(builder *b, char *name, bool optional, int nchildren, pq_type type,
                    int parent) {
    tw_layout *l = b->lay;
    if (!name) {
        b->failed = true;
        return -1;
    }
    if (l->nnodes == b->node_cap) {
        size_t cap = b->node_cap ? b->node_cap * 2 : 64;
        pq_node *n = realloc(l->nodes, cap * sizeof *n);
        if (!n) {
            free(name);
            b->failed = true;
            return -1;
        }
        l->nodes = n;
        b->node_cap = cap;
    }
    l->nodes[l->nnodes] = (pq_node){.name = name,
                                    .optional = optional,
                                    .num_children = nchildren,
                                    .type = type,
                                    .parent = parent};
    return (int)l->nnodes++;
}

/* Append a leaf node and its column (taking ownership of `name`); its leaf index or -1. */
static int add_leaf(builder *b, char *name, bool optional, pq_type type, int parent, int max_def,
                    bool dict) {
    tw_layout *l = b->lay;
    if (l->nleaves == b->leaf_cap) {
        size_t cap = b->leaf_cap ? b->leaf_cap * 2 : 64;
        tw_leaf *n = realloc(l->leaves, cap * sizeof *n);
        if (!n) {
            free(name);
            b->failed = true;
            return -1;
        }
        l->leaves = n;
        b->leaf_cap = cap;
    }
    int node = add_node(b, name, optional, 0, type, parent);
    if (node < 0) return -1;
    l->leaves[l->nleaves] = (tw_leaf){.type = type,
                                      .kind = PQ_KIND_STRING,
                                      .max_def = max_def,
                                      .dict = dict && type != PQ_BOOLEAN,
                                      .node = node};
    return (int)l->nleaves++;
}

/* True if NUL-terminated `s` equals (p, n). */
static bool name_eq(const char *s, const char *p, size_t n) {
    return strlen(s) == n && (n == 0 || memcmp(s, p, n) == 0);
}

/* True if (p, n) names a dense column. */
static bool is_dense_name(const char *p, size_t n) {
    for (int i = 0; i < PQ_DENSE; i++)
        if (name_eq(DENSE_NAMES[i], p, n)) return true;
    return false;
}

/* ---- name sets: open addressing over (bytes, length) -> int, growing at half full ---- */

typedef struct name_slot {
    const char *p; /* NULL = empty */
    size_t n;
    int value;
} name_slot;

typedef struct nameset {
    name_slot *slots;
    size_t mask, count;
} nameset;

static uint64_t name_hash(const char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)p[i]) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

/* The slot of (p, n): the entry's, or the empty one where it would go. NULL if no table. */
static name_slot *ns_slot(const nameset *s, const char *p, size_t n) {
    if (!s->slots) return NULL;
    for (size_t j = (size_t)name_hash(p, n) & s->mask;; j = (j + 1) & s->mask) {
        name_slot *e = &s->slots[j];
        if (!e->p || (e->n == n && (n == 0 || memcmp(e->p, p, n) == 0))) return e;
    }
}

/* The value of (p, n), or -1 if absent. */
static int ns_get(const nameset *s, const char *p, size_t n) {
    const name_slot *e = ns_slot(s, p, n);
    return e && e->p ? e->value : -1;
}

/* Insert or overwrite (p, n) -> value; the bytes must outlive the set. False if OOM. */
static bool ns_put(nameset *s, const char *p, size_t n, int value) {
    if ((s->count + 1) * 2 > (s->slots ? s->mask + 1 : 0)) {
        size_t cap = s->slots ? (s->mask + 1) * 2 : 16;
        name_slot *t = calloc(cap, sizeof *t);
        if (!t) return false;
        nameset g = {t, cap - 1, 0};
        for (size_t i = 0; s->slots && i <= s->mask; i++)
            if (s->slots[i].p) {
                *ns_slot(&g, s->slots[i].p, s->slots[i].n) = s->slots[i];
                g.count++;
            }
        free(s->slots);
        *s = g;
    }
    name_slot *e = ns_slot(s, p, n);
    if (!e->p) s->count++;
    *e = (name_slot){p ? p : "", n, value};
    return true;
}

static void ns_free(nameset *s) {
    free(s->slots);
    memset(s, 0, sizeof *s);
}

/* malloc'ed NUL-terminated copy of (p, n) with every NUL byte written as the two characters
 * "\0" (column and group names are C strings: a NUL would cut them short); its length in
 * *len. NULL if out of memory. */
static char *escape_name(const char *p, size_t n, size_t *len) {
    *len = 0;
    size_t extra = 0;
    for (size_t i = 0; i < n; i++) extra += p[i] == 0;
    char *s = malloc(n + extra + 1);
    if (!s) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == 0) {
            s[o++] = '\\';
            s[o++] = '0';
        } else {
            s[o++] = p[i];
        }
    }
    s[o] = 0;
    *len = o;
    return s;
}

/* A name for a node among the names `used` holds: `base` (length bn) itself when k <= 1 and
 * unused, else base#k for the first k (from max(k, 2)) giving an unused name. Takes
 * ownership of `base`; returns a malloc'ed name (recorded in `used` with `value`) or NULL. */
static char *unique_name(nameset *used, char *base, size_t bn, int k, int value) {
    if (!base) return NULL;
    char *name = base;
    size_t len = bn;
    if (k > 1 || ns_get(used, base, bn) >= 0) {
        if (k < 2) k = 2;
        name = malloc(bn + 16);
        if (!name) {
            free(base);
            return NULL;
        }
        for (;; k++) {
            len = (size_t)snprintf(name, bn + 16, "%s#%d", base, k);
            if (ns_get(used, name, len) < 0) break;
        }
        free(base);
    }
    if (!ns_put(used, name, len, value)) {
        free(name);
        return NULL;
    }
    return name;
}

/* Build the id -> plan hash table; false if out of memory. */
static bool build_lookup(tw_layout *l) {
    size_t slots = 16;
    while (slots < l->nplans * 2) slots *= 2;
    l->lookup = calloc(slots, sizeof *l->lookup);
    if (!l->lookup) return false;
    l->lookup_mask = slots - 1;
    for (size_t i = 0; i < l->nplans; i++) {
        uint64_t h = l->plans[i].id * 0x9e3779b97f4a7c15ull;
        size_t j = (size_t)(h >> 32) & l->lookup_mask;
        while (l->lookup[j]) j = (j + 1) & l->lookup_mask;
        l->lookup[j] = (uint32_t)(i + 1);
    }
    return true;
}

tw_plan *tw_layout_find(const tw_layout *l, uint64_t id) {
    uint64_t h = id * 0x9e3779b97f4a7c15ull;
    size_t j = (size_t)(h >> 32) & l->lookup_mask;
    for (;;) {
        uint32_t s = l->lookup[j];
        if (!s) return NULL;
        if (l->plans[s - 1].id == id) return &l->plans[s - 1];
        j = (j + 1) & l->lookup_mask;
    }
}

/* Names shared by the passes: the root's children (dense, promoted, groups), the raw display
 * names, the promoted columns by raw field name. */
typedef struct names {
    nameset root, display, prom;
    int *prom_plan; /* per promoted column: the last plan that mapped a field to it, + 1 */
} names;

/* Promote the role fields of every event (pass 1). */
static void promote(builder *b, names *nm) {
    tw_layout *l = b->lay;
    for (size_t p = 0; p < l->nplans && !b->failed; p++) {
        tw_plan *pl = &l->plans[p];
        const bb_rschema *s = pl->schema;
        for (size_t f = 0; f < s->field_count && !b->failed; f++) {
            const bb_rfield *fd = &s->fields[f];
            if (fd->role == BB_ROLE_NONE) continue;
            const char *fn = fd->name.ptr;
            size_t nl = fd->name.len;
            if (is_dense_name(fn, nl) || ns_get(&nm->display, fn, nl) >= 0) continue;
            int k = ns_get(&nm->prom, fn, nl);
            if (k >= 0 && nm->prom_plan[k] == (int)p + 1)
                continue; /* repeats a name this event already promoted */
            if (k < 0) {
                if (l->nprom == b->prom_cap) {
                    size_t cap = b->prom_cap ? b->prom_cap * 2 : 16;
                    tw_promoted *n = realloc(l->prom, cap * sizeof *n);
                    int *pp = realloc(nm->prom_plan, cap * sizeof *pp);
                    if (n) l->prom = n;
                    if (pp) nm->prom_plan = pp;
                    if (!n || !pp) {
                        b->failed = true;
                        return;
                    }
                    b->prom_cap = cap;
                }
                size_t el;
                char *e = escape_name(fn, nl, &el);
                int leaf = add_leaf(b, unique_name(&nm->root, e, el, 1, 1), true,
                                    tw_type_of_field(fd->type), -1, 1, true);
                if (leaf < 0) return;
                l->leaves[leaf].kind = (uint8_t)tw_kind_of_field(fd->type);
                k = (int)l->nprom;
                l->prom[l->nprom++] =
                    (tw_promoted){.leaf = leaf, .node = l->leaves[leaf].node, .role = fd->role};
                if (!ns_put(&nm->prom, fn, nl, k)) {
                    b->failed = true;
                    return;
                }
            }
            nm->prom_plan[k] = (int)p + 1;
            tw_leaf *lf = &l->leaves[l->prom[k].leaf];
            lf->kind = (uint8_t)tw_kind_join((tw_kind)lf->kind, tw_kind_of_field(fd->type));
            pl->map[f] = (tw_fmap){
                .leaf = l->prom[k].leaf, .node = l->prom[k].node, .null_def = 0, .promoted = true};
        }
    }
}

/* One field of a name group's union: the key "<escaped name>#<occurrence>" (owned), the
 * escaped name (owned until handed to its leaf), its occurrence in its version, its kind. */
typedef struct ufield {
    char *key, *base;
    size_t keylen, baselen;
    int occ;
    tw_kind kind;
    int leaf;
} ufield;

/* The fields of every version of one name, unioned by (name, occurrence). */
typedef struct uset {
    ufield *f;
    size_t n, cap;
    nameset keys; /* key -> index in f */
} uset;

static void uset_free(uset *u) {
    for (size_t i = 0; i < u->n; i++) {
        free(u->f[i].key);
        free(u->f[i].base);
    }
    free(u->f);
    ns_free(&u->keys);
    memset(u, 0, sizeof *u);
}

/* The union index of field `fd` (its `occ`-th unpromoted field of that name in its version),
 * added when new; its kind joined in. -1 when out of memory. */
static int uset_add(uset *u, const bb_rfield *fd, bool log, int occ) {
    size_t bl;
    char *base = escape_name(fd->name.ptr, fd->name.len, &bl);
    char *key = base ? malloc(bl + 16) : NULL;
    if (!key) {
        free(base);
        return -1;
    }
    size_t kl = (size_t)snprintf(key, bl + 16, "%s#%d", base, occ);
    int i = ns_get(&u->keys, key, kl);
    if (i >= 0) {
        free(key);
        free(base);
        u->f[i].kind = tw_kind_join(u->f[i].kind, field_kind(log, fd));
        return i;
    }
    if (u->n == u->cap) {
        size_t cap = u->cap ? u->cap * 2 : 16;
        ufield *n = realloc(u->f, cap * sizeof *n);
        if (!n) {
            free(key);
            free(base);
            return -1;
        }
        u->f = n;
        u->cap = cap;
    }
    u->f[u->n] = (ufield){key, base, kl, bl, occ, field_kind(log, fd), -1};
    if (!ns_put(&u->keys, key, kl, (int)u->n)) {
        u->n++; /* freed with the set */
        return -1;
    }
    return (int)u->n++;
}

/* Union the unpromoted fields of plans [p0, p1) (one name); each field's union index goes
 * into its map entry's leaf for now. False when out of memory. */
static bool union_fields(tw_layout *l, size_t p0, size_t p1, uset *u) {
    for (size_t p = p0; p < p1; p++) {
        tw_plan *pl = &l->plans[p];
        const bb_rschema *s = pl->schema;
        nameset count = {0}; /* raw field name -> earlier unpromoted fields of that name */
        bool ok = true;
        for (size_t f = 0; f < s->field_count && ok; f++) {
            if (pl->map[f].promoted) continue;
            const bb_rfield *fd = &s->fields[f];
            if (bb_rfield_is_padding(fd)) {
                pl->map[f] = (tw_fmap){.leaf = -1, .node = -1, .pad = true};
                continue;
            }
            int same = ns_get(&count, fd->name.ptr, fd->name.len);
            same = same < 0 ? 0 : same;
            int i = -1;
            ok = ns_put(&count, fd->name.ptr, fd->name.len, same + 1) &&
                 (i = uset_add(u, fd, pl->log, same + 1)) >= 0;
            pl->map[f].leaf = i;
        }
        ns_free(&count);
        if (!ok) return false;
    }
    return true;
}

/* The group node of the name `first` carries (the first of its versions), then its union's
 * leaves (b->group: the group's node); false when out of memory. */
static bool emit_group(builder *b, names *nm, const tw_plan *first, uset *u) {
    tw_layout *l = b->lay;
    char *gname = dup_n(first->display, first->display_len);
    int k = is_dense_name(first->display, first->display_len) ? 2 : 1;
    int g = add_node(b, unique_name(&nm->root, gname, first->display_len, k, 1), true, (int)u->n,
                     PQ_STRING, -1);
    if (g < 0) return false;
    nameset used = {0}; /* leaf names of this group */
    for (size_t i = 0; i < u->n && !b->failed; i++) {
        char *base = u->f[i].base;
        u->f[i].base = NULL;
        int leaf = add_leaf(b, unique_name(&used, base, u->f[i].baselen, u->f[i].occ, 1), true,
                            tw_type_of_kind(u->f[i].kind), g, 2, true);
        if (leaf >= 0) l->leaves[leaf].kind = (uint8_t)u->f[i].kind;
        u->f[i].leaf = leaf;
    }
    ns_free(&used);
    return !b->failed ? (b->group = g, true) : false;
}

/* Map the fields of plans [p0, p1) onto the group's leaves; list the leaves each lacks. */
static bool map_group(tw_layout *l, size_t p0, size_t p1, const uset *u, int g) {
    bool *has = malloc(u->n ? u->n : 1);
    if (!has) return false;
    for (size_t p = p0; p < p1; p++) {
        tw_plan *pl = &l->plans[p];
        memset(has, 0, u->n);
        pl->group_node = g;
        size_t nhas = 0;
        for (size_t f = 0; f < pl->schema->field_count; f++) {
            if (pl->map[f].promoted || pl->map[f].pad) continue;
            int i = pl->map[f].leaf;
            int leaf = u->f[i].leaf;
            has[i] = true;
            nhas++;
            pl->map[f] = (tw_fmap){
                .leaf = leaf, .node = l->leaves[leaf].node, .null_def = 1, .promoted = false};
        }
        pl->nmissing = u->n - nhas;
        if (pl->nmissing) {
            pl->missing = malloc(pl->nmissing * sizeof *pl->missing);
            if (!pl->missing) {
                free(has);
                return false;
            }
            for (size_t i = 0, j = 0; i < u->n; i++)
                if (!has[i]) pl->missing[j++] = u->f[i].leaf;
        }
    }
    free(has);
    return true;
}

/* True if plans a and b carry the same qualified name. */
static bool same_name(const tw_plan *a, const tw_plan *b) {
    return a->schema->name.len == b->schema->name.len &&
           (a->schema->name.len == 0 ||
            memcmp(a->schema->name.ptr, b->schema->name.ptr, a->schema->name.len) == 0);
}

/* Give every name whose versions have unpromoted fields its group (pass 2). The model sorts
 * schemas by (name, id), so the versions of one name are consecutive. */
static void groups(builder *b, names *nm) {
    tw_layout *l = b->lay;
    for (size_t p0 = 0, p1; p0 < l->nplans && !b->failed; p0 = p1) {
        for (p1 = p0 + 1; p1 < l->nplans && same_name(&l->plans[p0], &l->plans[p1]); p1++)
            ;
        l->plans[p0].first = true;
        uset u = {0};
        if (!union_fields(l, p0, p1, &u)) b->failed = true;
        else if (u.n > 0 &&
                 (!emit_group(b, nm, &l->plans[p0], &u) || !map_group(l, p0, p1, &u, b->group)))
            b->failed = true;
        uset_free(&u);
    }
}

/* Pass 3: which fields the writer may decode inline. */
static void fast_paths(tw_layout *l) {
    for (size_t p = 0; p < l->nplans; p++) {
        tw_plan *pl = &l->plans[p];
        for (size_t f = 0; f < pl->schema->field_count; f++) {
            const bb_rfield *fd = &pl->schema->fields[f];
            tw_fmap *m = &pl->map[f];
            m->fast = PQ_FAST_NONE;
            if (m->pad) continue; /* no leaf */
            pq_type lt = l->leaves[m->leaf].type;
            if (lt == PQ_DOUBLE && pl->log && lf_arg_is_double(fd)) {
                m->fast = PQ_FAST_UNSIGNED; /* the bits are the DOUBLE's plain encoding */
                continue;
            }
            if (fd->width < 1 || fd->width > 8 || lt != tw_type_of_field(fd->type)) continue;
            if (fd->type <= BB_TYPE_U64) m->fast = PQ_FAST_UNSIGNED;
            else if (fd->type <= BB_TYPE_I64) m->fast = PQ_FAST_SIGNED;
            else if (fd->type == BB_TYPE_BOOL) m->fast = PQ_FAST_BOOL;
            else if (fd->type == BB_TYPE_ENUM || fd->type == BB_TYPE_INTERNED)
                m->fast = PQ_FAST_STRING;
        }
    }
}

bool tw_layout_build(const bb_model *model, tw_layout *l) {
    memset(l, 0, sizeof *l);
    builder b = {.lay = l};
    names nm = {0};
    bool any_log = false;
    size_t n = bb_model_schema_count(model);
    l->plans = calloc(n ? n : 1, sizeof *l->plans);
    if (!l->plans) return false;
    l->nplans = n;
    for (size_t i = 0; i < n; i++) {
        tw_plan *pl = &l->plans[i];
        pl->schema = bb_model_schema(model, i);
        pl->id = pl->schema->id;
        /* The table names an event by its qualified name, escaped (escape_name): the same
         * whichever versions of it are converted together. */
        const bb_strview nm_raw = pl->schema->name;
        pl->display_own = escape_name(nm_raw.ptr, nm_raw.len, &pl->display_len);
        pl->display = pl->display_own;
        if (!pl->display || !ns_put(&nm.display, nm_raw.ptr, nm_raw.len, 1)) {
            b.failed = true;
            break;
        }
        pl->group_node = -1;
        pl->log = lf_site_parse(pl->schema, &pl->site);
        any_log = any_log || pl->log;
        pl->map = calloc(pl->schema->field_count ? pl->schema->field_count : 1, sizeof *pl->map);
        if (!pl->map) {
            b.failed = true;
            break;
        }
    }
    for (int i = 0; i < PQ_DENSE && !b.failed; i++) {
        bool ts = i == PQ_L_TSTAMP;     /* OPTIONAL: NULL where ts_nanos passes INT64 */
        bool opt = ts || i == PQ_L_PID; /* OPTIONAL: NULL where the pid is unknown */
        int leaf = add_leaf(&b,
                            unique_name(&nm.root, dup_n(DENSE_NAMES[i], strlen(DENSE_NAMES[i])),
                                        strlen(DENSE_NAMES[i]), 1, 1),
                            opt, DENSE_TYPES[i], -1, opt ? 1 : 0, DENSE_DICT[i]);
        if (ts && leaf >= 0) l->nodes[l->leaves[leaf].node].logical = PQ_LOGICAL_TIMESTAMP_NS_UTC;
    }
    l->log_leaf = -1;
    if (any_log && !b.failed) /* the formatted message of every log record (LOG_LINES.md) */
        l->log_leaf = add_leaf(&b, unique_name(&nm.root, dup_n("log_message", 11), 11, 1, 1), true,
                               PQ_STRING, -1, 1, true);
    if (!b.failed) promote(&b, &nm);
    for (size_t k = 0; k < l->nprom && !b.failed; k++) { /* the joined types */
        tw_leaf *lf = &l->leaves[l->prom[k].leaf];
        lf->type = tw_type_of_kind((tw_kind)lf->kind);
        l->nodes[lf->node].type = lf->type;
        lf->dict = lf->type != PQ_BOOLEAN;
    }
    if (!b.failed) groups(&b, &nm);
    ns_free(&nm.root);
    ns_free(&nm.display);
    ns_free(&nm.prom);
    free(nm.prom_plan);
    if (!b.failed) fast_paths(l);
    if (b.failed || !build_lookup(l)) {
        tw_layout_free(l);
        return false;
    }
    return true;
}

void tw_layout_free(tw_layout *l) {
    for (size_t i = 0; i < l->nnodes; i++) free(l->nodes[i].name);
    free(l->nodes);
    free(l->leaves);
    if (l->plans)
        for (size_t i = 0; i < l->nplans; i++) {
            free(l->plans[i].map);
            free(l->plans[i].missing);
            free(l->plans[i].display_own);
        }
    free(l->plans);
    free(l->prom);
    free(l->lookup);
    memset(l, 0, sizeof *l);
}
