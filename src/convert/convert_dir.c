/* convert/convert_dir.c — conversions whose output is a directory (a CTF trace): written into
 * a hidden temporary directory beside the destination and renamed into place only when it
 * succeeded, so that no partial directory ever looks like a trace. An existing destination is
 * replaced only when it is empty or a trace this writer made (see convert/convert.h). */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error_set.h"
#include "convert/convert.h"
#include "ctf/ctf.h"

#define io_err(err, ...) bb__err_set((err), BB_ERR_IO, UINT64_MAX, NULL, __VA_ARGS__)

/* Remove the files of a flat directory, then the directory; false when one remains. */
static bool remove_flat(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return errno == ENOENT;
    int fd = dirfd(d);
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) unlinkat(fd, de->d_name, 0);
    closedir(d);
    return rmdir(dir) == 0;
}

/* What is at `path`: 0 nothing, 1 an empty directory, 2 a trace of ours (a `metadata` file
 * this writer's prologue begins and `stream_*` files alone), -1 anything else. */
static int existing(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode)) return -1;
    DIR *d = opendir(path);
    if (!d) return -1;
    int kind = 1;
    struct dirent *de;
    while (kind >= 0 && (de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        if (!strcmp(de->d_name, "metadata")) kind = kind == 1 ? 2 : kind;
        else if (strncmp(de->d_name, "stream_", 7)) kind = -1;
    }
    if (kind == 2) {
        char head[64] = "";
        int fd = openat(dirfd(d), "metadata", O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, head, sizeof head - 1) : -1;
        if (fd >= 0) close(fd);
        head[n > 0 ? n : 0] = 0;
        if (strncmp(head, "/* CTF 1.8 */\n/* backbeat ", 26)) kind = -1;
    }
    closedir(d);
    return kind;
}

/* `path` without trailing slashes (malloc'ed; "/" stays "/"). */
static char *strip_slashes(const char *path) {
    char *p = strdup(path);
    if (!p) return NULL;
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/') p[--n] = 0;
    return p;
}

/* "<dir>/.<base>.<tag>-XXXXXX" beside `path`. */
static char *beside(const char *path, const char *tag) {
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
    size_t n = strlen(path) + strlen(tag) + 16;
    char *t = malloc(n);
    if (t) snprintf(t, n, "%.*s.%s.%s-XXXXXX", (int)dl, path, path + dl, tag);
    return t;
}

/* Put the finished `tmp` at `path`, replacing an old trace of ours (kind 2) after. */
static bool commit_dir(const char *tmp, const char *path, int kind, bb_error *err) {
    char *old = kind == 2 ? beside(path, "old") : NULL;
    if (kind == 2 && (!old || !mkdtemp(old) || rename(path, old) != 0)) {
        io_err(err, "cannot replace %s: %s", path, strerror(errno));
        if (old) rmdir(old);
        free(old);
        return false;
    }
    bool ok = rename(tmp, path) == 0;
    if (!ok) io_err(err, "cannot write %s: %s", path, strerror(errno));
    if (!ok && old) rename(old, path); /* put the old trace back */
    else if (old) remove_flat(old);
    free(old);
    return ok;
}

/* Write the trace into the fresh directory `tmp`; false with the message set. */
static bool write_into(const bb_model *model, const convert_opts *opts, const char *tmp,
                       const char *path, bb_error *err) {
    int fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        io_err(err, "cannot write %s: %s", path, strerror(errno));
        return false;
    }
    char errbuf[512] = "";
    int rc = ct_write(model, opts, fd, errbuf, sizeof errbuf);
    close(fd);
    if (rc) {
        const char *why = errbuf[0] ? errbuf : "conversion failed";
        if (strstr(errbuf, path)) io_err(err, "%s", why);
        else io_err(err, "%s: %s", path, why);
    }
    return rc == 0;
}

bool cv_convert_dir(const bb_model *model, const convert_opts *opts, const char *out,
                    bb_error *err) {
    if (!strcmp(out, "-") || !out[0]) {
        io_err(err, "a CTF trace is a directory: give -o DIR, not '%s'", out);
        return false;
    }
    char *path = strip_slashes(out), *tmp = path ? beside(path, "ctf") : NULL;
    bool ok = false;
    int kind = path ? existing(path) : 0;
    if (!tmp) {
        io_err(err, "cannot write %s: out of memory", out);
    } else if (kind < 0) {
        io_err(err,
               "cannot write %s: it exists and is not an empty directory or a backbeat "
               "CTF trace",
               path);
    } else if (!mkdtemp(tmp)) {
        io_err(err, "cannot write %s: %s", path, strerror(errno));
    } else {
        mode_t mask = umask(0); /* mkdtemp's 0700 made what a directory of the user's would be */
        umask(mask);
        chmod(tmp, 0777 & ~mask);
        convert_opts o = *opts;
        if (!o.out_name) o.out_name = path;
        ok = write_into(model, &o, tmp, path, err) && commit_dir(tmp, path, kind, err);
        if (!ok) remove_flat(tmp);
    }
    free(tmp);
    free(path);
    return ok;
}
