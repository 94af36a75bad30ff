/* sink_sparse_test.c — the hole-leaving fd sink (src/format/sink_sparse.c): what is read back
 * is exactly what was written, whatever the fd (a regular file, the same with O_APPEND, a pipe)
 * and however the zeros fall (leading, inside, trailing, small writes); on a regular file the
 * zero blocks become holes (checked where the file system makes holes at all); and a recorder
 * dump of a mostly empty 16 x 16 MiB configuration occupies a small part of its size on disk
 * and reads back byte for byte like the same dump in memory. */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backbeat/backbeat.h"
#include "format/sink_sparse.h"

static int failures;
#define CHECK(c)                                                                  \
    do {                                                                          \
        if (!(c)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); \
            failures++;                                                           \
        }                                                                         \
    } while (0)

BB_EVENT(sp_ev, "test::sparse", "Tick", NULL, BB_FIELD(uint64_t, n, NULL));

static char dir[] = "/tmp/bb_sparse_XXXXXX";

/* The contents of `path` (malloc'ed, *len set). */
static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    *len = b && fread(b, 1, (size_t)n, f) == (size_t)n ? (size_t)n : 0;
    fclose(f);
    return b;
}

/* Allocated bytes of `path`. */
static uint64_t on_disk(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_blocks * 512 : 0;
}

/* An input of `n` bytes: zeros except a marker byte every `every` bytes from `from`. */
static uint8_t *pattern(size_t n, size_t from, size_t every) {
    uint8_t *p = calloc(1, n);
    for (size_t i = from; i < n; i += every) p[i] = (uint8_t)(i * 7 + 1);
    return p;
}

/* Write `in` through the sparse sink in writes of `chunk` bytes to a fresh file opened with
 * `flags`, after a 5-byte prefix; check the bytes read back. Returns the bytes left as holes. */
static uint64_t roundtrip(const char *path, int flags, const uint8_t *in, size_t n, size_t chunk) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | flags, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, "hello", 5) == 5);
    bb__sparse_fd s;
    bb__sparse_fd_init(&s, fd);
    bb__sink k = bb__sink_sparse_fd(&s);
    for (size_t off = 0; off < n; off += chunk)
        CHECK(k.write(k.ctx, in + off, n - off < chunk ? n - off : chunk) == 0);
    CHECK(bb__sparse_fd_finish(&s) == 0);
    CHECK(lseek(fd, 0, SEEK_CUR) == (off_t)(n + 5) || (flags & O_APPEND));
    close(fd);
    size_t len = 0;
    uint8_t *back = slurp(path, &len);
    CHECK(back && len == n + 5 && memcmp(back, "hello", 5) == 0 && memcmp(back + 5, in, n) == 0);
    free(back);
    return s.holes;
}

/* True when this file system leaves a hole for a seek past 1 MiB. */
static bool fs_has_holes(const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    bool ok = fd >= 0 && lseek(fd, 1 << 20, SEEK_SET) > 0 && write(fd, "x", 1) == 1;
    if (fd >= 0) close(fd);
    ok = ok && on_disk(path) < (1u << 19);
    unlink(path);
    return ok;
}

static void sink_cases(void) {
    char path[64];
    snprintf(path, sizeof path, "%s/out", dir);
    const size_t n = 1u << 20;
    uint8_t *all_zero = calloc(1, n), *sparse = pattern(n, 300000, 1u << 18),
            *dense = pattern(n, 0, 4096);
    /* regular file: zero blocks become holes, the bytes are the same */
    CHECK(roundtrip(path, 0, all_zero, n, n) >= n - 65536);
    CHECK(roundtrip(path, 0, sparse, n, n) > n / 2);
    CHECK(roundtrip(path, 0, dense, n, n) == 0);
    roundtrip(path, 0, sparse, n, 4096);   /* small writes: written as they come */
    roundtrip(path, 0, sparse, n, 200000); /* writes not multiple of the block */
    /* O_APPEND: a seek would not move the next write; everything is written */
    CHECK(roundtrip(path, O_APPEND, all_zero, n, n) == 0);
    CHECK(roundtrip(path, O_APPEND, sparse, n, n) == 0);
    /* a pipe: written through */
    int p[2];
    CHECK(pipe(p) == 0);
    if (fork() == 0) { /* drain and count */
        close(p[1]);
        uint8_t buf[65536];
        size_t total = 0;
        ssize_t r;
        while ((r = read(p[0], buf, sizeof buf)) > 0) total += (size_t)r;
        _exit(total == n ? 0 : 1);
    }
    close(p[0]);
    bb__sparse_fd s;
    bb__sparse_fd_init(&s, p[1]);
    bb__sink k = bb__sink_sparse_fd(&s);
    CHECK(k.write(k.ctx, all_zero, n) == 0 && bb__sparse_fd_finish(&s) == 0 && s.holes == 0);
    close(p[1]);
    int st = 0;
    wait(&st);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    unlink(path);
    free(all_zero);
    free(sparse);
    free(dense);
}

/* A mostly empty 16 x 16 MiB recorder dumped to a file: holes, and the same bytes as in memory. */
static void recorder_case(bool holes) {
    bb_recorder *rec = bb_recorder_new(16, 16u << 20);
    CHECK(rec != NULL);
    if (!rec) return;
    bb_recorder_enable(rec, true);
    for (uint64_t i = 0; i < 1000; i++) BB_RECORD(rec, sp_ev, .n = i);
    char path[64];
    snprintf(path, sizeof path, "%s/rec.bb", dir);
    bb_error err;
    CHECK(bb_recorder_dump_path(rec, path, NULL, &err) == BB_OK);
    void *mem = NULL;
    size_t mem_len = 0;
    CHECK(bb_recorder_dump_buffer(rec, &mem, &mem_len, &err) == BB_OK);
    size_t len = 0;
    uint8_t *file = slurp(path, &len);
    CHECK(file && len == mem_len && len > (256u << 20) && memcmp(file, mem, len) == 0);
    uint64_t disk = on_disk(path);
    fprintf(stderr, "sink_sparse: dump of %zu MiB occupies %llu KiB on disk\n", len >> 20,
            (unsigned long long)(disk >> 10));
    if (holes) CHECK(disk < len / 16);
    free(file);
    free(mem);
    unlink(path);
    bb_recorder_free(rec);
}

int main(void) {
    if (!mkdtemp(dir)) return 1;
    char probe[64];
    snprintf(probe, sizeof probe, "%s/probe", dir);
    bool holes = fs_has_holes(probe);
    if (!holes) fprintf(stderr, "sink_sparse: %s makes no holes: on-disk sizes not checked\n", dir);
    sink_cases();
    recorder_case(holes);
    rmdir(dir);
    if (failures) fprintf(stderr, "sink_sparse: %d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
