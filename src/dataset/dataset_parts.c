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
#include "read/model_groups.h"

static const char *const KEY_NAMES[] = {"host", "date", "event", "instance"};

const char *ds_key_name(ds_key k) { return KEY_NAMES[k]; }

/* A partition value's directory name is at most this many bytes after its `key=` (NAME_MAX is
 * 255): a longer value keeps its first whole characters and ends with `~` and the 16 hex digits
 * of the hash of its whole (repaired) text. */
#define VALUE_MAX 200
#define VALUE_KEEP (VALUE_MAX - 17)

static bool plain_byte(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

/* The bytes of the UTF-8 character that starts with c (valid UTF-8: a lead byte). */
static size_t char_len(unsigned char c) { return c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }

/* (p, n) Hive-escaped into b, at most `max` bytes of it, whole characters only; the bytes of
 * the value it took. */
static size_t put_escaped(pq_buf *b, const uint8_t *p, size_t n, size_t max) {
    static const char HEX[] = "0123456789ABCDEF";
    size_t i = 0, out = 0;
    while (i < n) {
        size_t k = char_len(p[i]), w = 0;
        if (k > n - i) k = n - i;
        for (size_t j = 0; j < k; j++) w += plain_byte(p[i + j]) ? 1 : 3;
        if (out + w > max) break;
        for (size_t j = 0; j < k; j++) {
            if (plain_byte(p[i + j])) {
                pq_buf_byte(b, p[i + j]);
            } else {
                pq_buf_byte(b, '%');
                pq_buf_byte(b, (uint8_t)HEX[p[i + j] >> 4]);
                pq_buf_byte(b, (uint8_t)HEX[p[i + j] & 15]);
            }
        }
        out += w;
        i += k;
    }
    return i;
}

/* A partition value: its text with invalid UTF-8 repaired as every string of the table is
 * (U+FFFD per maximal invalid subpart), Hive-escaped (bytes outside [A-Za-z0-9._-] as %XX, which
 * DuckDB, Polars and Arrow decode), shortened past VALUE_MAX escaped bytes; an empty value is
 * Hive's NULL, __HIVE_DEFAULT_PARTITION__. The directory name is a function of the text alone. */
static void put_value(pq_buf *b, const char *p, size_t n) {
    if (n == 0) {
        em_cstr(b, "__HIVE_DEFAULT_PARTITION__");
        return;
    }
    pq_buf text = {0};
    em_utf8_lossy(&text, (const uint8_t *)p, n);
    if (text.failed) {
        b->failed = true;
        pq_buf_free(&text);
        return;
    }
    size_t start = b->len;
    if (put_escaped(b, text.data, text.len, VALUE_MAX) < text.len) {
        b->len = start;
        put_escaped(b, text.data, text.len, VALUE_KEEP);
        uint64_t h = 0xcbf29ce484222325ull;
        for (size_t i = 0; i < text.len; i++) h = (h ^ text.data[i]) * 0x100000001b3ull;
        char s[24];
        snprintf(s, sizeof s, "~%016llx", (unsigned long long)h);
        em_cstr(b, s);
    }
    pq_buf_free(&text);
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

/* The records go one instance at a time (its parts are per instance), so only the parts of one
 * instance are open at once: memory and open files do not grow with the instances. */

typedef struct part {
    char *rel; /* partition directory under DIR */
    tw_table *t;
    int fd; /* the temporary (the transaction closes it) */
    char err[512];
} part;

typedef struct parts {
    part *v; /* the current instance's */
    size_t n, cap;
    size_t *slots; /* hash rel -> index + 1 */
    size_t mask;
    size_t total;  /* parts of every instance so far */
    bool *used;    /* a replay: which of r->fixed were opened */
    uint64_t inst; /* the current instance */
    const bb_rinstance *rinst;
    const convert_opts *opts; /* its parts' options: r->opts, or serial for a small instance */
    convert_opts serial;
    const ds_route *r;
} parts;

static uint64_t part_hash(const char *rel) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *p = rel; *p; p++) h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

/* The current instance's part of rel, or NULL; *slot where it goes. */
static part *find_part(parts *ps, const char *rel, size_t *slot) {
    size_t j = (size_t)part_hash(rel) & ps->mask;
    for (; ps->slots[j]; j = (j + 1) & ps->mask) {
        part *p = &ps->v[ps->slots[j] - 1];
        if (strcmp(p->rel, rel) == 0) return p;
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
            size_t j = (size_t)part_hash(ps->v[i].rel) & ps->mask;
            while (ps->slots[j]) j = (j + 1) & ps->mask;
            ps->slots[j] = i + 1;
        }
    }
    return true;
}

/* A replay: the append's own part name for (rel, inst) not opened yet, or NULL. */
static const char *fixed_name(parts *ps, const char *rel, uint64_t inst) {
    const ds_route *r = ps->r;
    char want[64];
    snprintf(want, sizeof want, "/part-%016llx-", (unsigned long long)inst);
    size_t rl = strlen(rel), wl = strlen(want);
    for (size_t i = 0; i < r->nfixed; i++) {
        const char *f = r->fixed[i];
        if (!ps->used[i] && !strncmp(f, rel, rl) && !strncmp(f + rl, want, wl)) {
            ps->used[i] = true;
            return f;
        }
    }
    return NULL;
}

/* The temporary of the next part (rel, inst): a new part named at the commit, or in a replay
 * the append's own part name of that partition and instance. */
static int part_fd(parts *ps, const char *rel, uint64_t inst, bb_error *err) {
    const ds_route *r = ps->r;
    if (!r->fixed) return ds_txn_part(r->t, rel, inst, err);
    const char *f = fixed_name(ps, rel, inst);
    if (!f) {
        ds_err(err,
               "%s: cannot rewrite %s: its sources give a part in %s for instance %016llx "
               "that its manifest does not list",
               r->h->dir, r->what, rel, (unsigned long long)inst);
        return -1;
    }
    return ds_txn_file(r->t, f, err);
}

/* Open a new part for rel of the current instance; NULL after a message. */
static part *open_part(parts *ps, size_t slot, const char *rel, bb_error *err) {
    const ds_route *r = ps->r;
    if (!grow(ps)) {
        ds_err(err, "out of memory");
        return NULL;
    }
    find_part(ps, rel, &slot); /* the table may have grown: its slot again */
    part *p = &ps->v[ps->n];
    memset(p, 0, sizeof *p);
    p->rel = strdup(rel);
    p->fd = p->rel ? part_fd(ps, rel, ps->inst, err) : -1; /* named when the append commits */
    bool ok = p->fd >= 0;
    if (!p->rel) ds_err(err, "out of memory");
    if (ok &&
        !(p->t = tw_table_open(r->model, ps->opts, ps->rinst, p->fd, p->err, sizeof p->err))) {
        char pm[DS_PATH_MSG];
        ds_err(err, "%s: %s", ds_path_msg(pm, r->h->dir, rel), p->err);
        ok = false;
    }
    if (!ok) {
        free(p->rel);
        return NULL;
    }
    ps->slots[slot] = ++ps->n;
    ps->total++;
    return p;
}

/* Finish the current instance's parts (footers; their temporaries closed, the transaction
 * commits them), adding up their bytes, and forget them. 0, or 1 after a message. */
static int close_parts(parts *ps, bool finish, uint64_t *bytes, bb_error *err) {
    struct stat st;
    int rc = 0;
    for (size_t i = 0; i < ps->n; i++) {
        part *p = &ps->v[i];
        if (rc == 0 && finish && tw_table_finish(p->t)) {
            char pm[DS_PATH_MSG];
            ds_err(err, "%s: %s", ds_path_msg(pm, ps->r->h->dir, p->rel), p->err);
            rc = 1;
        }
        if (rc == 0 && finish && fstat(p->fd, &st) == 0) *bytes += (uint64_t)st.st_size;
        if (rc == 0 && finish && !ds_txn_close(ps->r->t, p->fd, err)) rc = 1;
        tw_table_free(p->t);
        free(p->rel);
    }
    ps->n = 0;
    memset(ps->slots, 0, (ps->mask + 1) * sizeof *ps->slots);
    return rc;
}

/* The part of record mr (the current instance's), opened at its first record; NULL after a
 * message. */
static part *part_of(parts *ps, pq_buf *rel, const bb_mrecord *mr, bb_error *err) {
    part_dir(rel, ps->r->spec, mr, ps->r->opts->host_override);
    if (rel->failed) {
        ds_err(err, "out of memory");
        return NULL;
    }
    size_t slot = 0;
    part *p = find_part(ps, (const char *)rel->data, &slot);
    return p ? p : open_part(ps, slot, (const char *)rel->data, err);
}

/* Route the new records of iterator `it` (one instance's) into their parts; 0, or 1 after a
 * message. */
static int route_one(parts *ps, bb_model_iter *it, bb_error *err) {
    const ds_route *r = ps->r;
    const convert_opts *opts = r->opts;
    pq_buf rel = {0};
    bb_mrecord mr;
    int rc = 0;
    /* The instance fixes the host, so (day, event) decides the part; runs of records of one
     * part skip the path and the lookup. */
    uint64_t last_day = 0;
    const bb_rschema *last_schema = NULL;
    part *p = NULL;
    while (rc == 0 && bb_model_next(it, &mr)) {
        if ((opts->keep && !opts->keep(&mr, opts->keep_ctx)) || ds_index_has(r->ix, &mr.rec))
            continue;
        uint64_t day = mr.rec.ts / 86400000000000ull;
        if (!p || last_day != day || last_schema != mr.rec.schema) {
            p = part_of(ps, &rel, &mr, err);
            last_day = day;
            last_schema = mr.rec.schema;
        }
        if (!p) {
            rc = 1;
        } else if (tw_table_row(p->t, &mr)) {
            char pm[DS_PATH_MSG];
            ds_err(err, "%s: %s", ds_path_msg(pm, r->h->dir, p->rel),
                   p->err[0] ? p->err : "out of memory");
            rc = 1;
        } else if (!r->no_add && !ds_index_add(r->ix, &mr.rec, err)) {
            rc = 1;
        }
    }
    pq_buf_free(&rel);
    return rc;
}

/* An instance with fewer records than this has its parts encoded on the reading thread. */
#define PAR_MIN_RECORDS 65536u

/* Every instance's records into its parts, then its parts and index file closed; 0, or 1 after
 * a message. */
static int route(parts *ps, uint64_t *bytes, bb_error *err) {
    const ds_route *r = ps->r;
    bb__model_groups *g = bb__model_groups_new(r->model);
    int rc = g ? 0 : 1;
    for (size_t i = 0; rc == 0 && i < bb_model_instance_count(r->model); i++) {
        bb_model_iter *it = NULL;
        ps->rinst = bb_model_instance(r->model, i);
        ps->inst = ps->rinst->instance_id;
        /* Encoding threads pay for themselves on large parts only (same bytes either way). */
        ps->opts = bb__model_groups_records(g, i) < PAR_MIN_RECORDS ? &ps->serial : r->opts;
        rc = bb__model_groups_iter(g, i, &it) == BB_OK ? route_one(ps, it, err) : 1;
        if (!it) ds_err(err, "out of memory");
        bb_model_iter_free(it);
        rc = close_parts(ps, rc == 0, bytes, err) || rc;
        if (rc == 0 && !r->no_add && !ds_index_done(r->ix, ps->inst, err)) rc = 1;
    }
    if (!g) ds_err(err, "out of memory");
    bb__model_groups_free(g);
    return rc;
}

int ds_route_parts(const ds_route *r, size_t *nparts, uint64_t *bytes, bb_error *err) {
    parts ps = {.r = r, .serial = *r->opts};
    ps.serial.threads = 1;
    *nparts = 0;
    ps.slots = calloc(16, sizeof *ps.slots);
    ps.mask = 15;
    ps.used = r->fixed ? calloc(r->nfixed ? r->nfixed : 1, sizeof *ps.used) : NULL;
    bool mem = ps.slots && (!r->fixed || ps.used);
    int rc = mem ? route(&ps, bytes, err) : 1;
    if (!mem) ds_err(err, "out of memory");
    if (rc == 0 && r->fixed && ps.total != r->nfixed) {
        ds_err(err, "%s: cannot rewrite %s: its sources give %zu parts, its manifest lists %zu",
               r->h->dir, r->what, ps.total, r->nfixed);
        rc = 1;
    }
    *nparts = ps.total;
    free(ps.v);
    free(ps.slots);
    free(ps.used);
    return rc;
}
