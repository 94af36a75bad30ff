/* dataset.c — `convert --dataset DIR`: the lock, the partitions, the parts and views.sql
 * (see convert/dataset.h; the key index is dataset_index.c, the schema dump dataset_schema.c). */
/* SPDX-License-Identifier: MIT */
#include "convert/dataset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error_set.h"
#include "convert/text.h"
#include "parquet/buf.h"

static const char *const KEY_NAMES[] = {"host", "date", "event", "instance"};

/* Parse `text` into *out; false with what is wrong in why[cap]. */
static bool parse_spec(const char *text, ds_spec *out, char *why, size_t cap)
{
    memset(out, 0, sizeof *out);
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int k = -1;
        for (int i = 0; i < DS_MAX_KEYS; i++)
            if (strlen(KEY_NAMES[i]) == n && memcmp(KEY_NAMES[i], p, n) == 0)
                k = i;
        bool dup = false;
        for (size_t i = 0; i < out->nkeys; i++)
            dup |= (int)out->keys[i] == k;
        if (k < 0 || dup) {
            snprintf(why, cap, "'%.*s' is %s (use host, date, event, instance, each at most once)",
                     (int)n, p, k < 0 ? "not a partition key" : "repeated");
            return false;
        }
        out->keys[out->nkeys++] = (ds_key)k;
        p += n + (e != NULL);
        if (e && !*p) {
            snprintf(why, cap, "it ends with a comma");
            return false;
        }
    }
    return true;
}

bool ds_parse_spec(const char *text, ds_spec *out, bb_error *err)
{
    char why[128];
    if (parse_spec(text, out, why, sizeof why))
        return true;
    ds_err(err, "bad --partition-by '%s': %s", text, why);
    return false;
}

/* The keys as --partition-by text ("host,date"), into buf[cap]. */
static void spec_text(const ds_spec *spec, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = 0;
    for (size_t i = 0; i < spec->nkeys && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? "," : "", KEY_NAMES[spec->keys[i]]);
}

/* "<a>/<b>", malloc'ed (NULL: out of memory). */
static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", a, b);
    return s;
}

/* mkdirat that accepts an existing directory, then openat O_NOFOLLOW; -1 with errno. *made
 * tells whether this call created it. */
static int open_sub(int at, const char *name, bool *made)
{
    *made = mkdirat(at, name, 0777) == 0;
    if (!*made && errno != EEXIST)
        return -1;
    return openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* flock DIR/_backbeat/lock, then check it is still the file of that name (a failed first
 * append removes it): false with errno, or with *retry when it was replaced meanwhile. */
static bool take_lock(ds_handle *h, bool *retry)
{
    *retry = false;
    h->lock_fd = openat(h->bfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (h->lock_fd < 0)
        return false;
    int rc;
    while ((rc = flock(h->lock_fd, LOCK_EX)) != 0 && errno == EINTR)
        ;
    struct stat a, b;
    if (rc != 0 || fstat(h->lock_fd, &a) != 0)
        return false;
    *retry = fstatat(h->bfd, "lock", &b, AT_SYMLINK_NOFOLLOW) != 0 || a.st_ino != b.st_ino ||
             a.st_dev != b.st_dev;
    return !*retry;
}

static void close_fds(ds_handle *h)
{
    int *fds[] = {&h->lock_fd, &h->bfd, &h->dfd};
    for (size_t i = 0; i < 3; i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
}

bool ds_open(ds_handle *h, const char *dir, bb_error *err)
{
    memset(h, 0, sizeof *h);
    h->dfd = h->bfd = h->lock_fd = -1;
    for (int attempt = 0; attempt < 16; attempt++) {
        h->made_dir = mkdir(dir, 0777) == 0;
        if (h->made_dir || errno == EEXIST)
            h->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (h->dfd >= 0)
            h->bfd = open_sub(h->dfd, "_backbeat", &h->made_sub);
        bool retry = false;
        if (h->bfd >= 0 && take_lock(h, &retry)) {
            h->dir = realpath(dir, NULL);
            if (!h->dir)
                ds_err(err, "cannot open %s: %s", dir, strerror(errno));
            if (h->dir && ds_recover(h, err))
                return true;
            ds_close(h, true);
            return false;
        }
        int e = errno;
        const char *where = h->dfd < 0 ? "" : h->bfd < 0 ? "/_backbeat" : "/_backbeat/lock";
        close_fds(h);
        if (!retry) {
            ds_err(err, "cannot open %s%s: %s", dir, where, strerror(e));
            return false;
        }
    }
    ds_err(err, "cannot lock %s/_backbeat/lock: it keeps being replaced", dir);
    return false;
}

void ds_close(ds_handle *h, bool failed)
{
    if (failed && h->made_sub && h->bfd >= 0 && h->dir) {
        /* A failed first append: what it made goes (an rmdir of a non-empty one fails). */
        (void)unlinkat(h->bfd, "tmp", AT_REMOVEDIR);
        (void)unlinkat(h->bfd, "lock", 0);
        if (unlinkat(h->dfd, "_backbeat", AT_REMOVEDIR) == 0 && h->made_dir)
            (void)rmdir(h->dir);
    }
    close_fds(h); /* releases the flock */
    free(h->dir);
    h->dir = NULL;
}

bool ds_schema_dump(const ds_handle *h, char **path, bb_error *err)
{
    *path = NULL;
    struct stat st;
    if (fstatat(h->bfd, "schema.bb", &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT)
            return true;
        ds_err(err, "cannot read %s/_backbeat/schema.bb: %s", h->dir, strerror(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        ds_err(err, "%s/_backbeat/schema.bb: not a regular file (a symlink or other file planted in "
                  "the dataset)", h->dir);
        return false;
    }
    *path = join(h->dir, "_backbeat/schema.bb");
    if (!*path)
        ds_err(err, "out of memory");
    return *path != NULL;
}

bool ds_settle_spec(ds_handle *h, ds_spec *spec, bool given, bb_error *err)
{
    char want[64], have[80], why[128];
    bool exists;
    spec_text(spec, want, sizeof want);
    if (!ds_read_small(h->bfd, "partitioning", have, sizeof have, &exists)) {
        ds_err(err, "cannot read %s/_backbeat/partitioning: %s", h->dir,
                  errno == EFBIG ? "too long for partition keys" : strerror(errno));
        return false;
    }
    if (!exists) {
        h->spec_new = true; /* the first append fixes the keys */
        return true;
    }
    have[strcspn(have, "\n")] = 0;
    ds_spec stored;
    if (!parse_spec(have, &stored, why, sizeof why)) {
        ds_err(err, "%s/_backbeat/partitioning: bad partition keys '%s': %s", h->dir, have, why);
        return false;
    }
    if (given && strcmp(have, want) != 0) {
        ds_err(err, "cannot append to %s: it is partitioned by '%s', not '%s' "
                  "(--partition-by must match, or be left out)", h->dir, have, want);
        return false;
    }
    *spec = stored;
    return true;
}

/* ---- partition paths ---- */

/* A partition value, Hive-escaped: bytes outside [A-Za-z0-9._-] as %XX (DuckDB, Polars and
 * Arrow decode them); an empty value is Hive's NULL, __HIVE_DEFAULT_PARTITION__. */
static void put_value(pq_buf *b, const char *p, size_t n)
{
    static const char HEX[] = "0123456789ABCDEF";
    if (n == 0)
        pq_cstr(b, "__HIVE_DEFAULT_PARTITION__");
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
static void put_date(pq_buf *b, uint64_t ts)
{
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
    pq_cstr(b, s);
}

/* The directory of record r under DIR ("host=h/date=d"), into b (emptied first). */
static void part_dir(pq_buf *b, const ds_spec *spec, const bb_mrecord *r, const char *host_ovr)
{
    b->len = 0;
    for (size_t i = 0; i < spec->nkeys; i++) {
        if (i)
            pq_buf_byte(b, '/');
        pq_cstr(b, KEY_NAMES[spec->keys[i]]);
        pq_buf_byte(b, '=');
        switch (spec->keys[i]) {
        case DS_HOST:
            if (host_ovr)
                put_value(b, host_ovr, strlen(host_ovr));
            else
                put_value(b, r->instance ? r->instance->host.ptr : "",
                          r->instance ? r->instance->host.len : 0);
            break;
        case DS_DATE:
            put_date(b, r->rec.ts);
            break;
        case DS_EVENT:
            put_value(b, r->rec.schema->name.ptr, r->rec.schema->name.len);
            break;
        case DS_INSTANCE: {
            char s[24];
            snprintf(s, sizeof s, "%016llx", (unsigned long long)r->rec.instance_id);
            pq_cstr(b, s);
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
    parquet_table *t;
    char err[512];
} part;

typedef struct parts {
    part *v;
    size_t n, cap;
    size_t *slots; /* hash (rel, inst) -> index + 1 */
    size_t mask;
} parts;

static uint64_t part_hash(const char *rel, uint64_t inst)
{
    uint64_t h = 0xcbf29ce484222325ull ^ inst * 0x9e3779b97f4a7c15ull;
    for (const char *p = rel; *p; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

/* The part of (rel, inst), or NULL; *slot where it goes. */
static part *find_part(parts *ps, const char *rel, uint64_t inst, size_t *slot)
{
    size_t j = (size_t)part_hash(rel, inst) & ps->mask;
    for (; ps->slots[j]; j = (j + 1) & ps->mask) {
        part *p = &ps->v[ps->slots[j] - 1];
        if (p->inst == inst && strcmp(p->rel, rel) == 0)
            return p;
    }
    *slot = j;
    return NULL;
}

/* Grow the hash table at half full; false when out of memory. */
static bool grow(parts *ps)
{
    if ((ps->n + 1) * 2 <= ps->mask + 1 && ps->n < ps->cap)
        return true;
    if (ps->n == ps->cap) {
        size_t cap = ps->cap ? ps->cap * 2 : 8;
        part *v = realloc(ps->v, cap * sizeof *v);
        if (!v)
            return false;
        ps->v = v;
        ps->cap = cap;
    }
    if ((ps->n + 1) * 2 > ps->mask + 1) {
        size_t cap = (ps->mask + 1) * 2;
        size_t *s = calloc(cap, sizeof *s);
        if (!s)
            return false;
        free(ps->slots);
        ps->slots = s;
        ps->mask = cap - 1;
        for (size_t i = 0; i < ps->n; i++) {
            size_t j = (size_t)part_hash(ps->v[i].rel, ps->v[i].inst) & ps->mask;
            while (ps->slots[j])
                j = (j + 1) & ps->mask;
            ps->slots[j] = i + 1;
        }
    }
    return true;
}

/* Open a new part for (rel, inst); NULL after a message. */
static part *open_part(parts *ps, size_t slot, ds_txn *t, const char *dir, const char *rel,
                       uint64_t inst, const bb_model *model, const convert_opts *opts,
                       bb_error *err)
{
    if (!grow(ps)) {
        ds_err(err, "out of memory");
        return NULL;
    }
    find_part(ps, rel, inst, &slot); /* the table may have grown: its slot again */
    part *p = &ps->v[ps->n];
    memset(p, 0, sizeof *p);
    p->rel = strdup(rel);
    p->inst = inst;
    int fd = p->rel ? ds_txn_part(t, rel, inst, err) : -1; /* named when the append commits */
    bool ok = fd >= 0;
    if (!p->rel)
        ds_err(err, "out of memory");
    if (ok && !(p->t = parquet_table_open(model, opts, fd, p->err, sizeof p->err))) {
        ds_err(err, "%s/%s: %s", dir, rel, p->err);
        ok = false;
    }
    if (!ok) {
        free(p->rel);
        return NULL;
    }
    ps->slots[slot] = ++ps->n;
    return p;
}

static void free_parts(parts *ps)
{
    for (size_t i = 0; i < ps->n; i++) {
        parquet_table_free(ps->v[i].t);
        free(ps->v[i].rel);
    }
    free(ps->v);
    free(ps->slots);
}

/* Route every new record of the model into its part; 0, or 1 after a message. */
static int route(const ds_handle *h, ds_txn *t, const bb_model *model, const convert_opts *opts,
                 const ds_spec *spec, ds_index *ix, parts *ps, bb_error *err)
{
    bb_model_iter *it;
    pq_buf rel = {0};
    if (bb_model_iter_new(model, &it) != BB_OK) {
        ds_err(err, "out of memory");
        return 1;
    }
    bb_mrecord mr;
    int rc = 0;
    /* The last record's partition: the instance fixes the host, so (instance, day, event)
     * decides the part; runs of records of one part skip the path and the lookup. */
    struct { uint64_t inst, day; const bb_rschema *schema; size_t part; } last = {0, 0, NULL, 0};
    bool have_last = false;
    while (rc == 0 && bb_model_next(it, &mr)) {
        if ((opts->keep && !opts->keep(&mr, opts->keep_ctx)) || ds_index_has(ix, &mr.rec))
            continue;
        uint64_t day = mr.rec.ts / 86400000000000ull;
        part *p = NULL;
        if (have_last && last.inst == mr.rec.instance_id && last.day == day &&
            last.schema == mr.rec.schema)
            p = &ps->v[last.part];
        if (!p) {
            part_dir(&rel, spec, &mr, opts->host_override);
            size_t slot = 0;
            p = find_part(ps, rel.failed ? "" : (const char *)rel.data, mr.rec.instance_id,
                          &slot);
            if (!p && !rel.failed)
                p = open_part(ps, slot, t, h->dir, (const char *)rel.data, mr.rec.instance_id,
                              model, opts, err);
            if (p) {
                last.inst = mr.rec.instance_id;
                last.day = day;
                last.schema = mr.rec.schema;
                last.part = (size_t)(p - ps->v);
                have_last = true;
            }
        }
        if (!p || rel.failed) {
            if (rel.failed)
                ds_err(err, "out of memory");
            rc = 1;
        } else if (parquet_table_row(p->t, &mr)) {
            ds_err(err, "%s/%s: %s", h->dir, p->rel, p->err[0] ? p->err : "out of memory");
            rc = 1;
        } else if (!ds_index_add(ix, &mr.rec)) {
            ds_err(err, "%s: out of memory", h->dir);
            rc = 1;
        }
    }
    bb_model_iter_free(it);
    pq_buf_free(&rel);
    return rc;
}

/* Finish every part (footers); the transaction commits them. 0, or 1 after a message. */
static int finish_parts(const ds_handle *h, parts *ps, bb_error *err)
{
    for (size_t i = 0; i < ps->n; i++)
        if (parquet_table_finish(ps->v[i].t)) {
            ds_err(err, "%s/%s: %s", h->dir, ps->v[i].rel, ps->v[i].err);
            return 1;
        }
    return 0;
}

/* DIR/views.sql: `events` over every part, then the views DDL. */
static bool write_views(const ds_handle *h, const bb_model *model, size_t nkeys, ds_txn *t,
                        bb_error *err)
{
    char *ddl = parquet_views_ddl(model);
    pq_buf b = {0};
    /* The parts relative to DIR (the dataset moves as a whole); the first level of a partitioned
     * dataset is a key=value directory, so a search from elsewhere matches nothing else. */
    pq_cstr(&b, "-- backbeat dataset views; paths are relative to this file's directory DIR. Load with:\n"
                "--   duckdb -cmd \"SET file_search_path = 'DIR'\" -cmd \".read DIR/views.sql\"\n"
                "CREATE OR REPLACE VIEW events AS SELECT * FROM read_parquet('");
    pq_cstr(&b, nkeys ? "*=*/**/part-*.parquet" : "part-*.parquet");
    pq_cstr(&b, "', hive_partitioning = true, union_by_name = true);\n");
    if (ddl)
        pq_cstr(&b, ddl);
    bool ok = ddl && !b.failed;
    if (!ok)
        ds_err(err, "cannot write %s/views.sql: out of memory", h->dir);
    else
        ok = ds_txn_put(t, "views.sql", b.data, b.len, err);
    free(ddl);
    pq_buf_free(&b);
    return ok;
}

/* The files besides the parts: the index, the schema dump, views.sql, the partitioning of a
 * first append. */
static bool add_metadata(const ds_handle *h, ds_txn *t, ds_index *ix, const bb_model *model,
                         const ds_spec *spec, bb_error *err)
{
    char keys[80];
    spec_text(spec, keys, sizeof keys - 1);
    strcat(keys, "\n");
    return (!h->spec_new || ds_txn_put(t, "_backbeat/partitioning", keys, strlen(keys), err)) &&
           ds_index_save(ix, h, t, err) && ds_schema_save(h->dir, model, t, err) &&
           write_views(h, model, spec->nkeys, t, err);
}

/* Whether dfd holds a regular file `name`. */
static bool has_file(int dfd, const char *name)
{
    struct stat st;
    return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

int ds_append(const ds_handle *h, const bb_model *model, const convert_opts *opts,
              const ds_spec *spec, bb_error *err)
{
    ds_index *ix = ds_index_load(h, model, err);
    ds_txn *t = ix ? ds_txn_begin(h, err) : NULL;
    if (!t) {
        ds_index_free(ix);
        return 1;
    }
    parts ps = {0};
    ps.slots = calloc(16, sizeof *ps.slots);
    ps.mask = 15;
    int rc = ps.slots ? route(h, t, model, opts, spec, ix, &ps, err) : 1;
    if (!ps.slots)
        ds_err(err, "out of memory");
    if (rc == 0)
        rc = finish_parts(h, &ps, err);
    bool none = ps.n == 0 && !h->spec_new && has_file(h->bfd, "schema.bb") &&
                has_file(h->dfd, "views.sql");
    free_parts(&ps);
    /* The parts, the index, the schema dump and views.sql as one: all or none; an append that
     * adds no row to a dataset changes no file. */
    if (rc == 0 && !none &&
        (!add_metadata(h, t, ix, model, spec, err) || !ds_txn_commit(t, err)))
        rc = 1;
    ds_txn_free(t);
    ds_index_free(ix);
    return rc;
}
