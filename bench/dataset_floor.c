/* dataset_floor.c — the file system's floor under a dataset append (issue 43, finding 3): the
 * same tree an append of N one-host instances makes (per instance host=<i>/date=<d>/, a part of
 * PART bytes and an index file of INDEX bytes, each written to a temporary and renamed into
 * place), then the two syncfs calls of the append's commit, with no Parquet, no reading and no
 * journal. Prints the wall seconds; bench.sh sets it beside `convert --dataset` of such a dump.
 *
 *   dataset_floor DIR N PART INDEX */
/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Write `n` bytes of buf to a new temporary `tmp` and rename it to `final`; 0 or -1. */
static int put(const char *tmp, const char *final, const char *buf, size_t n) {
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) return -1;
    int ok = write(fd, buf, n) == (ssize_t)n;
    ok = close(fd) == 0 && ok;
    return ok && rename(tmp, final) == 0 ? 0 : -1;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: dataset_floor DIR N PART INDEX\n");
        return 2;
    }
    const char *dir = argv[1];
    unsigned n = (unsigned)strtoul(argv[2], NULL, 10);
    size_t part = strtoul(argv[3], NULL, 10), index = strtoul(argv[4], NULL, 10);
    char *buf = calloc(1, part > index ? part : index);
    char a[4096], b[4096];
    if (!buf || mkdir(dir, 0777) != 0) {
        perror(dir);
        return 1;
    }
    double t0 = now();
    snprintf(a, sizeof a, "%s/_tmp", dir);
    snprintf(b, sizeof b, "%s/_index", dir);
    int rc = mkdir(a, 0777) | mkdir(b, 0777);
    for (unsigned i = 0; rc == 0 && i < n; i++) {
        snprintf(a, sizeof a, "%s/host=host-%u", dir, i);
        rc |= mkdir(a, 0777);
        snprintf(a, sizeof a, "%s/host=host-%u/date=2001-09-09", dir, i);
        rc |= mkdir(a, 0777);
        snprintf(a, sizeof a, "%s/_tmp/%u-p.tmp", dir, i);
        snprintf(b, sizeof b, "%s/host=host-%u/date=2001-09-09/part-%016x-0.parquet", dir, i, i);
        rc |= put(a, b, buf, part);
        snprintf(a, sizeof a, "%s/_tmp/%u-i.tmp", dir, i);
        snprintf(b, sizeof b, "%s/_index/%016x.keys", dir, i);
        rc |= put(a, b, buf, index);
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    rc |= dfd < 0 || syncfs(dfd) != 0 || syncfs(dfd) != 0;
    if (dfd >= 0) close(dfd);
    if (rc) {
        perror(dir);
        return 1;
    }
    printf("%.4f\n", now() - t0);
    free(buf);
    return 0;
}
