/* dataset.c — `convert --dataset DIR`: the partition keys, the lock, the schema dump's path
 * (see dataset/dataset.h; the append itself is dataset_append.c). */
/* SPDX-License-Identifier: MIT */
#include "dataset/dataset_internal.h"

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
#include "emit/text.h"
#include "parquet/buf.h"

/* Parse `text` into *out; false with what is wrong in why[cap]. */
static bool parse_spec(const char *text, ds_spec *out, char *why, size_t cap) {
    memset(out, 0, sizeof *out);
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int k = -1;
        for (int i = 0; i < DS_MAX_KEYS; i++)
            if (strlen(ds_key_name((ds_key)i)) == n && memcmp(ds_key_name((ds_key)i), p, n) == 0)
                k = i;
        bool dup = false;
        for (size_t i = 0; i < out->nkeys; i++) dup |= (int)out->keys[i] == k;
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

bool ds_parse_spec(const char *text, ds_spec *out, bb_error *err) {
    char why[128];
    if (parse_spec(text, out, why, sizeof why)) return true;
    ds_err(err, "bad --partition-by '%s': %s", text, why);
    return false;
}

void ds_spec_text(const ds_spec *spec, char *buf, size_t cap) {
    size_t o = 0;
    buf[0] = 0;
    for (size_t i = 0; i < spec->nkeys && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? "," : "", ds_key_name(spec->keys[i]));
}

/* "<a>/<b>", malloc'ed (NULL: out of memory). */
static char *join(const char *a, const char *b) {
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s/%s", a, b);
    return s;
}

/* mkdirat that accepts an existing directory, then openat O_NOFOLLOW; -1 with errno. *made
 * tells whether this call created it. */
static int open_sub(int at, const char *name, bool *made) {
    *made = mkdirat(at, name, 0777) == 0;
    if (!*made && errno != EEXIST) return -1;
    return openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* flock DIR/_backbeat/lock, then check it is still the file of that name (a failed first
 * append removes it): false with errno, or with *retry when it was replaced meanwhile. */
static bool take_lock(ds_handle *h, bool *retry) {
    *retry = false;
    h->lock_fd = openat(h->bfd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (h->lock_fd < 0) return false;
    int rc;
    while ((rc = flock(h->lock_fd, LOCK_EX)) != 0 && errno == EINTR)
        ;
    struct stat a, b;
    if (rc != 0 || fstat(h->lock_fd, &a) != 0) return false;
    *retry = fstatat(h->bfd, "lock", &b, AT_SYMLINK_NOFOLLOW) != 0 || a.st_ino != b.st_ino ||
             a.st_dev != b.st_dev;
    return !*retry;
}

static void close_fds(ds_handle *h) {
    int *fds[] = {&h->lock_fd, &h->bfd, &h->dfd};
    for (size_t i = 0; i < 3; i++) {
        if (*fds[i] >= 0) close(*fds[i]);
        *fds[i] = -1;
    }
}

bool ds_open(ds_handle *h, const char *dir, bb_error *err) {
    memset(h, 0, sizeof *h);
    h->dfd = h->bfd = h->lock_fd = -1;
    for (int attempt = 0; attempt < 16; attempt++) {
        h->made_dir = mkdir(dir, 0777) == 0;
        if (h->made_dir || errno == EEXIST) h->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (h->dfd >= 0) h->bfd = open_sub(h->dfd, "_backbeat", &h->made_sub);
        bool retry = false;
        if (h->bfd >= 0 && take_lock(h, &retry)) {
            h->dir = realpath(dir, NULL);
            if (!h->dir) ds_err(err, "cannot open %s: %s", dir, strerror(errno));
            if (h->dir && ds_recover(h, err)) return true;
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

void ds_close(ds_handle *h, bool failed) {
    if (failed && h->made_sub && h->bfd >= 0 && h->dir) {
        /* A failed first append: what it made goes (an rmdir of a non-empty one fails). */
        (void)unlinkat(h->bfd, "tmp", AT_REMOVEDIR);
        (void)unlinkat(h->bfd, "lock", 0);
        if (unlinkat(h->dfd, "_backbeat", AT_REMOVEDIR) == 0 && h->made_dir) (void)rmdir(h->dir);
    }
    close_fds(h); /* releases the flock */
    free(h->dir);
    h->dir = NULL;
}

bool ds_schema_dump(const ds_handle *h, char **path, bb_error *err) {
    *path = NULL;
    struct stat st;
    if (fstatat(h->bfd, "schema.bb", &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) return true;
        ds_err(err, "cannot read %s/_backbeat/schema.bb: %s", h->dir, strerror(errno));
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        ds_err(err,
               "%s/_backbeat/schema.bb: not a regular file (a symlink or other file planted in "
               "the dataset)",
               h->dir);
        return false;
    }
    *path = join(h->dir, "_backbeat/schema.bb");
    if (!*path) ds_err(err, "out of memory");
    return *path != NULL;
}

bool ds_settle_spec(ds_handle *h, ds_spec *spec, bool given, bb_error *err) {
    char want[64], have[80], why[128];
    bool exists;
    ds_spec_text(spec, want, sizeof want);
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
        ds_err(err,
               "cannot append to %s: it is partitioned by '%s', not '%s' "
               "(--partition-by must match, or be left out)",
               h->dir, have, want);
        return false;
    }
    *spec = stored;
    return true;
}
