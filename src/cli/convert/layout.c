/* convert/layout.c — the sparse-wide table's schema for a model (see convert/layout.h). */
#include "cli/convert/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backbeat/schema.h"
#include "format/names.h"

static const char *const DENSE_NAMES[PQ_DENSE] = {"seq", "ts_nanos", "event", "event_id",
                                                  "instance_id"};
static const pq_type DENSE_TYPES[PQ_DENSE] = {PQ_UINT64, PQ_UINT64, PQ_STRING, PQ_UINT64,
                                              PQ_UINT64};
static const bool DENSE_DICT[PQ_DENSE] = {false, false, true, true, true};

pq_type pq_type_of_field(uint8_t t)
{
    switch (t) {
    case BB_TYPE_U8:
    case BB_TYPE_U16:
    case BB_TYPE_U32:
    case BB_TYPE_U64:
        return PQ_UINT64;
    case BB_TYPE_I8:
    case BB_TYPE_I16:
    case BB_TYPE_I32:
    case BB_TYPE_I64:
        return PQ_INT64;
    case BB_TYPE_BOOL:
        return PQ_BOOLEAN;
    default:
        return PQ_STRING;
    }
}

const char *pq_field_type_name(uint8_t t)
{
    const char *n = bb_type_name(t);
    return n ? n : "unknown";
}

const char *pq_type_name(pq_type t)
{
    switch (t) {
    case PQ_BOOLEAN:
        return "BOOLEAN";
    case PQ_INT64:
        return "INT64";
    case PQ_UINT64:
        return "UINT64";
    case PQ_STRING:
        return "STRING";
    }
    return "STRING";
}

/* Growable arrays of nodes and leaves. */
typedef struct builder {
    pq_layout *lay;
    size_t node_cap, leaf_cap, prom_cap;
    bool failed;
} builder;

/* NUL-terminated malloc'ed copy of (p, n), NULL if out of memory. */
static char *dup_n(const char *p, size_t n)
{
    char *s = malloc(n + 1);
    if (s) {
        if (n)
            memcpy(s, p, n);
        s[n] = 0;
    }
    return s;
}

/* Append a node (taking ownership of `name`); returns its index or -1. */
static int add_node(builder *b, char *name, bool optional, int nchildren, pq_type type,
                    int parent)
{
    pq_layout *l = b->lay;
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
    l->nodes[l->nnodes] = (pq_node){.name = name, .optional = optional,
                                    .num_children = nchildren, .type = type, .parent = parent};
    return (int)l->nnodes++;
}

/* Append a leaf node and its column (taking ownership of `name`); its leaf index or -1. */
static int add_leaf(builder *b, char *name, bool optional, pq_type type, int parent,
                    int max_def, bool dict)
{
    pq_layout *l = b->lay;
    if (l->nleaves == b->leaf_cap) {
        size_t cap = b->leaf_cap ? b->leaf_cap * 2 : 64;
        pq_leaf *n = realloc(l->leaves, cap * sizeof *n);
        if (!n) {
            free(name);
            b->failed = true;
            return -1;
        }
        l->leaves = n;
        b->leaf_cap = cap;
    }
    int node = add_node(b, name, optional, 0, type, parent);
    if (node < 0)
        return -1;
    l->leaves[l->nleaves] = (pq_leaf){.type = type, .max_def = max_def,
                                      .dict = dict && type != PQ_BOOLEAN, .node = node};
    return (int)l->nleaves++;
}

/* True if NUL-terminated `s` equals (p, n). */
static bool name_eq(const char *s, const char *p, size_t n)
{
    return strlen(s) == n && (n == 0 || memcmp(s, p, n) == 0);
}

/* True if (p, n) names a dense column. */
static bool is_dense_name(const char *p, size_t n)
{
    for (int i = 0; i < PQ_DENSE; i++)
        if (name_eq(DENSE_NAMES[i], p, n))
            return true;
    return false;
}

/* True if (p, n) is some event's display name. */
static bool is_display_name(const pq_layout *l, const char *p, size_t n)
{
    for (size_t i = 0; i < l->nplans; i++)
        if (l->plans[i].display_len == n && memcmp(l->plans[i].display, p, n) == 0)
            return true;
    return false;
}

/* Build the id -> plan hash table; false if out of memory. */
static bool build_lookup(pq_layout *l)
{
    size_t slots = 16;
    while (slots < l->nplans * 2)
        slots *= 2;
    l->lookup = calloc(slots, sizeof *l->lookup);
    if (!l->lookup)
        return false;
    l->lookup_mask = slots - 1;
    for (size_t i = 0; i < l->nplans; i++) {
        uint64_t h = l->plans[i].id * 0x9e3779b97f4a7c15ull;
        size_t j = (size_t)(h >> 32) & l->lookup_mask;
        while (l->lookup[j])
            j = (j + 1) & l->lookup_mask;
        l->lookup[j] = (uint32_t)(i + 1);
    }
    return true;
}

pq_plan *pq_layout_find(const pq_layout *l, uint64_t id)
{
    uint64_t h = id * 0x9e3779b97f4a7c15ull;
    size_t j = (size_t)(h >> 32) & l->lookup_mask;
    for (;;) {
        uint32_t s = l->lookup[j];
        if (!s)
            return NULL;
        if (l->plans[s - 1].id == id)
            return &l->plans[s - 1];
        j = (j + 1) & l->lookup_mask;
    }
}

/* Promote the role fields of every event (pass 1). */
static void promote(builder *b)
{
    pq_layout *l = b->lay;
    for (size_t p = 0; p < l->nplans && !b->failed; p++) {
        pq_plan *pl = &l->plans[p];
        const bb_rschema *s = pl->schema;
        for (size_t f = 0; f < s->field_count && !b->failed; f++) {
            const bb_rfield *fd = &s->fields[f];
            if (fd->role == BB_ROLE_NONE)
                continue;
            const char *nm = fd->name.ptr;
            size_t nl = fd->name.len;
            if (is_dense_name(nm, nl) || is_display_name(l, nm, nl))
                continue;
            bool dup = false;
            for (size_t g = 0; g < f; g++)
                if (pl->map[g].promoted && s->fields[g].name.len == nl &&
                    memcmp(s->fields[g].name.ptr, nm, nl) == 0)
                    dup = true;
            if (dup)
                continue;
            size_t k = 0;
            for (; k < l->nprom; k++)
                if (name_eq(l->nodes[l->prom[k].node].name, nm, nl))
                    break;
            if (k == l->nprom) {
                if (l->nprom == b->prom_cap) {
                    size_t cap = b->prom_cap ? b->prom_cap * 2 : 16;
                    pq_promoted *n = realloc(l->prom, cap * sizeof *n);
                    if (!n) {
                        b->failed = true;
                        return;
                    }
                    l->prom = n;
                    b->prom_cap = cap;
                }
                int leaf = add_leaf(b, dup_n(nm, nl), true, pq_type_of_field(fd->type), -1, 1,
                                    true);
                if (leaf < 0)
                    return;
                l->prom[l->nprom++] = (pq_promoted){.leaf = leaf, .node = l->leaves[leaf].node,
                                                    .role = fd->role};
            }
            pl->map[f] = (pq_fmap){.leaf = l->prom[k].leaf, .node = l->prom[k].node,
                                   .null_def = 0, .promoted = true};
        }
    }
}

/* Give every event with unpromoted fields its group (pass 2). */
static void groups(builder *b)
{
    pq_layout *l = b->lay;
    for (size_t p = 0; p < l->nplans && !b->failed; p++) {
        pq_plan *pl = &l->plans[p];
        const bb_rschema *s = pl->schema;
        int nchild = 0;
        for (size_t f = 0; f < s->field_count; f++)
            if (!pl->map[f].promoted)
                nchild++;
        if (nchild == 0)
            continue;
        char *gname;
        if (is_dense_name(pl->display, pl->display_len)) {
            gname = malloc(pl->display_len + 18);
            if (gname)
                snprintf(gname, pl->display_len + 18, "%s#%016llx", pl->display,
                         (unsigned long long)pl->id);
        } else {
            gname = dup_n(pl->display, pl->display_len);
        }
        int g = add_node(b, gname, true, nchild, PQ_STRING, -1);
        if (g < 0)
            return;
        pl->group_node = g;
        for (size_t f = 0; f < s->field_count && !b->failed; f++) {
            if (pl->map[f].promoted)
                continue;
            const bb_rfield *fd = &s->fields[f];
            /* earlier same-named fields of this group */
            int same = 0;
            for (size_t q = 0; q < f; q++)
                if (!pl->map[q].promoted && s->fields[q].name.len == fd->name.len &&
                    memcmp(s->fields[q].name.ptr, fd->name.ptr, fd->name.len) == 0)
                    same++;
            char *name;
            if (same == 0) {
                name = dup_n(fd->name.ptr, fd->name.len);
            } else {
                name = malloc(fd->name.len + 16);
                if (name)
                    snprintf(name, fd->name.len + 16, "%.*s#%d", (int)fd->name.len,
                             fd->name.ptr, same + 1);
            }
            int leaf = add_leaf(b, name, true, pq_type_of_field(fd->type), g, 2, true);
            if (leaf < 0)
                return;
            pl->map[f] = (pq_fmap){.leaf = leaf, .node = l->leaves[leaf].node, .null_def = 1,
                                   .promoted = false};
        }
    }
}

/* Pass 3: which fields the writer may decode inline. */
static void fast_paths(pq_layout *l)
{
    for (size_t p = 0; p < l->nplans; p++) {
        pq_plan *pl = &l->plans[p];
        for (size_t f = 0; f < pl->schema->field_count; f++) {
            const bb_rfield *fd = &pl->schema->fields[f];
            pq_fmap *m = &pl->map[f];
            m->fast = PQ_FAST_NONE;
            if (fd->width < 1 || fd->width > 8 ||
                l->leaves[m->leaf].type != pq_type_of_field(fd->type))
                continue;
            if (fd->type <= BB_TYPE_U64)
                m->fast = PQ_FAST_UNSIGNED;
            else if (fd->type <= BB_TYPE_I64)
                m->fast = PQ_FAST_SIGNED;
            else if (fd->type == BB_TYPE_BOOL)
                m->fast = PQ_FAST_BOOL;
        }
    }
}

bool pq_layout_build(const bb_model *model, pq_layout *l)
{
    memset(l, 0, sizeof *l);
    builder b = {.lay = l};
    size_t n = bb_model_schema_count(model);
    l->plans = calloc(n ? n : 1, sizeof *l->plans);
    if (!l->plans)
        return false;
    l->nplans = n;
    for (size_t i = 0; i < n; i++) {
        pq_plan *pl = &l->plans[i];
        pl->schema = bb_model_schema(model, i);
        pl->id = pl->schema->id;
        pl->display = bb_model_display_name(model, pl->id);
        if (!pl->display) {
            b.failed = true;
            break;
        }
        pl->display_len = strlen(pl->display);
        pl->group_node = -1;
        pl->map = calloc(pl->schema->field_count ? pl->schema->field_count : 1,
                         sizeof *pl->map);
        if (!pl->map) {
            b.failed = true;
            break;
        }
    }
    for (int i = 0; i < PQ_DENSE && !b.failed; i++)
        add_leaf(&b, dup_n(DENSE_NAMES[i], strlen(DENSE_NAMES[i])), false, DENSE_TYPES[i], -1,
                 0, DENSE_DICT[i]);
    if (!b.failed)
        promote(&b);
    if (!b.failed)
        groups(&b);
    if (!b.failed)
        fast_paths(l);
    if (b.failed || !build_lookup(l)) {
        pq_layout_free(l);
        return false;
    }
    return true;
}

void pq_layout_free(pq_layout *l)
{
    for (size_t i = 0; i < l->nnodes; i++)
        free(l->nodes[i].name);
    free(l->nodes);
    free(l->leaves);
    if (l->plans)
        for (size_t i = 0; i < l->nplans; i++)
            free(l->plans[i].map);
    free(l->plans);
    free(l->prom);
    free(l->lookup);
    memset(l, 0, sizeof *l);
}
