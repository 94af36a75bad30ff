/* dump_direct.c — a dump to a file written straight from the live rings (recorder_dump.c
 * direct_region: a quiet recorder) is byte for byte the dump made through the copies of the
 * rings (bb_recorder_dump_buffer): the same cut of each lapped ring, the same blanks, the same
 * exact Intern section. To a path; to an fd whose file ends where the dump begins (after bytes
 * of the caller's, which stay); to an fd with bytes after its offset (the copies then, and the
 * bytes after the dump's end stay the caller's). The busy case (writers moving during the direct
 * dump, which is then done again through the copies) is the recorder_*_file tests': the
 * concurrent, lapped and live-dump tests with their dumps through bb_recorder_dump_path.
 * Usage: recorder_dump_direct [DIR] (default: the working directory). */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/recorder_internal.h"
#include "rec_util.h"

BB_EVENT(dd_small, "test::direct", "Small", NULL, BB_FIELD(uint64_t, seq, NULL));
BB_EVENT(dd_named, "test::direct", "Named", NULL, BB_FIELD(uint64_t, seq, NULL),
         BB_INTERN_DYN_F(name, "A distinct string."), BB_FIELD(uint32_t, pad, NULL),
         BB_FIELD(uint64_t, a, NULL), BB_FIELD(uint64_t, b, NULL));

static char dir[4000];

/* The file at `path` from offset `from`, `n` bytes (malloc'ed), or NULL. */
static uint8_t *read_at(const char *path, off_t from, size_t n) {
    uint8_t *b = malloc(n ? n : 1);
    int fd = open(path, O_RDONLY);
    ssize_t got = fd >= 0 && b ? pread(fd, b, n, from) : -1;
    if (fd >= 0) close(fd);
    if (got != (ssize_t)n) {
        fprintf(stderr, "dump_direct: %s: %zd of %zu bytes at %lld\n", path, got, n,
                (long long)from);
        free(b);
        return NULL;
    }
    return b;
}

static void same(const char *what, const uint8_t *got, const uint8_t *want, size_t n) {
    if (got && memcmp(got, want, n) == 0) return;
    size_t k = 0;
    while (got && k < n && got[k] == want[k]) k++;
    fprintf(stderr, "dump_direct: %s: differs from the dump through the copies at byte %zu\n", what,
            k);
    rec_failures++;
}

static off_t file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Write `n` bytes of `c` to a new file at `path`; returns the fd, at offset `at`. */
static int prefilled(const char *path, uint8_t c, size_t n, off_t at) {
    uint8_t b[4096];
    memset(b, c, sizeof b);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    for (size_t w = 0; fd >= 0 && w < n; w += sizeof b)
        if (write(fd, b, n - w < sizeof b ? n - w : sizeof b) < 0) break;
    if (fd >= 0) lseek(fd, at, SEEK_SET);
    return fd;
}

static void compare(bb_recorder *rec, const char *round) {
    void *want = NULL;
    size_t len = 0;
    bb_error err;
    CHECK(bb_recorder_dump_buffer(rec, &want, &len, &err) == BB_OK);
    char path[4096], what[128];
    snprintf(path, sizeof path, "%s/dump_direct.bb", dir);
    uint64_t direct = __atomic_load_n(&bb__dumps_direct, __ATOMIC_RELAXED);
    CHECK(bb_recorder_dump_path(rec, path, NULL, &err) == BB_OK);
    CHECK_EQ_U64(__atomic_load_n(&bb__dumps_direct, __ATOMIC_RELAXED), direct + 1);
    CHECK_EQ_U64(file_size(path), len);
    uint8_t *got = read_at(path, 0, len);
    snprintf(what, sizeof what, "%s, to a path", round);
    same(what, got, want, len);
    free(got);

    int fd = prefilled(path, 0xab, 100, 100); /* the file ends where the dump begins */
    CHECK(fd >= 0 && bb_recorder_dump_fd(rec, fd, &err) == BB_OK);
    close(fd);
    CHECK_EQ_U64(__atomic_load_n(&bb__dumps_direct, __ATOMIC_RELAXED), direct + 2);
    CHECK_EQ_U64(file_size(path), 100 + len);
    got = read_at(path, 100, len);
    snprintf(what, sizeof what, "%s, to an fd after 100 bytes", round);
    same(what, got, want, len);
    free(got);
    got = read_at(path, 0, 100);
    CHECK(got && got[0] == 0xab && got[99] == 0xab);
    free(got);

    size_t more = len + 5000; /* bytes after the offset: through the copies */
    fd = prefilled(path, 0xcd, more, 0);
    CHECK(fd >= 0 && bb_recorder_dump_fd(rec, fd, &err) == BB_OK);
    close(fd);
    CHECK_EQ_U64(__atomic_load_n(&bb__dumps_direct, __ATOMIC_RELAXED), direct + 2);
    CHECK_EQ_U64(file_size(path), more);
    got = read_at(path, 0, more);
    snprintf(what, sizeof what, "%s, to an fd with bytes after it", round);
    same(what, got, want, len);
    CHECK(got && got[len] == 0xcd && got[more - 1] == 0xcd);
    free(got);
    unlink(path);
    free(want);
}

/* Records on each CPU in turn (each CPU has its shard on the rseq path). */
static void record(bb_recorder *rec, uint64_t n, uint64_t salt) {
    cpu_set_t all, one;
    CPU_ZERO(&all);
    sched_getaffinity(0, sizeof all, &all);
    for (int c = 0, done = 0; c < CPU_SETSIZE && done < 2; c++) {
        if (!CPU_ISSET(c, &all)) continue;
        done++;
        CPU_ZERO(&one);
        CPU_SET(c, &one);
        sched_setaffinity(0, sizeof one, &one);
        for (uint64_t i = 0; i < n; i++) {
            if (i % 3) {
                BB_RECORD(rec, dd_small, .seq = i);
                continue;
            }
            char s[48];
            int k = snprintf(s, sizeof s, "name-%llu", (unsigned long long)((i + salt) % 997));
            BB_RECORD(rec, dd_named, .seq = i, .name = bb_intern(rec, s, (size_t)k), .a = salt);
        }
    }
    sched_setaffinity(0, sizeof all, &all);
}

int main(int argc, char **argv) {
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : ".");
    bb_recorder *rec = bb_recorder_new(2, 64u << 10);
    CHECK(rec != NULL);
    if (!rec) return rec_finish("recorder_dump_direct");
    bb_recorder_enable(rec, true);
    record(rec, 300, 0); /* rings not full yet */
    compare(rec, "rings not full");
    for (uint64_t r = 1; r <= 6; r++) { /* lapped, heads anywhere in a lap */
        record(rec, 1000 + 777 * r, r);
        char round[32];
        snprintf(round, sizeof round, "lapped round %llu", (unsigned long long)r);
        compare(rec, round);
    }
    bb_recorder_free(rec);
    CHECK_EQ_U64(__atomic_load_n(&bb__dumps_redone, __ATOMIC_RELAXED), 0);
    return rec_finish("recorder_dump_direct");
}
