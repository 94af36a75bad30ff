/* fuzz_dataset.c — libFuzzer target: `backbeat convert SEED.bb --dataset DIR` (in-process) into a
 * fresh dataset whose _backbeat/partitioning, _backbeat/next, _backbeat/journal and the seed
 * instance's index file (_backbeat/index/<16 hex>.keys) are fuzzer-supplied bytes.
 *
 * Input layout: one flags byte (bit 0 partitioning, bit 1 next, bit 2 journal, bit 3 index file
 * present; bit 4: a dead appender's temporary _backbeat/tmp/t0 and a file outside the dataset,
 * WORK/outside, that no journal may reach), then for each of partitioning, next and journal that is present a 2-byte
 * little-endian length and that many bytes (cut at the input's end), then the index file: the
 * rest of the input. SEED.bb is the golden dump basic.bb (BACKBEAT_COMPAT_DIR, default
 * /work/shared/compat); its first instance names the index file.
 *
 * Checked promises (a broken one aborts, so libFuzzer records a crash): the status is 0, 1 or 2;
 * a failure prints a "backbeat: " message on stderr and leaves no part (part-*.parquet outside
 * _backbeat/) visible (unless a journal could commit t0 as one); nothing is created, moved or
 * removed outside the dataset directory. The dataset directory is removed after each input. Built with
 * -DBB_FUZZ=ON (clang); fuzz/run.sh runs it; tests/fuzz.cmake's fuzz_dataset_smoke runs fixed
 * inputs through the same entry point (fuzz/dataset_smoke_main.c).
 */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backbeat/reader.h"
#include "cli/commands.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char workdir[256]; /* "" until made */
static char seed[4096];
static uint64_t seed_instance;

extern void __sanitizer_report_error_summary(const char *summary) __attribute__((weak));
extern void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

static void violation(const char *what, const char *detail) {
    char msg[768];
    snprintf(msg, sizeof msg, "fuzz_dataset: convert --dataset broke its contract: %s%s%s", what,
             detail ? ": " : "", detail ? detail : "");
    fprintf(stderr, "%s\n", msg);
    if (__sanitizer_report_error_summary) __sanitizer_report_error_summary(msg);
    abort();
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path) != 0 ? 0 : 0;
}

/* Remove `path` and everything under it (symlinks not followed). */
static void rm_tree(const char *path) {
    nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void remove_workdir(void) {
    if (workdir[0]) rm_tree(workdir);
}

/* The work directory, the seed dump and its instance (once); stdout sent to /dev/null. */
static void setup(void) {
    if (workdir[0]) return;
    const char *dir = getenv("BACKBEAT_COMPAT_DIR");
    if (!dir || !*dir) dir = "/work/shared/compat";
    snprintf(seed, sizeof seed, "%s/basic.bb", dir);
    bb_dump *d = NULL;
    bb_error err;
    memset(&err, 0, sizeof err);
    if (bb_dump_open(seed, &d, &err) != BB_OK || bb_dump_instance_count(d) == 0) {
        fprintf(stderr, "fuzz_dataset: no seed dump %s (set BACKBEAT_COMPAT_DIR): %s\n", seed,
                err.message);
        exit(77);
    }
    seed_instance = bb_dump_instance(d, 0)->instance_id;
    bb_dump_close(d);

    const char *base = getenv("TMPDIR");
    if (access("/dev/shm", W_OK) == 0) base = "/dev/shm";
    else if (!base || !*base) base = "/tmp";
    snprintf(workdir, sizeof workdir, "%s/bbfuzzds.XXXXXX", base);
    if (!mkdtemp(workdir)) {
        perror("fuzz_dataset: mkdtemp");
        abort();
    }
    atexit(remove_workdir);
    struct stat e, n;
    bool closed = fstat(STDERR_FILENO, &e) == 0 && stat("/dev/null", &n) == 0 &&
                  e.st_dev == n.st_dev && e.st_ino == n.st_ino;
    if (!closed && __sanitizer_set_report_fd)
        __sanitizer_set_report_fd((void *)(intptr_t)dup(STDERR_FILENO));
    int fd = open("/dev/null", O_WRONLY);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) abort();
    close(fd);
}

static void write_file(const char *path, const uint8_t *data, size_t size) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) abort();
    for (size_t done = 0; done < size;) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) abort();
        done += (size_t)w;
    }
    close(fd);
}

/* The next length-prefixed field of the input: *len bytes at the returned pointer. */
static const uint8_t *take(const uint8_t **p, const uint8_t *end, size_t *len) {
    size_t n = 0;
    if (end - *p >= 2) n = (size_t)(*p)[0] | (size_t)(*p)[1] << 8, *p += 2;
    else *p = end;
    if (n > (size_t)(end - *p)) n = (size_t)(end - *p);
    const uint8_t *at = *p;
    *p += n;
    *len = n;
    return at;
}

/* Parts (part-*.parquet) visible under `dir`, _backbeat/ not counted. */
static size_t count_parts(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t n = 0;
    char p[4096];
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "_backbeat"))
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) != 0) continue;
        size_t len = strlen(e->d_name);
        if (S_ISDIR(st.st_mode)) n += count_parts(p);
        else if (!strncmp(e->d_name, "part-", 5) && len > 8 &&
                 !strcmp(e->d_name + len - 8, ".parquet"))
            n++;
    }
    closedir(d);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    setup();
    const uint8_t *p = data, *end = data + size;
    unsigned flags = size ? *p++ : 0;
    char ds[512], bk[600], path[700];
    snprintf(ds, sizeof ds, "%s/ds", workdir);
    snprintf(bk, sizeof bk, "%s/_backbeat", ds);
    if (mkdir(ds, 0755) != 0 || mkdir(bk, 0755) != 0) abort();
    static const char *const names[] = {"partitioning", "next", "journal"};
    for (unsigned i = 0; i < 3; i++) {
        if (!(flags & 1u << i)) continue;
        size_t n;
        const uint8_t *at = take(&p, end, &n);
        snprintf(path, sizeof path, "%s/%s", bk, names[i]);
        write_file(path, at, n);
    }
    if (flags & 16u) {
        snprintf(path, sizeof path, "%s/tmp", bk);
        if (mkdir(path, 0755) != 0) abort();
        snprintf(path, sizeof path, "%s/tmp/t0", bk);
        write_file(path, (const uint8_t *)"PAR1", 4);
        snprintf(path, sizeof path, "%s/outside", workdir);
        write_file(path, (const uint8_t *)"x", 1);
    }
    if (flags & 8u) {
        snprintf(path, sizeof path, "%s/index", bk);
        if (mkdir(path, 0755) != 0) abort();
        snprintf(path, sizeof path, "%s/index/%016llx.keys", bk, (unsigned long long)seed_instance);
        write_file(path, p, (size_t)(end - p));
    }

    char errpath[300], sub[] = "convert", opt[] = "--dataset";
    snprintf(errpath, sizeof errpath, "%s/stderr", workdir);
    char *argv[] = {sub, seed, opt, ds, NULL};
    fflush(stderr);
    int saved = dup(STDERR_FILENO), fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (saved < 0 || fd < 0 || dup2(fd, STDERR_FILENO) < 0) abort();
    close(fd);
    int st = cmd_convert(4, argv);
    fflush(stderr);
    if (dup2(saved, STDERR_FILENO) < 0) abort();
    close(saved);

    if (st != 0 && st != 1 && st != 2) violation("exit status neither 0, 1 nor 2", NULL);
    if (st != 0) {
        char msg[4096];
        fd = open(errpath, O_RDONLY);
        ssize_t n = fd < 0 ? -1 : read(fd, msg, sizeof msg - 1);
        if (fd >= 0) close(fd);
        msg[n > 0 ? n : 0] = 0;
        if (!strstr(msg, "backbeat: ")) violation("a failure without a message", msg);
        if (!((flags & 20u) == 20u) && count_parts(ds))
            violation("a failure left a part visible", msg);
    }
    DIR *w = opendir(workdir);
    if (!w) abort();
    for (struct dirent *e; (e = readdir(w));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "ds") &&
            strcmp(e->d_name, "stderr") && strcmp(e->d_name, "outside"))
            violation("a file created outside the dataset", e->d_name);
    closedir(w);
    snprintf(path, sizeof path, "%s/outside", workdir);
    char x[2] = {0};
    fd = open(path, O_RDONLY);
    if ((flags & 16u) && (fd < 0 || read(fd, x, 2) != 1 || x[0] != 'x'))
        violation("a file outside the dataset moved, replaced or removed", path);
    if (fd >= 0) close(fd);
    unlink(path);
    rm_tree(ds);
    unlink(errpath);
    return 0;
}
