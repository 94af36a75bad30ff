/* emit/outfile.c — output files written aside and renamed into place, removed when a signal
 * ends the process mid-write (see emit/outfile.h). */
/* SPDX-License-Identifier: MIT */
#include "emit/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error_set.h"

/* Every failure here is an I/O one, with no input offset. */
#define io_err(err, ...) bb__err_set((err), BB_ERR_IO, UINT64_MAX, NULL, __VA_ARGS__)

/* Temporaries to remove if a signal ends the process mid-write. */
#define MAX_PENDING 4
static char *volatile pending_tmp[MAX_PENDING];
static bool handlers_installed;

static void on_fatal_signal(int sig) {
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending_tmp[i]) unlink(pending_tmp[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void pending_add(char *tmp) {
    if (!handlers_installed) {
        handlers_installed = true;
        int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
            struct sigaction sa;
            /* An inherited ignore (nohup, a shell's trap '' HUP) is kept: the user asked for
             * the signal not to end the process. */
            if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN) continue;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_fatal_signal;
            sigemptyset(&sa.sa_mask);
            sigaction(sigs[i], &sa, NULL);
        }
        /* Past a file-size limit (ulimit -f) a write fails with EFBIG, reported and cleaned
         * up like a full disk, instead of SIGXFSZ killing the process beside its temporary. */
        struct sigaction xa;
        if (sigaction(SIGXFSZ, NULL, &xa) == 0 && xa.sa_handler == SIG_DFL) {
            xa.sa_handler = SIG_IGN;
            sigaction(SIGXFSZ, &xa, NULL);
        }
    }
    for (int i = 0; i < MAX_PENDING; i++)
        if (!pending_tmp[i]) {
            pending_tmp[i] = tmp;
            return;
        }
}

static void pending_remove(char *tmp) {
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending_tmp[i] == tmp) pending_tmp[i] = NULL;
}

/* The file a chain of symlinks at `path` ends at, existing or not (malloc'ed); NULL when `path`
 * is not a symlink or the chain cannot be followed (a loop, out of memory). */
static char *link_target(const char *path) {
    struct stat lst;
    if (lstat(path, &lst) != 0 || !S_ISLNK(lst.st_mode)) return NULL;
    char *cur = realpath(path, NULL);
    if (cur) return cur;
    cur = strdup(path);
    for (int hop = 0; cur && hop < 40; hop++) {
        if (lstat(cur, &lst) != 0 || !S_ISLNK(lst.st_mode)) return cur; /* the missing end */
        char to[PATH_MAX];
        ssize_t len = readlink(cur, to, sizeof to - 1);
        if (len <= 0) break;
        to[len] = 0;
        const char *slash = strrchr(cur, '/');
        size_t dirlen = to[0] == '/' || !slash ? 0 : (size_t)(slash - cur + 1);
        char *next = malloc(dirlen + (size_t)len + 1);
        if (next) {
            memcpy(next, cur, dirlen);
            memcpy(next + dirlen, to, (size_t)len + 1);
        }
        free(cur);
        cur = next;
    }
    free(cur);
    return NULL;
}

bool em_out_open(em_out *o, const char *path, bb_error *err) {
    memset(o, 0, sizeof *o);
    o->fd = -1;
    if (!strcmp(path, "-")) {
        o->fd = STDOUT_FILENO;
        return true;
    }
    /* An existing non-regular file (a FIFO, /dev/null, a terminal) is written in place:
     * renaming over it would replace the device. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            io_err(err, "cannot write %s: Is a directory", path);
            return false;
        }
        o->fd = open(path, O_WRONLY | O_CLOEXEC);
        if (o->fd < 0) {
            io_err(err, "cannot write %s: %s", path, strerror(errno));
            return false;
        }
        return true;
    }
    /* Through a symlink: write beside its target and rename onto the target (the link stays;
     * a dangling link gets its target created). */
    char *resolved = link_target(path);
    if (resolved) path = resolved;
    bool existed = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    o->path = strdup(path);
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(path) + 32;
    o->tmp = malloc(n);
    if (!o->path || !o->tmp) {
        io_err(err, "cannot write %s: out of memory", path);
        free(resolved);
        free(o->path);
        free(o->tmp);
        o->path = o->tmp = NULL;
        return false;
    }
    snprintf(o->tmp, n, "%.*s.%s.tmp.XXXXXX", (int)dirlen, path, base);
    free(resolved);
    path = o->path;
    o->fd = mkstemp(o->tmp);
    if (o->fd < 0) {
        io_err(err, "cannot write %s: %s", path, strerror(errno));
        free(o->path);
        free(o->tmp);
        o->path = o->tmp = NULL;
        return false;
    }
    pending_add(o->tmp);
    /* mkstemp creates 0600: keep the mode of the file replaced, else the usual 0666 & ~umask. */
    mode_t um = umask(0);
    umask(um);
    (void)fchmod(o->fd, existed ? st.st_mode & 07777 : 0666 & ~um);
    return true;
}

bool em_out_commit(em_out *o, bb_error *err) {
    if (!o->tmp) {
        bool ok = true;
        if (o->fd > STDERR_FILENO && close(o->fd) != 0) {
            io_err(err, "cannot write output: %s", strerror(errno));
            ok = false;
        }
        o->fd = -1;
        return ok;
    }
    bool ok = true;
    if (close(o->fd) != 0) {
        io_err(err, "cannot write %s: %s", o->path, strerror(errno));
        ok = false;
    } else if (rename(o->tmp, o->path) != 0) {
        io_err(err, "cannot write %s: %s", o->path, strerror(errno));
        ok = false;
    }
    o->fd = -1;
    if (!ok) unlink(o->tmp);
    pending_remove(o->tmp);
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
    return ok;
}

bool em_write_file(const char *path, const void *data, size_t len, bool sync, bb_error *err) {
    em_out o;
    if (!em_out_open(&o, path, err)) return false;
    const uint8_t *p = data;
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(o.fd, p + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
    if (off != len || (sync && fsync(o.fd) != 0)) {
        io_err(err, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
        em_out_abort(&o);
        return false;
    }
    return em_out_commit(&o, err);
}

void em_out_abort(em_out *o) {
    if (!o->tmp) {
        if (o->fd > STDERR_FILENO) close(o->fd);
        o->fd = -1;
        return;
    }
    if (o->fd >= 0) close(o->fd);
    unlink(o->tmp);
    pending_remove(o->tmp);
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
    o->fd = -1;
}
