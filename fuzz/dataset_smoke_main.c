/* dataset_smoke_main.c — a corpus-free smoke run of fuzz/fuzz_dataset.c for ctest: hand-made
 * dataset states (good and bad partitioning, part counters at and past the wrap, journals torn
 * and foreign, index files short, misaligned, lying and well formed) and fixed-seed mutants of
 * them go through LLVMFuzzerTestOneInput in exactly-sized heap buffers, then every file of the
 * directories given (the committed findings, tests/fuzz_regress_dataset/). Exits 77 (skipped)
 * when the golden seed dump is absent (fuzz_dataset.c).
 *
 *   fuzz_dataset_smoke [DIR...]
 */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t state = 0x243F6A8885A308D3ull;
static uint64_t rnd(void) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1Dull;
}

/* Build one input: flags, then partitioning, next and journal (length-prefixed), then index. */
static size_t build(uint8_t *b, unsigned flags, const char *part, const char *next,
                    const char *journal, const uint8_t *index, size_t nindex) {
    size_t n = 0;
    b[n++] = (uint8_t)flags;
    const char *f[] = {part, next, journal};
    for (int i = 0; i < 3; i++) {
        if (!(flags & 1u << i)) continue;
        size_t l = strlen(f[i]);
        b[n++] = (uint8_t)l, b[n++] = (uint8_t)(l >> 8);
        memcpy(b + n, f[i], l);
        n += l;
    }
    if (flags & 8u) memcpy(b + n, index, nindex), n += nindex;
    return n;
}

static void run(const uint8_t *src, size_t len) {
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy) abort();
    memcpy(copy, src, len);
    LLVMFuzzerTestOneInput(copy, len);
    free(copy);
}

/* Every file of `dir` but README.md; returns how many. */
static size_t replay_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "fuzz_dataset_smoke: cannot open %s\n", dir);
        exit(1);
    }
    size_t n = 0;
    char path[4096];
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) exit(1);
        uint8_t buf[65536];
        size_t len = fread(buf, 1, sizeof buf, f);
        fclose(f);
        run(buf, len);
        n++;
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv) {
    static const char *const parts[] = {"host,date", "", "nonsense", "host,host", "date\n",
                                        "host,date,host,date,host,date,host,date"};
    static const char *const nexts[] = {"0", "18446744073709551615", "-1", "abc", "", "7\n"};
    static const char *const journals[] = {"BBJOURNAL1\n", "BBJOURNAL1\nx\ty\n",
                                           "BBJOURNAL1\nno-tab\n", "BBJOURNAL1\nt\t../../x",
                                           "garbage", ""};
    uint8_t index[8 + 16 * 4];
    memcpy(index, "BBIDX1\0\0", 8);
    for (size_t i = 8; i < sizeof index; i++) index[i] = (uint8_t)rnd();
    static const size_t cuts[] = {0, 3, 8, 8 + 16, 8 + 7, sizeof index};
    uint8_t buf[4096], m[4096];
    size_t runs = 0;
    for (unsigned flags = 0; flags < 16; flags++)
        for (int k = 0; k < 6; k++) {
            size_t n = build(buf, flags, parts[k], nexts[k], journals[k], index, cuts[k]);
            run(buf, n);
            runs++;
            memcpy(m, buf, n);
            for (int j = 0; j < 3 && n > 1; j++) m[1 + rnd() % (n - 1)] ^= (uint8_t)(1u << rnd() % 8);
            run(m, n);
            runs++;
        }
    size_t replayed = 0;
    for (int i = 1; i < argc; i++) replayed += replay_dir(argv[i]);
    fprintf(stderr, "fuzz_dataset smoke: %zu inputs and %zu committed findings, every promise kept\n",
            runs, replayed);
    return 0;
}
