/* smoke_main.c — a corpus-free smoke run of the fuzz target for ctest: every golden dump, and
 * mutants of each (fixed-seed byte flips, byte runs overwritten, insertions, deletions, and cut
 * lengths), are fed through LLVMFuzzerTestOneInput in exactly-sized heap buffers, so the
 * sanitizer pass catches any out-of-bounds read. Exits 77 when the golden vectors are absent.
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static unsigned long long state = 0x243F6A8885A308D3ull;
static unsigned long long rnd(void) {
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return state * 0x2545F4914F6CDD1Dull;
}

static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc(n > 0 ? (size_t)n : 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return p;
}

static void run(const unsigned char *src, size_t len) {
    unsigned char *copy = malloc(len ? len : 1);
    if (!copy) abort();
    memcpy(copy, src, len);
    LLVMFuzzerTestOneInput(copy, len);
    free(copy);
}

int main(void) {
    static const char *const names[] = {"basic",   "torn",    "wrapped",     "wrapped_suffix",
                                        "empty",   "multi_a", "multi_b",     "multi_other"};
    const char *dir = getenv("BACKBEAT_COMPAT_DIR");
    if (!dir || !*dir) dir = "/work/shared/compat";
    size_t runs = 0, found = 0;
    for (size_t f = 0; f < sizeof names / sizeof *names; f++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.bb", dir, names[f]);
        size_t len;
        unsigned char *file = slurp(path, &len);
        if (!file) continue;
        found++;
        run(file, len);
        unsigned char *m = malloc(len + 64);
        for (int i = 0; i < 400; i++) {
            size_t n = len;
            memcpy(m, file, len);
            switch (rnd() % 5) {
            case 0: /* bit flips, half of them in the headers */
                for (int k = 1 + (int)(rnd() % 6); k > 0; k--) {
                    size_t at = (size_t)(rnd() % (k % 2 ? len : (len < 256 ? len : 256)));
                    m[at] ^= (unsigned char)(1u << (rnd() % 8));
                }
                break;
            case 1: { /* a run of bytes overwritten with one value (0x00, 0xFF or random) */
                size_t at = (size_t)(rnd() % len), run_len = 1 + (size_t)(rnd() % 32);
                unsigned char v = (unsigned char)(rnd() % 3 == 0 ? 0 : rnd() % 2 ? 0xFF : rnd());
                for (size_t k = at; k < len && k < at + run_len; k++) m[k] = v;
                break;
            }
            case 2: { /* insert up to 64 random bytes */
                size_t at = (size_t)(rnd() % len), ins = 1 + (size_t)(rnd() % 64);
                memmove(m + at + ins, m + at, len - at);
                for (size_t k = 0; k < ins; k++) m[at + k] = (unsigned char)rnd();
                n = len + ins;
                break;
            }
            case 3: { /* delete a span */
                size_t at = (size_t)(rnd() % len), del = 1 + (size_t)(rnd() % 64);
                if (at + del > len) del = len - at;
                memmove(m + at, m + at + del, len - at - del);
                n = len - del;
                break;
            }
            default: /* cut */
                n = (size_t)(rnd() % len);
                break;
            }
            run(m, n);
            runs++;
        }
        free(m);
        free(file);
    }
    if (!found) {
        fprintf(stderr, "golden vectors absent in %s: skipped\n", dir);
        return 77;
    }
    printf("fuzz smoke: %zu golden files, %zu mutants, no crash\n", found, runs);
    return 0;
}
