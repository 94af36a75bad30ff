/* gtest_util.h — small helpers shared by the global recorder's tests: checks, temporary
 * directories, listing the dump files in one. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_GTEST_UTIL_H
#define BB_GTEST_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int gt_failures;

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            gt_failures++;                                                           \
        }                                                                            \
    } while (0)

#define CHECK_STR(a, b)                                                               \
    do {                                                                              \
        const char *a_ = (a), *b_ = (b);                                              \
        if (strcmp(a_, b_) != 0) {                                                    \
            fprintf(stderr, "%s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__, a_, b_); \
            gt_failures++;                                                            \
        }                                                                             \
    } while (0)

static inline int gt_done(void) {
    if (gt_failures) fprintf(stderr, "%d check(s) failed\n", gt_failures);
    return gt_failures ? 1 : 0;
}

/* A fresh directory under $TMPDIR (or /tmp); out must hold PATH_MAX. */
static inline void gt_tmpdir(char *out, size_t cap, const char *tag) {
    const char *t = getenv("TMPDIR");
    if (!t || !*t) t = "/tmp";
    snprintf(out, cap, "%s/bbg-%s-XXXXXX", t, tag);
    if (!mkdtemp(out)) {
        perror("mkdtemp");
        exit(2);
    }
}

/* Number of entries in dir whose names start with prefix and end with suffix ("" = any);
 * the sorted names are stored in names (if given, up to max, each malloc'ed). */
static inline int gt_list(const char *dir, const char *prefix, const char *suffix, char **names,
                          int max) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name), pl = strlen(prefix), sl = strlen(suffix);
        if (e->d_name[0] == '.' && (l == 1 || (l == 2 && e->d_name[1] == '.'))) continue;
        if (l < pl + sl || strncmp(e->d_name, prefix, pl) != 0 ||
            strcmp(e->d_name + l - sl, suffix) != 0)
            continue;
        if (names && n < max) names[n] = strdup(e->d_name);
        n++;
    }
    closedir(d);
    if (names) {
        int m = n < max ? n : max;
        for (int i = 1; i < m; i++)
            for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
                char *t = names[j];
                names[j] = names[j - 1];
                names[j - 1] = t;
            }
    }
    return n;
}

/* Remove every entry of dir, then dir. */
static inline void gt_rmdir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[4096];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static inline void gt_free_names(char **names, int n) {
    for (int i = 0; i < n; i++) free(names[i]);
}

#endif
