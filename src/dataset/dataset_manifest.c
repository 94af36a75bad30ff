/* dataset_manifest.c — each append's manifest (see dataset/dataset.h): DIR/_backbeat/appends/<n>,
 * a text file naming the append's sources, what shaped its rows, the Parquet schema key its
 * parts were written with, and its parts, so a rewrite re-converts it exactly:
 *
 *   BBAPPEND1
 *   schema <16 hex>        codec <n>        level <n>        row_group <n>     budget <n>
 *   host <hex bytes>       since <ns>       until <ns>       (each only when given)
 *   events <n>             then n lines "event <16 hex>"  (only with --event)
 *   instance <16 hex>...   source <key>...  part <path under DIR>...
 *
 * one "key value" per line. Also the record filter a shape stands for (ds_shape_keep).
 */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/error_set.h"
#include "dataset/dataset_internal.h"
#include "emit/text.h"
#include "parquet/buf.h"

#define MAGIC "BBAPPEND1\n"

static bool in_sorted(const uint64_t *v, size_t n, uint64_t x) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && v[lo] == x;
}

bool ds_shape_keep(const bb_mrecord *r, void *ctx) {
    const ds_shape *s = ctx;
    return !(s->since_set && r->rec.ts < s->since) && !(s->until_set && r->rec.ts > s->until) &&
           !(s->by_event && !in_sorted(s->events, s->nevents, r->rec.event_id)) &&
           !(s->ninst && !in_sorted(s->inst, s->ninst, r->rec.instance_id));
}

/* "key value\n" with a printf value. */
static void line(pq_buf *b, const char *key, const char *fmt, uint64_t v) {
    char s[64];
    snprintf(s, sizeof s, fmt, v);
    em_cstr(b, key);
    pq_buf_byte(b, ' ');
    em_cstr(b, s);
    pq_buf_byte(b, '\n');
}

char *ds_manifest_text(const ds_manifest *m, bool with_parts) {
    const ds_shape *s = &m->shape;
    pq_buf b = {0};
    em_cstr(&b, MAGIC);
    line(&b, "schema", "%016" PRIx64, m->schema);
    line(&b, "codec", "%" PRIu64, (uint64_t)s->codec);
    line(&b, "level", "%" PRId64, (uint64_t)(int64_t)s->level);
    line(&b, "row_group", "%" PRIu64, s->row_group);
    line(&b, "budget", "%" PRIu64, s->budget);
    if (s->host) {
        static const char HEX[] = "0123456789abcdef";
        em_cstr(&b, "host ");
        for (const char *c = s->host; *c; c++) {
            pq_buf_byte(&b, (uint8_t)HEX[(uint8_t)*c >> 4]);
            pq_buf_byte(&b, (uint8_t)HEX[(uint8_t)*c & 15]);
        }
        em_cstr(&b, "-\n");
    }
    if (s->since_set) line(&b, "since", "%" PRIu64, s->since);
    if (s->until_set) line(&b, "until", "%" PRIu64, s->until);
    if (s->by_event) line(&b, "events", "%" PRIu64, s->nevents);
    for (size_t i = 0; s->by_event && i < s->nevents; i++)
        line(&b, "event", "%016" PRIx64, s->events[i]);
    for (size_t i = 0; i < s->ninst; i++) line(&b, "instance", "%016" PRIx64, s->inst[i]);
    for (size_t i = 0; i < m->nsources; i++) {
        em_cstr(&b, "source ");
        em_cstr(&b, m->sources[i]);
        pq_buf_byte(&b, '\n');
    }
    for (size_t i = 0; with_parts && i < m->nparts; i++) {
        em_cstr(&b, "part ");
        em_cstr(&b, m->parts[i]);
        pq_buf_byte(&b, '\n');
    }
    pq_buf_byte(&b, 0);
    if (b.failed) {
        pq_buf_free(&b);
        return NULL;
    }
    return (char *)b.data;
}

/* Append a copy of v[0..n) to the string list *l; false when out of memory. */
static bool push_str(char ***l, size_t *n, const char *v, size_t len) {
    char **g = realloc(*l, (*n + 1) * sizeof *g);
    if (!g) return false;
    *l = g;
    g[*n] = strndup(v, len);
    return g[*n] && ++*n;
}

static bool push_u64(uint64_t **l, size_t *n, uint64_t v) {
    uint64_t *g = realloc(*l, (*n + 1) * sizeof *g);
    if (!g) return false;
    *l = g;
    g[(*n)++] = v;
    return true;
}

/* A number of `base` filling all of v; false when it is not one. */
static bool num(const char *v, int base, uint64_t *out) {
    char *end;
    errno = 0;
    *out = strtoull(v, &end, base);
    return *v && *v != '-' && !*end && errno == 0;
}

/* --host from "<hex pairs>-"; false when malformed. */
static bool parse_host(const char *v, ds_shape *s) {
    size_t n = strlen(v);
    if (n == 0 || v[n - 1] != '-' || (n - 1) % 2) return false;
    s->host = malloc(n / 2 + 1);
    for (size_t i = 0; s->host && i + 1 < n; i += 2) {
        unsigned x;
        if (sscanf(v + i, "%2x", &x) != 1 || x == 0) return false;
        s->host[i / 2] = (char)x;
    }
    if (s->host) s->host[n / 2] = 0;
    return s->host != NULL;
}

/* One "key value" line into m; false when the key is unknown or the value malformed. */
static bool parse_line(ds_manifest *m, const char *k, const char *v) {
    ds_shape *s = &m->shape;
    uint64_t x;
    if (!strcmp(k, "source") || !strcmp(k, "part"))
        return *v && (!strcmp(k, "source") ? push_str(&m->sources, &m->nsources, v, strlen(v))
                                           : push_str(&m->parts, &m->nparts, v, strlen(v)));
    if (!strcmp(k, "host")) return !s->host && parse_host(v, s);
    if (!strcmp(k, "level")) {
        char *end;
        long l = strtol(v, &end, 10);
        s->level = (int)l;
        return *v && !*end && l >= -131072 && l <= 22;
    }
    bool hex = !strcmp(k, "schema") || !strcmp(k, "event") || !strcmp(k, "instance");
    if (!num(v, hex ? 16 : 10, &x)) return false;
    if (!strcmp(k, "schema")) m->schema = x;
    else if (!strcmp(k, "codec")) s->codec = (int)x;
    else if (!strcmp(k, "row_group")) s->row_group = x;
    else if (!strcmp(k, "budget")) s->budget = x;
    else if (!strcmp(k, "since")) s->since_set = true, s->since = x;
    else if (!strcmp(k, "until")) s->until_set = true, s->until = x;
    else if (!strcmp(k, "events")) s->by_event = true;
    else if (!strcmp(k, "event")) return s->by_event && push_u64(&s->events, &s->nevents, x);
    else if (!strcmp(k, "instance")) return push_u64(&s->inst, &s->ninst, x);
    else return false;
    return strcmp(k, "codec") != 0 || x <= 64;
}

/* Parse text (NUL-terminated, modified) into m; false when it is not a manifest. */
static bool parse(ds_manifest *m, char *text) {
    if (strncmp(text, MAGIC, strlen(MAGIC)) != 0) return false;
    for (char *p = text + strlen(MAGIC); *p;) {
        char *nl = strchr(p, '\n'), *sp = strchr(p, ' ');
        if (!nl || !sp || sp > nl) return false;
        *nl = *sp = 0;
        if (!parse_line(m, p, sp + 1)) return false;
        p = nl + 1;
    }
    return m->shape.row_group && m->shape.budget;
}

static void free_one(ds_manifest *m);

static int by_name(const void *a, const void *b) {
    return strcmp(((const ds_manifest *)a)->name, ((const ds_manifest *)b)->name);
}

/* Load appends/<name> into m; false after a message. */
static bool load_one(const ds_handle *h, int afd, const char *name, ds_manifest *m, bb_error *err) {
    uint8_t *b;
    size_t n;
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    if (!ds_slurp(afd, name, (size_t)1 << 26, &b, &n) || !b) {
        ds_err(err, "cannot read %s/_backbeat/appends/%s: %s", h->dir, name, strerror(errno));
        return false;
    }
    bool ok = strlen((char *)b) == n && parse(m, (char *)b);
    free(b);
    if (!ok) ds_err(err, "%s/_backbeat/appends/%s: not an append manifest", h->dir, name);
    return ok;
}

/* Whether `name` is a manifest's name (8 digits). */
static bool manifest_name(const char *name) {
    size_t n = strlen(name);
    return n == 8 && strspn(name, "0123456789") == n;
}

bool ds_manifests_load(const ds_handle *h, ds_manifest **v, size_t *n, bb_error *err) {
    *v = NULL;
    *n = 0;
    int afd = ds_open_dirs(h->bfd, "appends", false);
    if (afd < 0 && errno == ENOENT) return true;
    DIR *d = afd >= 0 ? fdopendir(afd) : NULL;
    if (!d) {
        ds_err(err, "cannot read %s/_backbeat/appends: %s", h->dir, strerror(errno));
        if (afd >= 0) close(afd);
        return false;
    }
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d));) {
        if (!manifest_name(e->d_name)) continue;
        ds_manifest *g = realloc(*v, (*n + 1) * sizeof *g);
        ok = g != NULL;
        if (!ok) ds_err(err, "out of memory");
        else *v = g;
        if (ok && (ok = load_one(h, dirfd(d), e->d_name, &g[*n], err))) ++*n;
        else if (g) free_one(&g[*n]);
    }
    closedir(d);
    if (ok && *n) qsort(*v, *n, sizeof **v, by_name);
    if (!ok) {
        ds_manifests_free(*v, *n);
        *v = NULL;
        *n = 0;
    }
    return ok;
}

/* Free the contents of one manifest. */
static void free_one(ds_manifest *m) {
    for (size_t i = 0; i < m->nsources; i++) free(m->sources[i]);
    for (size_t i = 0; i < m->nparts; i++) free(m->parts[i]);
    free(m->sources);
    free(m->parts);
    free(m->shape.events);
    free(m->shape.inst);
    free(m->shape.host);
}

void ds_manifests_free(ds_manifest *v, size_t n) {
    for (size_t i = 0; i < n; i++) free_one(&v[i]);
    free(v);
}
