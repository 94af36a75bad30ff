/* convert_api_test.c — the conversion stage's second caller: dumps converted to Parquet and to
 * a trace through convert/convert.h alone (no CLI code linked), byte for byte what `backbeat
 * convert` writes for the same inputs, with nothing printed and failures as bb_error values;
 * the record filters (convert/filter.h) against a count by hand; cv_convert with filters and
 * cv_dataset_append, the CLI's one calls, against the CLI with the same options.
 *
 * Usage: convert_api_test BACKBEAT_CLI WORK_DIR (inputs: the golden dumps in
 * $BACKBEAT_COMPAT_DIR; exit 77 without them).
 */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <ftw.h>
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

/* `backbeat convert INPUTS... OPTS...` (opts NULL-terminated, may be NULL); its exit status. */
static int run_cli_opts(const char *cli, char **inputs, size_t n, char *const *opts) {
    char *argv[32] = {(char *)cli, "convert"};
    size_t k = 2;
    for (size_t i = 0; i < n; i++) argv[k++] = inputs[i];
    for (size_t i = 0; opts && opts[i] && k < 31; i++) argv[k++] = opts[i];
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

/* `backbeat convert INPUTS... -o OUT`; its exit status. */
static int run_cli(const char *cli, char **inputs, size_t n, const char *out) {
    char *opts[] = {"-o", (char *)out, NULL};
    return run_cli_opts(cli, inputs, n, opts);
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

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

/* Warnings the stage gave, one line each. */
typedef struct warnings {
    char text[4096];
    int count;
} warnings;

static void collect(const char *msg, void *ctx) {
    warnings *w = ctx;
    size_t n = strlen(w->text);
    snprintf(w->text + n, sizeof w->text - n, "%s\n", msg);
    w->count++;
}

/* The filters through convert/filter.h against a count by hand: --since relative to the first
 * record, an event pattern, an instance; warnings for a pattern and an instance that match
 * nothing. */
static void filter_counts(char **inputs, size_t n) {
    bb_dump *dumps[8];
    bb_model *model;
    if (!open_model(inputs, n, dumps, &model)) return;
    const char *events[] = {"*Sample", "no-such-event*"};
    uint64_t inst[] = {0xa1a2a3a4a5a6a7a8ull, 0x42};
    uint64_t ts[2] = {0, 0}, nrec = 0; /* the first record's time, the middle one's */
    bb_model_iter *it;
    bb_mrecord r;
    if (bb_model_iter_new(model, &it) == BB_OK) {
        for (uint64_t total = bb_model_record_count(model); bb_model_next(it, &r); nrec++)
            if (nrec == 0 || nrec == total / 2) ts[nrec != 0] = r.rec.ts;
        bb_model_iter_free(it);
    }
    cv_filter_spec spec = {.since_set = true,
                           .since_rel = true,
                           .since = ts[1] - ts[0],
                           .events = events,
                           .nevents = 2,
                           .inst = inst,
                           .ninst = 2};
    warnings w = {"", 0};
    cv_filter *f = NULL;
    bb_error err;
    CHECK(cv_filter_open(&spec, model, collect, &w, &f, &err), "cv_filter_open: %s", err.message);
    CHECK(
        w.count == 2 &&
            strstr(w.text, "warning: --event 'no-such-event*' matches no event in the inputs\n") &&
            strstr(w.text, "warning: --instance 0000000000000042 is not in the inputs\n"),
        "warnings: '%s'", w.text);
    uint64_t kept = 0, want = 0, all = 0;
    if (f && bb_model_iter_new(model, &it) == BB_OK) {
        while (bb_model_next(it, &r)) {
            all++;
            const bb_rschema *sc = bb_model_find_schema(model, r.rec.event_id);
            bool sample =
                sc && sc->name.len >= 6 && !memcmp(sc->name.ptr + sc->name.len - 6, "Sample", 6);
            want += r.rec.ts >= ts[1] && sample && r.rec.instance_id == inst[0];
            kept += cv_filter_keep(&r, f);
        }
        bb_model_iter_free(it);
    }
    CHECK(f && cv_filter_active(f) && want > 0 && want < all && kept == want,
          "the filter kept %llu of %llu records, by hand %llu", (unsigned long long)kept,
          (unsigned long long)all, (unsigned long long)want);
    cv_filter_free(f);
    bb_model_close(model);
    for (size_t i = 0; i < n; i++) bb_dump_close(dumps[i]);
}

/* cv_convert with filters, and cv_dataset_append, against the same options given to
 * `backbeat convert`: the same bytes. */
static void filtered_and_dataset(const char *cli, const char *work, char **inputs, size_t n) {
    char api[4096], via_cli[4096];
    snprintf(api, sizeof api, "%s/filtered.api.parquet", work);
    snprintf(via_cli, sizeof via_cli, "%s/filtered.cli.parquet", work);
    const char *events[] = {"*Sample"};
    cv_request rq = {
        .inputs = inputs,
        .ninputs = n,
        .level = 3,
        .threads = 1,
        .filter = {
            .since_set = true, .since_rel = true, .since = 1000, .events = events, .nevents = 1}};
    bb_error err;
    CHECK(cv_convert(&rq, CV_PARQUET, api, &err), "cv_convert %s: %s", api, err.message);
    char *opts[] = {"--event", "*Sample", "--since", "+1us", "--threads", "1", "-o", via_cli, NULL};
    CHECK(run_cli_opts(cli, inputs, n, opts) == 0, "backbeat convert -o %s failed", via_cli);
    CHECK(same_file(api, via_cli, 0), "%s and %s differ", api, via_cli);
    /* refused: the output is an input */
    CHECK(!cv_convert(&rq, CV_TRACE, inputs[0], &err) && strstr(err.message, "it is the input"),
          "converting onto an input: '%s'", err.message);
    char dsa[4096], dsc[4096], pa[4300], pc[4300];
    snprintf(dsa, sizeof dsa, "%s/ds.api", work);
    snprintf(dsc, sizeof dsc, "%s/ds.cli", work);
    nftw(dsa, rm_one, 16, FTW_DEPTH | FTW_PHYS); /* a dataset of an earlier run */
    nftw(dsc, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    cv_dataset ds = {.dir = dsa};
    CHECK(ds_parse_spec("host,date", &ds.spec, &err), "ds_parse_spec: %s", err.message);
    cv_dataset_report rep;
    CHECK(cv_dataset_append(&rq, &ds, &rep, &err), "cv_dataset_append: %s", err.message);
    char *dopts[] = {"--event", "*Sample",   "--since", "+1us", "--threads",
                     "1",       "--dataset", dsc,       NULL};
    CHECK(run_cli_opts(cli, inputs, n, dopts) == 0, "backbeat convert --dataset %s failed", dsc);
    const char *part = "host=fixture-host/date=1970-01-01/part-a1a2a3a4a5a6a7a8-0.parquet";
    snprintf(pa, sizeof pa, "%s/%s", dsa, part);
    snprintf(pc, sizeof pc, "%s/%s", dsc, part);
    CHECK(same_file(pa, pc, 0), "%s and %s differ", pa, pc);
    snprintf(pa, sizeof pa, "%s/_backbeat/schema.bb", dsa);
    snprintf(pc, sizeof pc, "%s/_backbeat/schema.bb", dsc);
    CHECK(same_file(pa, pc, 0), "%s and %s differ", pa, pc);
    /* the same inputs again: every record is in the dataset already, no part is added */
    CHECK(cv_dataset_append(&rq, &ds, &rep, &err), "second append: %s", err.message);
    snprintf(pa, sizeof pa, "%s/host=fixture-host/date=1970-01-01/part-a1a2a3a4a5a6a7a8-1.parquet",
             dsa);
    CHECK(access(pa, F_OK) != 0, "a second append of the same records wrote %s", pa);
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
    filter_counts(multi, 3);
    filtered_and_dataset(cli, work, multi, 3);
    if (failures) fprintf(stderr, "%d failure(s)\n", failures);
    else
        printf(
            "convert API: Parquet, trace and sidecar DDL equal the CLI's, filtered and as a dataset "
            "append too; filters as counted by hand; failures are values\n");
    return failures ? 1 : 0;
}
