/* dataset_parts.c — the parts of one append (see dataset/dataset.h): each record's partition
 * directory (Hive-escaped key values), one Parquet part per (partition, instance), the
 * records routed into them; also the replay of an earlier append into its own part names. */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/error_set.h"
#include "dataset/dataset_internal.h"
#include "emit/text.h"
#include "parquet/buf.h"

static const char *const KEY_NAMES[] = {"host", "date", "event", "instance"};

const char *ds_key_name(ds_key k) { return KEY_NAMES[k]; }

/* A partition value, Hive-escaped: bytes outside [A-Za-z0-9._-] as %XX (DuckDB, Polars and
 * Arrow decode them); an empty value is Hive's NULL, __HIVE_DEFAULT_PARTITION__. */
static void put_value(pq_buf *b, const char *p, size_t n) {
    static const char HEX[] = "0123456789ABCDEF";
    if (n == 0) em_cstr(b, "__HIVE_DEFAULT_PARTITION__");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '.' || c == '_' || c == '-';
        if (plain) {
            pq_buf_byte(b, c);
        } else {
            pq_buf_byte(b, '%');
            pq_buf_byte(b, (uint8_t)HEX[c >> 4]);
            pq_buf_byte(b, (uint8_t)HEX[c & 15]);
        }
    }
}

/* The UTC date (YYYY-MM-DD) of a timestamp in ns since the epoch (civil-from-days). */
static void put_date(pq_buf *b, uint64_t ts) {
    int64_t z = (int64_t)(ts / 86400000000000ull) + 719468;
    int64_t era = z / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    unsigned d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
    long long y = (long long)yoe + era * 400 + (m <= 2);
    char s[32];
    snprintf(s, sizeof s, "%04lld-%02u-%02u", y, m, d);
    em_cstr(b, s);
}

/* The directory of record r under DIR ("host=h/date=d"), into b (emptied first). */
static void part_dir(pq_buf *b, const ds_spec *spec, const bb_mrecord *r, const char *host_ovr) {
    b->len = 0;
    for (size_t i = 0; i < spec->nkeys; i++) {
        if (i) pq_buf_byte(b, '/');
        em_cstr(b, KEY_NAMES[spec->keys[i]]);
        pq_buf_byte(b, '=');
        switch (spec->keys[i]) {
        case DS_HOST:
            if (host_ovr) put_value(b, host_ovr, strlen(host_ovr));
            else
                put_value(b, r->instance ? r->instance->host.ptr : "",
                          r->instance ? r->instance->host.len : 0);
            break;
        case DS_DATE: put_date(b, r->rec.ts); break;
        case DS_EVENT: put_value(b, r->rec.schema->name.ptr, r->rec.schema->name.len); break;
        case DS_INSTANCE: {
            char s[24];
            snprintf(s, sizeof s, "%016llx", (unsigned long long)r->rec.instance_id);
            em_cstr(b, s);
            break;
        }
        }
    }
    pq_buf_byte(b, 0);
}

/* ---- the parts of one append ---- */

typedef struct part {
    char *rel; /* partition directory under DIR */
    uint64_t inst;
    tw_table *t;
    int fd; /* the temporary (the transaction closes it) */
    char err[512];
} part;

typedef struct parts {
    part *v;
    size_t n, cap;
    size_t *slots; /* hash (rel, inst) -> index + 1 */
    size_t mask;
    const ds_route *r;
} parts;

static uint64_t part_hash(const char *rel, uint64_t inst) {
    uint64_t h = 0xcbf29ce484222325ull ^ inst * 0x9e3779b97f4a7c15ull;
    for (const char *p = rel; *p; p++) h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

/* The part of (rel, inst), or NULL; *slot where it goes. */
static part *find_part(parts *ps, const char *rel, uint64_t inst, size_t *slot) {
    size_t j = (size_t)part_hash(rel, inst) & ps->mask;
    for (; ps->slots[j]; j = (j + 1) & ps->mask) {
        part *p = &ps->v[ps->slots[j] - 1];
        if (p->inst == inst && strcmp(p->rel, rel) == 0) return p;
    }
    *slot = j;
    return NULL;
}

/* Grow the hash table at half full; false when out of memory. */
static bool grow(parts *ps) {
    if ((ps->n + 1) * 2 <= ps->mask + 1 && ps->n < ps->cap) return true;
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? ps->cap * 2 : 8;
        part *v = realloc(ps->v, cap * sizeof *v);
        if (!v) return false;
        ps->v = v;
        ps->cap = cap;
    }
    if ((ps->n + 1) * 2 > ps->mask + 1) {
        size_t cap = (ps->mask + 1) * 2;
        size_t *s = calloc(cap, sizeof *s);
        if (!s) return false;
        free(ps->slots);
        ps->slots = s;
        ps->mask = cap - 1;
        for (size_t i = 0; i < ps->n; i++) {
            size_t j = (size_t)part_hash(ps->v[i].rel, ps->v[i].inst) & ps->mask;
            while (ps->slots[j]) j = (j + 1) & ps->mask;
            ps->slots[j] = i + 1;
        }
    }
    return true;
}

/* The temporary of the next part (rel, inst): a new part named at the commit, or in a replay
 * the next of the append's own part names, which must be of that partition and instance. */
static int part_fd(parts *ps, const char *rel, uint64_t inst, bb_error *err) {
    const ds_route *r = ps->r;
    if (!r->fixed) return ds_txn_part(r->t, rel, inst, err);
    char want[64];
    snprintf(want, sizeof want, "/part-%016llx-", (unsigned long long)inst);
    const char *f = ps->n < r->nfixed ? r->fixed[ps->n] : NULL;
    size_t rl = strlen(rel);
    if (!f || strncmp(f, rel, rl) != 0 || strncmp(f + rl, want, strlen(want)) != 0) {
        ds_err(err,
               "%s: cannot rewrite %s: its sources give a part in %s for instance %016llx "
               "that its manifest does not list",
               r->h->dir, r->what, rel, (unsigned long long)inst);
        return -1;
    }
    return ds_txn_file(r->t, f, err);
}

/* Open a new part for (rel, inst); NULL after a message. */
static part *open_part(parts *ps, size_t slot, const char *rel, uint64_t inst, bb_error *err) {
    const ds_route *r = ps->r;
    if (!grow(ps)) {
        ds_err(err, "out of memory");
        return NULL;
    }
    find_part(ps, rel, inst, &slot); /* the table may have grown: its slot again */
    part *p = &ps->v[ps->n];
    memset(p, 0, sizeof *p);
    p->rel = strdup(rel);
    p->inst = inst;
    p->fd = p->rel ? part_fd(ps, rel, inst, err) : -1; /* named when the append commits */
    bool ok = p->fd >= 0;
    if (!p->rel) ds_err(err, "out of memory");
    if (ok && !(p->t = tw_table_open(r->model, r->opts, p->fd, p->err, sizeof p->err))) {
        ds_err(err, "%s/%s: %s", r->h->dir, rel, p->err);
        ok = false;
    }
    if (!ok) {
        free(p->rel);
        return NULL;
    }
    ps->slots[slot] = ++ps->n;
    return p;
}

static void free_parts(parts *ps) {
    for (size_t i = 0; i < ps->n; i++) {
        tw_table_free(ps->v[i].t);
        free(ps->v[i].rel);
    }
    free(ps->v);
    free(ps->slots);
}

/* Route every new record of the model into its part; 0, or 1 after a message. */
static int route(parts *ps, bb_error *err) {
    const ds_route *r = ps->r;
    const ds_handle *h = r->h;
    const convert_opts *opts = r->opts;
    ds_index *ix = r->ix;
    bb_model_iter *it;
    pq_buf rel = {0};
    if (bb_model_iter_new(r->model, &it) != BB_OK) {
        ds_err(err, "out of memory");
        return 1;
    }
    bb_mrecord mr;
    int rc = 0;
    /* The last record's partition: the instance fixes the host, so (instance, day, event)
     * decides the part; runs of records of one part skip the path and the lookup. */
    struct {
        uint64_t inst, day;
        const bb_rschema *schema;
        size_t part;
    } last = {0, 0, NULL, 0};
    bool have_last = false;
    while (rc == 0 && bb_model_next(it, &mr)) {
        if ((opts->keep && !opts->keep(&mr, opts->keep_ctx)) || ds_index_has(ix, &mr.rec)) continue;
        uint64_t day = mr.rec.ts / 86400000000000ull;
        part *p = NULL;
        if (have_last && last.inst == mr.rec.instance_id && last.day == day &&
            last.schema == mr.rec.schema)
            p = &ps->v[last.part];
        if (!p) {
            part_dir(&rel, r->spec, &mr, opts->host_override);
            size_t slot = 0;
            p = find_part(ps, rel.failed ? "" : (const char *)rel.data, mr.rec.instance_id, &slot);
            if (!p && !rel.failed)
                p = open_part(ps, slot, (const char *)rel.data, mr.rec.instance_id, err);
            if (p) {
                last.inst = mr.rec.instance_id;
                last.day = day;
                last.schema = mr.rec.schema;
                last.part = (size_t)(p - ps->v);
                have_last = true;
            }
        }
        if (!p || rel.failed) {
            if (rel.failed) ds_err(err, "out of memory");
            rc = 1;
        } else if (tw_table_row(p->t, &mr)) {
            ds_err(err, "%s/%s: %s", h->dir, p->rel, p->err[0] ? p->err : "out of memory");
            rc = 1;
        } else if (!r->no_add && !ds_index_add(ix, &mr.rec, err)) {
            rc = 1;
        }
    }
    bb_model_iter_free(it);
    pq_buf_free(&rel);
    return rc;
}

/* Finish every part (footers; the transaction commits them), adding up their bytes. 0, or 1
 * after a message. */
static int finish_parts(parts *ps, uint64_t *bytes, bb_error *err) {
    struct stat st;
    for (size_t i = 0; i < ps->n; i++) {
        if (tw_table_finish(ps->v[i].t)) {
            ds_err(err, "%s/%s: %s", ps->r->h->dir, ps->v[i].rel, ps->v[i].err);
            return 1;
        }
        if (fstat(ps->v[i].fd, &st) == 0) *bytes += (uint64_t)st.st_size;
    }
    return 0;
}

int ds_route_parts(const ds_route *r, size_t *nparts, uint64_t *bytes, bb_error *err) {
    parts ps = {.r = r};
    *nparts = 0;
    ps.slots = calloc(16, sizeof *ps.slots);
    ps.mask = 15;
    int rc = ps.slots ? route(&ps, err) : 1;
    if (!ps.slots) ds_err(err, "out of memory");
    if (rc == 0) rc = finish_parts(&ps, bytes, err);
    if (rc == 0 && r->fixed && ps.n != r->nfixed) {
        ds_err(err, "%s: cannot rewrite %s: its sources give %zu parts, its manifest lists %zu",
               r->h->dir, r->what, ps.n, r->nfixed);
        rc = 1;
    }
    *nparts = ps.n;
    free_parts(&ps);
    return rc;
}
