/* convert_api_test.c — the conversion stage's second caller: dumps converted to Parquet and to
 * a trace through convert/convert.h alone (no CLI code linked), byte for byte what `backbeat
 * convert` writes for the same inputs, with nothing printed and failures as bb_error values.
 *
 * Usage: convert_api_test BACKBEAT_CLI WORK_DIR (inputs: the golden dumps in
 * $BACKBEAT_COMPAT_DIR; exit 77 without them).
 */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backbeat/model.h"
#include "backbeat/reader.h"
#include "convert/convert.h"

static int failures;

#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (!(cond)) {                                           \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                        \
            fputc('\n', stderr);                                 \
            failures++;                                          \
        }                                                        \
    } while (0)

/* The whole file (malloc'ed, *len bytes), or NULL. */
static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0, got;
    do {
        if (cap - n < 65536) {
            char *nb = realloc(buf, cap = cap * 2 + 65536);
            if (!nb) break;
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *len = n;
    return buf;
}

/* Whether two files hold the same bytes (from the `skip`-th newline on, when skip > 0). */
static bool same_file(const char *a, const char *b, int skip) {
    size_t na = 0, nb = 0;
    char *da = slurp(a, &na), *db = slurp(b, &nb);
    const char *pa = da, *pb = db;
    for (int i = 0; i < skip && pa && pb; i++) {
        pa = memchr(pa, '\n', na - (size_t)(pa - da));
        pb = memchr(pb, '\n', nb - (size_t)(pb - db));
        pa = pa ? pa + 1 : NULL;
        pb = pb ? pb + 1 : NULL;
    }
    bool same = pa && pb && na - (size_t)(pa - da) == nb - (size_t)(pb - db) && na > 0 &&
                memcmp(pa, pb, na - (size_t)(pa - da)) == 0;
    free(da);
    free(db);
    return same;
}

/* `backbeat convert INPUTS... -o OUT`; its exit status. */
static int run_cli(const char *cli, char **inputs, size_t n, const char *out) {
    char *argv[16] = {(char *)cli, "convert"};
    size_t k = 2;
    for (size_t i = 0; i < n; i++) argv[k++] = inputs[i];
    argv[k++] = "-o";
    argv[k++] = (char *)out;
    argv[k] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        execv(cli, argv);
        _exit(127);
    }
    int st = -1;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Open the inputs as one de-duplicating model (what the CLI does); false on failure. */
static bool open_model(char **inputs, size_t n, bb_dump **dumps, bb_model **model) {
    bb_error err;
    for (size_t i = 0; i < n; i++)
        if (bb_dump_open(inputs[i], &dumps[i], &err) != BB_OK) {
            CHECK(false, "%s: %s", inputs[i], err.message);
            for (size_t j = 0; j < i; j++) bb_dump_close(dumps[j]);
            return false;
        }
    if (bb_model_open(dumps, n, true, model, &err) == BB_OK) return true;
    CHECK(false, "model: %s", err.message);
    for (size_t i = 0; i < n; i++) bb_dump_close(dumps[i]);
    return false;
}

/* One input set to both formats, through the API and through the CLI: the same bytes. */
static void convert_both(const char *cli, const char *work, const char *name, char **inputs,
                         size_t n) {
    bb_dump *dumps[8];
    bb_model *model;
    if (!open_model(inputs, n, dumps, &model)) return;
    static const char *const ext[2] = {"parquet", "trace.json"};
    for (int f = 0; f < 2; f++) {
        char api[4096], via_cli[4096];
        snprintf(api, sizeof api, "%s/%s.api.%s", work, name, ext[f]);
        snprintf(via_cli, sizeof via_cli, "%s/%s.cli.%s", work, name, ext[f]);
        convert_opts o = {.out_name = api, .compression_level = 3, .threads = 1 + (unsigned)f};
        bb_error err;
        bool ok = cv_convert_file(model, f ? CV_TRACE : CV_PARQUET, &o, api, &err);
        CHECK(ok, "%s: %s", api, ok ? "" : err.message);
        CHECK(run_cli(cli, inputs, n, via_cli) == 0, "backbeat convert -o %s failed", via_cli);
        CHECK(same_file(api, via_cli, 0), "%s and %s differ", api, via_cli);
        if (f ==
            0) { /* the sidecar: the same DDL after its two comment lines and its binding line */
            char sa[4200], sc[4200];
            snprintf(sa, sizeof sa, "%s.views.sql", api);
            snprintf(sc, sizeof sc, "%s.views.sql", via_cli);
            CHECK(same_file(sa, sc, 3), "%s and %s differ after the binding", sa, sc);
        }
    }
    bb_model_close(model);
    for (size_t i = 0; i < n; i++) bb_dump_close(dumps[i]);
}

/* A failure is a value naming the file, nothing on stderr, no file left behind. */
static void failure_is_a_value(const char *work, char *input) {
    bb_dump *dump;
    bb_model *model;
    if (!open_model(&input, 1, &dump, &model)) return;
    char bad[4096], log[4096];
    snprintf(bad, sizeof bad, "%s/no-such-dir/out.parquet", work);
    snprintf(log, sizeof log, "%s/stderr.txt", work);
    fflush(stderr);
    int saved = dup(STDERR_FILENO), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, STDERR_FILENO);
    convert_opts o = {.out_name = bad, .compression_level = 3};
    bb_error err;
    memset(&err, 0, sizeof err);
    bool ok = cv_convert_file(model, CV_PARQUET, &o, bad, &err);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    close(fd);
    CHECK(!ok, "converting to %s succeeded", bad);
    CHECK(err.status != BB_OK && strstr(err.message, bad), "message '%s' does not name %s",
          err.message, bad);
    struct stat st;
    CHECK(stat(log, &st) == 0 && st.st_size == 0, "the stage printed on stderr");
    CHECK(access(bad, F_OK) != 0, "%s exists", bad);
    bb_model_close(model);
    bb_dump_close(dump);
}

int main(int argc, char **argv) {
    const char *compat = getenv("BACKBEAT_COMPAT_DIR");
    if (argc != 3 || !compat || !*compat) {
        fprintf(stderr, "usage: convert_api_test BACKBEAT_CLI WORK_DIR, BACKBEAT_COMPAT_DIR set\n");
        return 77;
    }
    const char *cli = argv[1], *work = argv[2];
    mkdir(work, 0777);
    char paths[4][4096];
    const char *names[4] = {"basic", "multi_a", "multi_b", "multi_other"};
    for (int i = 0; i < 4; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s.bb", compat, names[i]);
        if (access(paths[i], R_OK) != 0) {
            fprintf(stderr, "skip: %s is missing\n", paths[i]);
            return 77;
        }
    }
    char *basic[1] = {paths[0]};
    char *multi[3] = {paths[1], paths[2], paths[3]};
    convert_both(cli, work, "basic", basic, 1);
    convert_both(cli, work, "multi", multi, 3);
    failure_is_a_value(work, paths[0]);
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    else
        printf(
            "convert API: Parquet, trace and sidecar DDL equal the CLI's; failures are values\n");
    return failures ? 1 : 0;
}
