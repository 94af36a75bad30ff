/* dataset_txn.c — an append's files committed as a whole (see dataset/dataset.h).
 *
 * Every file of an append (parts, index files, the schema dump, views.sql, the partitioning and
 * the part counter) is first written under DIR/_backbeat/tmp/ (created O_EXCL | O_NOFOLLOW,
 * never matched by a reader's `*.parquet` glob). The commit names each part (part-<instance>-
 * <n>.parquet, n from the dataset's counter DIR/_backbeat/next, the next free name), writes a
 * journal listing "temporary<TAB>final path" and renames it to DIR/_backbeat/journal: that
 * rename is the commit point. Then every temporary is renamed into place and the journal
 * removed. An appender killed before the commit point leaves only temporaries, which the next
 * appender removes (it holds the lock, so they are a dead appender's); one killed after it
 * leaves a journal, which the next appender completes before reading anything. So a dataset
 * always holds a whole append or none of it, and a retry adds exactly what is missing.
 * Directories inside the dataset are opened O_NOFOLLOW one component at a time and files with
 * O_NOFOLLOW: a symlink planted inside a dataset is refused or replaced, never followed.
 * Also: the paths of the dataset shortened for messages (ds_path_msg).
 */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error_set.h"
#include "dataset/dataset_internal.h"

#define JOURNAL "journal"
#define JOURNAL_MAGIC "BBJOURNAL1\n"

typedef struct entry {
    char tmp[48];
    char *final; /* path under DIR; for a part (is_part) its partition directory until named */
    bool is_part, was_part; /* was_part: a new part, named at the commit */
    uint64_t inst;
    int fd; /* open until the commit */
} entry;

struct ds_txn {
    const ds_handle *h;
    int tfd; /* DIR/_backbeat/tmp */
    entry *v;
    size_t n, cap;
    unsigned seq;
    long fault, step;               /* BACKBEAT_DATASET_FAULT: _exit at that step (tests) */
    char *manifest, *manifest_head; /* ds_txn_set_manifest */
    bool committed;                 /* the journal is in place: the temporaries are its, not ours */
    struct made {
        char *rel;  /* a partition directory path this append created ... */
        size_t top; /* ... from its prefix of this length on */
    } * made;
    size_t nmade;
};

/* The start of the UTF-8 character holding byte i of s (a cut never splits one). */
static size_t char_start(const char *s, size_t i) {
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80) i--;
    return i;
}

const char *ds_path_msg(char buf[DS_PATH_MSG], const char *dir, const char *rel) {
    char full[8192];
    int n = snprintf(full, sizeof full, "%s%s%s", dir, rel ? "/" : "", rel ? rel : "");
    size_t len = n < 0 ? 0 : (size_t)n < sizeof full ? (size_t)n : sizeof full - 1;
    if (len < DS_PATH_MSG) {
        memcpy(buf, full, len + 1);
        return buf;
    }
    size_t head = char_start(full, 56), tail = len - (DS_PATH_MSG - 1 - head - 3);
    while (tail < len && ((unsigned char)full[tail] & 0xC0) == 0x80) tail++;
    snprintf(buf, DS_PATH_MSG, "%.*s...%s", (int)head, full, full + tail);
    return buf;
}

/* Test hook: the appender dies at fault step K (BACKBEAT_DATASET_FAULT=K), as a kill would. */
static void step(ds_txn *t) {
    if (t && t->fault > 0 && ++t->step == t->fault) _exit(70);
}

/* ds_open_dirs; *made (when given): the length of the prefix of rel that ends with the first
 * directory this call created (each one after it was created too), 0 when it made none. */
static int open_dirs(int dfd, const char *rel, bool create, size_t *made) {
    int fd = dup(dfd);
    const char *p = rel;
    if (made) *made = 0;
    while (fd >= 0 && *p) {
        size_t n = strcspn(p, "/");
        char comp[256];
        if (n == 0 || n >= sizeof comp) {
            close(fd);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(comp, p, n);
        comp[n] = 0;
        if (!strcmp(comp, ".") || !strcmp(comp, "..")) { /* never out of the dataset */
            close(fd);
            errno = EINVAL;
            return -1;
        }
        bool mk = create && mkdirat(fd, comp, 0777) == 0;
        if (create && !mk && errno != EEXIST) {
            close(fd);
            return -1;
        }
        if (mk && made && !*made) *made = (size_t)(p - rel) + n;
        int nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        close(fd);
        errno = e;
        fd = nfd;
        p += n + (p[n] == '/');
    }
    return fd;
}

int ds_open_dirs(int dfd, const char *rel, bool create) {
    return open_dirs(dfd, rel, create, NULL);
}

bool ds_read_small(int dfd, const char *name, char *buf, size_t cap, bool *exists) {
    *exists = false;
    buf[0] = 0;
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT;
    struct stat st;
    ssize_t r = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size < cap)
        r = read(fd, buf, cap - 1);
    else if (fstat(fd, &st) == 0) errno = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
    close(fd);
    if (r < 0) return false;
    buf[r] = 0;
    *exists = true;
    return true;
}

/* Empty DIR/_backbeat/tmp: a dead appender's temporaries (the caller holds the lock). */
static bool clean_tmp(const ds_handle *h) {
    int fd = openat(h->bfd, "tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return false;
    }
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) (void)unlinkat(fd, e->d_name, 0);
    closedir(d);
    return true;
}

/* Rename temporary `tmp` (in tfd) to `final` under DIR; done already when `tmp` is gone. */
static bool apply_one(const ds_handle *h, int tfd, const char *tmp, const char *final,
                      bb_error *err) {
    struct stat st;
    const char *slash = strrchr(final, '/'), *base = slash ? slash + 1 : final;
    /* A journal names a temporary of _backbeat/tmp/ and a path under DIR, nothing else (a
     * planted journal must not move files out of the dataset or in from elsewhere in it). */
    if (!*tmp || strchr(tmp, '/') || !strcmp(tmp, ".") || !strcmp(tmp, "..") || !*base ||
        !strcmp(base, ".") || !strcmp(base, "..")) {
        ds_err(err,
               "%s/_backbeat/" JOURNAL ": not a temporary and a path in the dataset: '%s' '%s'",
               h->dir, tmp, final);
        return false;
    }
    if (fstatat(tfd, tmp, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) return true;
    char rel[4096];
    size_t dn = slash ? (size_t)(slash - final) : 0;
    if (dn >= sizeof rel) {
        char pm[DS_PATH_MSG];
        ds_err(err, "cannot commit %s: %s", ds_path_msg(pm, h->dir, final), strerror(ENAMETOOLONG));
        return false;
    }
    memcpy(rel, final, dn);
    rel[dn] = 0;
    int dfd = ds_open_dirs(h->dfd, rel, true);
    bool ok = dfd >= 0 && renameat(tfd, tmp, dfd, slash ? slash + 1 : final) == 0;
    if (!ok) {
        char pm[DS_PATH_MSG];
        ds_err(err, "cannot commit %s: %s", ds_path_msg(pm, h->dir, final), strerror(errno));
    }
    if (dfd >= 0) close(dfd);
    return ok;
}

/* The journal's renames, then the journal removed; false after a message. */
static bool apply_journal(const ds_handle *h, int tfd, char *text, ds_txn *t, bb_error *err) {
    if (strncmp(text, JOURNAL_MAGIC, strlen(JOURNAL_MAGIC)) != 0) {
        ds_err(err, "%s/_backbeat/" JOURNAL ": not a backbeat append journal", h->dir);
        return false;
    }
    bool ok = true;
    for (char *line = text + strlen(JOURNAL_MAGIC); ok && *line;) {
        char *nl = strchr(line, '\n'), *tab = strchr(line, '\t');
        if (!nl || !tab || tab > nl) {
            ds_err(err, "%s/_backbeat/" JOURNAL ": a torn line", h->dir);
            return false;
        }
        *nl = *tab = 0;
        ok = apply_one(h, tfd, line, tab + 1, err);
        step(t);
        line = nl + 1;
    }
    /* The renames on the disk (one syncfs) before the journal goes. */
    if (ok && syncfs(h->bfd) != 0) {
        ds_err(err, "cannot commit %s: %s", h->dir, strerror(errno));
        ok = false;
    }
    if (ok && (unlinkat(h->bfd, JOURNAL, 0) != 0 || fsync(h->bfd) != 0)) {
        ds_err(err, "cannot remove %s/_backbeat/" JOURNAL ": %s", h->dir, strerror(errno));
        ok = false;
    }
    return ok;
}

/* Contract: see dataset.h. */
bool ds_write_all(int fd, const void *p, size_t n) {
    const uint8_t *b = p;
    while (n) {
        ssize_t w = write(fd, b, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        b += w;
        n -= (size_t)w;
    }
    return true;
}

bool ds_slurp(int dfd, const char *name, size_t max, uint8_t **data, size_t *len) {
    *data = NULL;
    *len = 0;
    int fd = dfd < 0 ? -1 : openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return dfd < 0 || errno == ENOENT;
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size <= max;
    if (!ok && errno == 0) errno = EINVAL;
    size_t n = ok ? (size_t)st.st_size : 0;
    uint8_t *b = ok ? malloc(n + 1) : NULL;
    size_t got = 0;
    while (b && got < n) {
        ssize_t r = read(fd, b + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    if (!b || got != n) {
        free(b);
        return false;
    }
    b[n] = 0;
    *data = b;
    *len = n;
    return true;
}

/* Read the whole journal (NUL-terminated, malloc'ed); NULL with *absent when there is none. */
static char *read_journal(const ds_handle *h, bool *absent) {
    uint8_t *b;
    size_t n;
    errno = 0;
    bool ok = ds_slurp(h->bfd, JOURNAL, ((size_t)1 << 30) - 1, &b, &n);
    *absent = ok && !b;
    return ok ? (char *)b : NULL;
}

bool ds_recover(const ds_handle *h, bb_error *err) {
    bool absent;
    char *j = read_journal(h, &absent);
    bool ok = absent;
    if (j) {
        int tfd = openat(h->bfd, "tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        ok = tfd >= 0 && apply_journal(h, tfd, j, NULL, err);
        if (tfd < 0) ds_err(err, "cannot open %s/_backbeat/tmp: %s", h->dir, strerror(errno));
        if (tfd >= 0) close(tfd);
        free(j);
    } else if (!absent) {
        ds_err(err, "cannot read %s/_backbeat/" JOURNAL ": %s", h->dir, strerror(errno));
    }
    if (ok && !clean_tmp(h)) {
        ds_err(err, "cannot clean %s/_backbeat/tmp: %s", h->dir, strerror(errno));
        ok = false;
    }
    return ok;
}

ds_txn *ds_txn_begin(const ds_handle *h, bb_error *err) {
    ds_txn *t = calloc(1, sizeof *t);
    if (!t) {
        ds_err(err, "out of memory");
        return NULL;
    }
    t->h = h;
    const char *f = getenv("BACKBEAT_DATASET_FAULT");
    t->fault = f ? atol(f) : 0;
    t->tfd = ds_open_dirs(h->bfd, "tmp", true);
    if (t->tfd < 0) {
        ds_err(err, "cannot create %s/_backbeat/tmp: %s", h->dir, strerror(errno));
        free(t);
        return NULL;
    }
    return t;
}

/* A new temporary for `final` (a part's partition directory when is_part); -1 after a
 * message. */
static int add_entry(ds_txn *t, const char *final, bool is_part, uint64_t inst, bb_error *err) {
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 16;
        entry *v = realloc(t->v, cap * sizeof *v);
        if (!v) {
            ds_err(err, "out of memory");
            return -1;
        }
        t->v = v;
        t->cap = cap;
    }
    entry *e = &t->v[t->n];
    memset(e, 0, sizeof *e);
    snprintf(e->tmp, sizeof e->tmp, "%ld-%u.tmp", (long)getpid(), t->seq++);
    e->final = strdup(final);
    e->is_part = is_part;
    e->inst = inst;
    e->fd = e->final
                ? openat(t->tfd, e->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666)
                : -1;
    if (e->fd < 0) {
        ds_err(err, "cannot write %s/_backbeat/tmp/%s: %s", t->h->dir, e->tmp,
               e->final ? strerror(errno) : "out of memory");
        free(e->final);
        return -1;
    }
    t->n++;
    return e->fd;
}

int ds_txn_file(ds_txn *t, const char *final, bb_error *err) {
    return add_entry(t, final, false, 0, err);
}

int ds_txn_part(ds_txn *t, const char *rel, uint64_t inst, bb_error *err) {
    return add_entry(t, rel, true, inst, err);
}

bool ds_txn_put(ds_txn *t, const char *final, const void *data, size_t len, bb_error *err) {
    int fd = add_entry(t, final, false, 0, err);
    const uint8_t *p = data;
    while (fd >= 0 && len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            ds_err(err, "cannot write %s/%s: %s", t->h->dir, final, strerror(w < 0 ? errno : EIO));
            return false;
        }
        p += w;
        len -= (size_t)w;
    }
    return fd >= 0;
}

/* The dataset's part counter (DIR/_backbeat/next), 0 when absent; false after a message. */
static bool read_counter(const ds_handle *h, uint64_t *next, bb_error *err) {
    char buf[32], *end = buf;
    bool exists;
    *next = 0;
    bool ok = ds_read_small(h->bfd, "next", buf, sizeof buf, &exists);
    if (ok && exists) {
        errno = 0;
        *next = strtoull(buf, &end, 10);
        ok = buf[0] >= '0' && buf[0] <= '9' && errno == 0 && (!*end || !strcmp(end, "\n"));
    }
    if (!ok) {
        ds_err(err, "%s/_backbeat/next: not a part counter (a decimal number)", h->dir);
        return false;
    }
    return true;
}

/* Remember that rel's directories from its prefix of `top` bytes on were made by this append;
 * false when out of memory. */
static bool remember_made(ds_txn *t, const char *rel, size_t top) {
    struct made *v = realloc(t->made, (t->nmade + 1) * sizeof *v);
    if (!v) return false;
    t->made = v;
    v[t->nmade].rel = strdup(rel);
    v[t->nmade].top = top;
    if (!v[t->nmade].rel) return false;
    t->nmade++;
    return true;
}

/* A failed append: the partition directories it made go, deepest first (each is empty: its
 * parts were never renamed into it). */
static void remove_made(ds_txn *t) {
    for (size_t i = t->nmade; i-- > 0;) {
        char *rel = t->made[i].rel;
        for (size_t n = strlen(rel); n >= t->made[i].top && n > 0;) {
            rel[n] = 0;
            if (unlinkat(t->h->dfd, rel, AT_REMOVEDIR) != 0) break;
            char *slash = strrchr(rel, '/');
            n = slash ? (size_t)(slash - rel) : 0;
        }
    }
}

/* Name part e: the first part-<inst>-<n>.parquet free in its directory, n from `base` (the
 * append's number) on; *next past every n used. False after a message. */
static bool name_part(ds_txn *t, entry *e, uint64_t base, uint64_t *next, bb_error *err) {
    size_t top;
    int dfd = open_dirs(t->h->dfd, e->final, true, &top);
    if (top && !remember_made(t, e->final, top)) {
        if (dfd >= 0) close(dfd);
        dfd = -1;
        errno = ENOMEM;
    }
    if (dfd < 0) {
        char pm[DS_PATH_MSG];
        ds_err(err, "cannot create %s: %s", ds_path_msg(pm, t->h->dir, e->final), strerror(errno));
        return false;
    }
    char name[64];
    struct stat st;
    for (uint64_t n = base;; n++) {
        if (n == UINT64_MAX) {
            ds_err(err, "%s: the part counter is exhausted", t->h->dir);
            close(dfd);
            return false;
        }
        snprintf(name, sizeof name, "part-%016" PRIx64 "-%" PRIu64 ".parquet", e->inst, n);
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT) {
            *next = n + 1 > *next ? n + 1 : *next;
            break;
        }
    }
    close(dfd);
    size_t n = strlen(e->final) + strlen(name) + 2;
    char *f = malloc(n);
    if (!f) {
        ds_err(err, "out of memory");
        return false;
    }
    snprintf(f, n, "%s/%s", e->final, name);
    free(e->final);
    e->final = f;
    e->is_part = false;
    return true;
}

void ds_txn_set_manifest(ds_txn *t, const char *final, char *head) {
    free(t->manifest);
    free(t->manifest_head);
    t->manifest = strdup(final);
    t->manifest_head = head;
}

/* Close entries [from, to) (their data reaches the disk with the commit's syncfs); false
 * after a message. */
static bool close_entries(ds_txn *t, size_t from, size_t to, bb_error *err) {
    for (size_t i = from; i < to; i++) {
        entry *e = &t->v[i];
        if (e->fd < 0) continue;
        bool ok = close(e->fd) == 0;
        e->fd = -1;
        if (!ok) {
            ds_err(err, "cannot write %s/%s: %s", t->h->dir, e->final, strerror(errno));
            return false;
        }
    }
    return true;
}

bool ds_txn_close(ds_txn *t, int fd, bb_error *err) {
    for (size_t i = t->n; i-- > 0;) /* the entries closed early are the latest ones */
        if (t->v[i].fd == fd) return close_entries(t, i, i + 1, err);
    return true;
}

/* The manifest (ds_txn_set_manifest) with the named parts' lines; false after a message. */
static bool put_manifest(ds_txn *t, size_t nentries, bb_error *err) {
    if (!t->manifest) return true;
    size_t n = strlen(t->manifest_head ? t->manifest_head : "") + 1;
    for (size_t i = 0; i < nentries; i++) n += t->v[i].was_part ? strlen(t->v[i].final) + 6 : 0;
    char *s = t->manifest_head ? malloc(n) : NULL;
    if (!s) {
        ds_err(err, "out of memory");
        return false;
    }
    size_t o = (size_t)snprintf(s, n, "%s", t->manifest_head);
    for (size_t i = 0; i < nentries; i++)
        if (t->v[i].was_part) o += (size_t)snprintf(s + o, n - o, "part %s\n", t->v[i].final);
    bool ok = ds_txn_put(t, t->manifest, s, o, err);
    free(s);
    return ok;
}

/* Every temporary complete on disk and closed; the parts named; the counter and the manifest
 * added. */
static bool prepare(ds_txn *t, bb_error *err) {
    uint64_t base, next;
    if (!read_counter(t->h, &base, err)) return false;
    next = base;
    bool parts = false;
    size_t n = t->n;
    for (size_t i = 0; i < n; i++) {
        entry *e = &t->v[i];
        if (!close_entries(t, i, i + 1, err)) return false;
        step(t);
        parts |= e->is_part;
        e->was_part = e->is_part;
        if (e->is_part && !name_part(t, e, base, &next, err)) return false;
    }
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%" PRIu64 "\n", next);
    if (parts && !ds_txn_put(t, "_backbeat/next", buf, (size_t)len, err)) return false;
    return put_manifest(t, n, err) && close_entries(t, n, t->n, err);
}

/* The journal text of the prepared entries (malloc'ed; NULL when out of memory). */
static char *journal_text(const ds_txn *t, size_t *len) {
    size_t n = strlen(JOURNAL_MAGIC) + 1;
    for (size_t i = 0; i < t->n; i++) n += strlen(t->v[i].tmp) + strlen(t->v[i].final) + 2;
    char *s = malloc(n);
    size_t o = 0;
    if (s) {
        o += (size_t)snprintf(s, n, "%s", JOURNAL_MAGIC);
        for (size_t i = 0; i < t->n; i++)
            o += (size_t)snprintf(s + o, n - o, "%s\t%s\n", t->v[i].tmp, t->v[i].final);
    }
    *len = o;
    return s;
}

/* Write the journal aside and rename it into place: the commit point. */
static bool write_journal(ds_txn *t, bb_error *err) {
    size_t len;
    char *text = journal_text(t, &len);
    if (!text) {
        ds_err(err, "out of memory");
        return false;
    }
    entry j = {0};
    snprintf(j.tmp, sizeof j.tmp, "%ld-journal.tmp", (long)getpid());
    int fd = openat(t->tfd, j.tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    bool ok = fd >= 0 && write(fd, text, len) == (ssize_t)len && fsync(fd) == 0;
    if (fd >= 0 && close(fd) != 0) ok = false;
    free(text);
    step(t);
    ok = ok && renameat(t->tfd, j.tmp, t->h->bfd, JOURNAL) == 0 && fsync(t->h->bfd) == 0;
    if (!ok) {
        ds_err(err, "cannot write %s/_backbeat/" JOURNAL ": %s", t->h->dir, strerror(errno));
        (void)unlinkat(t->tfd, j.tmp, 0);
    }
    return ok;
}

bool ds_txn_commit(ds_txn *t, bb_error *err) {
    if (!prepare(t, err)) return false;
    /* Every temporary, the directories made for the parts and _backbeat/tmp itself on the disk
     * before the journal: one syncfs, not an fsync per file (thousands of parts). */
    if (syncfs(t->tfd) != 0) {
        ds_err(err, "cannot write %s/_backbeat/tmp: %s", t->h->dir, strerror(errno));
        return false;
    }
    if (!write_journal(t, err)) return false;
    t->committed = true;
    step(t);
    bool absent;
    char *j = read_journal(t->h, &absent);
    bool ok = j && apply_journal(t->h, t->tfd, j, t, err);
    if (!j) ds_err(err, "cannot read %s/_backbeat/" JOURNAL ": %s", t->h->dir, strerror(errno));
    free(j);
    return ok;
}

void ds_txn_free(ds_txn *t) {
    if (!t) return;
    for (size_t i = 0; i < t->n; i++) {
        if (t->v[i].fd >= 0) close(t->v[i].fd);
        if (!t->committed) (void)unlinkat(t->tfd, t->v[i].tmp, 0);
        free(t->v[i].final);
    }
    if (!t->committed) remove_made(t);
    for (size_t i = 0; i < t->nmade; i++) free(t->made[i].rel);
    free(t->made);
    free(t->v);
    free(t->manifest);
    free(t->manifest_head);
    close(t->tfd);
    free(t);
}
