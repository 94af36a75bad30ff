/* model_cache_test.c — the page-cache advice for dumps larger than the memory
 * (src/read/model_cache.c): how much of each ring the walk leaves warm, the 2 MiB floor of a
 * ring position, and that pages marked cold (whole ones, a range that wraps the ring, one longer
 * than the ring, an empty one) still read back exactly what the file holds. */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "read/model_cache.h"

#define MIB ((uint64_t)1 << 20)
#define CAP (8 * MIB)

static int fails;

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "model_cache: %s\n", what);
        fails++;
    }
}

static uint8_t byte_at(size_t i) { return (uint8_t)(i * 2654435761u >> 13); }

static void check_keep(void) {
    uint64_t phys = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    check(bb__model_cache_keep(0, 0) == 0, "no rings: nothing cooled");
    check(bb__model_cache_keep(64 * MIB, 7) == 0, "rings that fit: nothing cooled");
    check(bb__model_cache_keep(phys / 2, 10) == 0, "half the memory still fits");
    uint64_t k = bb__model_cache_keep(phys, 10);
    check(k >= 2 * MIB && k * 10 <= phys / 2, "twice the memory in 10 rings: half shared");
    check(bb__model_cache_keep(phys * 4, (size_t)(phys / MIB)) == 2 * MIB,
          "very many rings: 2 MiB each at least");
}

int main(void) {
    check_keep();
    char path[] = "/tmp/bb_model_cache_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        return 1;
    }
    unlink(path);
    uint8_t *buf = malloc(CAP);
    if (!buf) return 1;
    for (size_t i = 0; i < CAP; i++) buf[i] = byte_at(i);
    if (write(fd, buf, CAP) != (ssize_t)CAP) {
        perror("write");
        return 1;
    }
    const uint8_t *map = mmap(NULL, CAP, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    (void)madvise((void *)map, CAP, MADV_HUGEPAGE);
    bb_rshard sh = {
        .instance_id = 1, .shard_id = 0, .head = 5 * CAP + 123, .capacity = CAP, .region = map};
    for (uint64_t pos = 5 * CAP; pos < 6 * CAP; pos += 333 * 1024) {
        uint64_t f = bb__model_cache_floor(&sh, pos);
        uintptr_t a = (uintptr_t)(map + (f & (CAP - 1)));
        check(f <= pos && pos - f < 2 * MIB && a % (2 * MIB) == 0, "floor at a 2 MiB boundary");
    }
    check(bb__model_cache_floor(&sh, 0) == 0 || (uintptr_t)map % (2 * MIB) == 0,
          "floor of 0 stays 0");
    uint64_t ranges[][2] = {
        {5 * CAP, 5 * CAP + 4 * MIB}, {5 * CAP + 6 * MIB, 6 * CAP + MIB}, {4 * CAP, 6 * CAP},
        {5 * CAP + 3, 5 * CAP + 3},   {5 * CAP + MIB, 5 * CAP + 2 * MIB}, {6 * CAP, 5 * CAP}};
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        bb__model_cache_cool(&sh, ranges[r][0], ranges[r][1]);
        check(memcmp(map, buf, CAP) == 0, "cold pages read back what the file holds");
    }
    munmap((void *)map, CAP);
    close(fd);
    free(buf);
    if (fails) return 1;
    printf("model_cache: ok\n");
    return 0;
}
