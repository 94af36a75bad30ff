/* regress_main.c — replays the committed fuzz regression inputs (tests/fuzz_regress/) through
 * every whole-CLI harness (inspect, text and --json, convert to Parquet and to a trace, merge with and
 * without --no-dedup) as a plain ctest test, so the plain and sanitizer suites both rerun every
 * past finding. A broken CLI promise or a sanitizer report ends the run (cli_harness.c aborts);
 * otherwise prints how many inputs ran and each one's statuses. Fails when the directory holds
 * no input.
 *
 *   fuzz_cli_regress DIR...
 */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_harness.h"

/* The whole file at `path` in an exactly-sized heap buffer (so ASan sees any overrun). */
static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *p = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (p = malloc(n ? (size_t)n : 1)) &&
        fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* One input through every harness. */
static void replay(const char *path) {
    size_t len;
    uint8_t *data = slurp(path, &len);
    if (!data) {
        fprintf(stderr, "fuzz_cli_regress: cannot read %s\n", path);
        exit(1);
    }
    int si = cli_fuzz_inspect(data, len);
    int sp = cli_fuzz_convert(data, len, "parquet");
    int st = cli_fuzz_convert(data, len, "json");
    int sm = cli_fuzz_merge(data, len);
    fprintf(stderr, "%s: inspect %d, parquet %d, trace %d, merge %d\n", path, si, sp, st, sm);
    free(data);
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of `dir`, in name order; returns how many. */
static size_t replay_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "fuzz_cli_regress: cannot open %s\n", dir);
        exit(1);
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && strcmp(e->d_name, "README.md")) {
            names = realloc(names, (n + 1) * sizeof *names);
            if (!names || !(names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2))) exit(1);
            sprintf(names[n++], "%s/%s", dir, e->d_name);
        }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        replay(names[i]);
        free(names[i]);
    }
    free(names);
    return n;
}

int main(int argc, char **argv) {
    size_t total = 0;
    for (int i = 1; i < argc; i++) total += replay_dir(argv[i]);
    if (!total) {
        fprintf(stderr, "fuzz_cli_regress: no input to replay\n");
        return 1;
    }
    fprintf(stderr, "fuzz_cli_regress: %zu inputs replayed, every CLI promise kept\n", total);
    return 0;
}
