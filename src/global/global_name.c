/* global_name.c — dump file names `<stem>.<YYYYMMDDThhmmssmmmZ>[-N].<ext>` and publishing.
 *
 * Everything here is async-signal-safe (no malloc, no stdio, no locale, no gmtime): the crash
 * handler names and publishes its dump with the same code as the dumper thread. A dump is
 * written to a temporary name and then hard-linked under its final name, which fails instead of
 * replacing an existing file, so no dump is overwritten or seen half-written.
 */
/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/message.h"
#include "global/global_internal.h"

uint64_t bb__g_realtime_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t bb__g_monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void bb__g_format_utc_ms(uint64_t unix_ns, char out[20]) { bb__utc_stamp(unix_ns, out); }

size_t bb__g_path_ext_dot(const char *path) {
    size_t len = strlen(path);
    size_t base = 0;
    for (size_t i = 0; i < len; i++)
        if (path[i] == '/') base = i + 1;
    for (size_t i = len; i > base; i--) {
        if (path[i - 1] == '.') {
            size_t dot = i - 1;
            if (dot == base || dot + 1 == len) return len; /* ".hidden" or "name." */
            return dot;
        }
    }
    return len;
}

/* Whether the final component of `path` (length len) ends in ".bb" after at least one
 * character of its own. */
static bool ends_in_bb(const char *path, size_t len) {
    if (len < 4 || strcmp(path + len - 3, ".bb") != 0) return false;
    return path[len - 4] != '/';
}

/* Contract: see global_internal.h. */
size_t bb__g_pid_path(char *out, size_t cap, const char *path, bool is_default, long pid) {
    if (!cap) return 0;
    out[0] = '\0';
    if (is_default) return bb__g_append_str(out, cap, 0, path) < cap ? strlen(out) : 0;
    char num[24];
    bb__g_append_u64(num, sizeof num, 0, (uint64_t)(pid > 0 ? pid : 0));
    size_t len = 0;
    bool placed = false;
    for (const char *p = path; *p && len < cap; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            len = bb__g_append_str(out, cap, len, num);
            placed = true;
            p++;
        } else if (len + 1 < cap) {
            out[len++] = *p;
            out[len] = '\0';
        } else {
            len = cap;
        }
    }
    if (len >= cap) return 0;
    /* The stem: the path before its ".bb", or the whole path (any other extension is part of
     * the stem); then ".<pid>" unless a "%p" placed it, then ".bb". */
    if (ends_in_bb(out, len)) out[len -= 3] = '\0';
    if (!placed) {
        len = bb__g_append_str(out, cap, len, ".");
        len = bb__g_append_str(out, cap, len, num);
    }
    len = bb__g_append_str(out, cap, len, ".bb");
    return len >= cap ? 0 : len;
}

size_t bb__g_append_str(char *out, size_t cap, size_t len, const char *s) {
    if (len >= cap) return len;
    while (*s && len + 1 < cap) out[len++] = *s++;
    out[len] = '\0';
    return *s ? cap : len; /* cap signals truncation */
}

size_t bb__g_append_u64(char *out, size_t cap, size_t len, uint64_t v) {
    char tmp[21];
    int n = 0;
    do {
        tmp[20 - ++n] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    tmp[20] = '\0';
    return bb__g_append_str(out, cap, len, tmp + 20 - n);
}

size_t bb__g_dump_name(char *out, size_t cap, const char *base, size_t dot, const char ts[20],
                       unsigned seq) {
    size_t blen = strlen(base);
    if (dot > blen) dot = blen;
    if (dot + 1 >= cap) return 0;
    memcpy(out, base, dot);
    out[dot] = '\0';
    size_t len = bb__g_append_str(out, cap, dot, ".");
    len = bb__g_append_str(out, cap, len, ts);
    if (seq) {
        len = bb__g_append_str(out, cap, len, "-");
        len = bb__g_append_u64(out, cap, len, seq);
    }
    if (dot < blen) len = bb__g_append_str(out, cap, len, base + dot);
    return len >= cap ? 0 : len;
}

int bb__g_publish(const char *tmp, char *out, size_t cap, const char *base, size_t dot,
                  const char ts[20], unsigned *seqp) {
    unsigned seq = *seqp;
    for (unsigned tries = 0; tries < 10000; tries++, seq++) {
        *seqp = seq;
        if (!bb__g_dump_name(out, cap, base, dot, ts, seq)) {
            unlink(tmp);
            return ENAMETOOLONG;
        }
        if (link(tmp, out) == 0) {
            unlink(tmp);
            return 0;
        }
        int e = errno;
        if (e == EEXIST) continue;
        if (e == EPERM || e == ENOSYS || e == EOPNOTSUPP || e == EXDEV || e == EMLINK) {
            /* No hard links here: rename, after checking the name is free (a small race with
             * other processes remains on such file systems). */
            if (access(out, F_OK) == 0) continue;
            if (rename(tmp, out) == 0) return 0;
            e = errno;
        }
        unlink(tmp);
        return e;
    }
    unlink(tmp);
    return EEXIST;
}

void bb__g_stderr_line(const char *message) { bb__message(message); }
