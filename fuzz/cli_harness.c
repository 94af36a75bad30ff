/* cli_harness.c — the in-process CLI runner of cli_harness.h: a private temporary directory, the
 * input files, one subcommand call, the checks of what its exit status promises, the clean-up.
 */
/* SPDX-License-Identifier: MIT */
#include "cli_harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backbeat/reader.h"
#include "cli/commands.h"

typedef int (*cli_cmd)(int argc, char **argv);

static char workdir[256]; /* "" until made */

/* A path inside the work directory. */
static void path_of(char *buf, size_t n, const char *name) {
    snprintf(buf, n, "%s/%s", workdir, name);
}

static bool is_input(const char *name) {
    return !strcmp(name, "a.bb") || !strcmp(name, "b.bb") || !strcmp(name, "stdout") ||
           !strcmp(name, "stderr");
}

/* Remove every file of the work directory (all of them when `inputs_too`). */
static void clear_workdir(bool inputs_too) {
    DIR *dir = opendir(workdir);
    if (!dir) return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(dir)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            (inputs_too || !is_input(e->d_name))) {
            path_of(p, sizeof p, e->d_name);
            unlink(p);
        }
    closedir(dir);
}

static void remove_workdir(void) {
    clear_workdir(true);
    rmdir(workdir);
}

/* The sanitizers' report channel, present when built with one: libFuzzer's -close_fd_mask=2
 * closes stderr but keeps that channel open, so a broken promise is still read in the log. */
extern void __sanitizer_report_error_summary(const char *summary) __attribute__((weak));
extern void __sanitizer_set_report_fd(void *fd) __attribute__((weak));

/* A broken CLI promise: say which and end the process as a crash. */
static void violation(const char *cmd, const char *what, const char *detail) {
    char msg[512];
    snprintf(msg, sizeof msg, "cli_harness: %s broke its contract: %s%s%s", cmd, what,
             detail ? ": " : "", detail ? detail : "");
    fprintf(stderr, "%s\n", msg);
    if (__sanitizer_report_error_summary) __sanitizer_report_error_summary(msg);
    abort();
}

/* The work directory (once), and standard output sent to /dev/null. */
static void setup(void) {
    if (workdir[0]) return;
    const char *base = getenv("TMPDIR");
    if (access("/dev/shm", W_OK) == 0) base = "/dev/shm";
    else if (!base || !*base) base = "/tmp";
    snprintf(workdir, sizeof workdir, "%s/bbfuzz.XXXXXX", base);
    if (!mkdtemp(workdir)) {
        perror("cli_harness: mkdtemp");
        abort();
    }
    atexit(remove_workdir);
    /* The CLI's stderr is captured during each call (run()); sanitizer reports keep going to
     * the real stderr (unless libFuzzer already sent them elsewhere and closed it). */
    struct stat e, n;
    bool closed = fstat(STDERR_FILENO, &e) == 0 && stat("/dev/null", &n) == 0 &&
                  e.st_dev == n.st_dev && e.st_ino == n.st_ino;
    if (!closed && __sanitizer_set_report_fd)
        __sanitizer_set_report_fd((void *)(intptr_t)dup(STDERR_FILENO));
    int fd = open("/dev/null", O_WRONLY);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) abort();
    close(fd);
}

static void write_file(const char *name, const uint8_t *data, size_t size) {
    char p[512];
    path_of(p, sizeof p, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) abort();
    for (size_t done = 0; done < size;) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) abort();
        done += (size_t)w;
    }
    close(fd);
}

/* The work directory must hold the inputs and exactly the names in `expect` (NULL-ended). */
static void check_files(const char *cmd, const char *const *expect) {
    size_t want = 0, seen = 0;
    while (expect[want]) want++;
    DIR *dir = opendir(workdir);
    if (!dir) abort();
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || is_input(e->d_name)) continue;
        size_t i = 0;
        while (i < want && strcmp(expect[i], e->d_name)) i++;
        if (i == want) violation(cmd, want ? "unexpected file left" : "file left after failure",
                                 e->d_name);
        seen++;
    }
    closedir(dir);
    if (seen != want) violation(cmd, "an output is missing after success", expect[0]);
}

/* The first and last `n` bytes of file `name` (n <= 16), whitespace trimmed at the end.
 * Returns false when the file is shorter than n. */
static bool file_edges(const char *name, size_t n, char *head, char *tail) {
    char p[512], buf[16];
    path_of(p, sizeof p, name);
    int fd = open(p, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) abort();
    off_t end = st.st_size;
    bool ok = (size_t)end >= n && pread(fd, head, n, 0) == (ssize_t)n;
    while (ok && end > 0 && pread(fd, buf, 1, end - 1) == 1 && strchr(" \t\r\n", buf[0]) && buf[0])
        end--;
    ok = ok && (size_t)end >= n && pread(fd, tail, n, end - (off_t)n) == (ssize_t)n;
    close(fd);
    return ok;
}

/* After a failure the captured stderr must hold a "backbeat: " message naming a file of the
 * work directory (an input or the output). */
static void check_message(const char *name) {
    char p[512], msg[4096];
    path_of(p, sizeof p, "stderr");
    int fd = open(p, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, msg, sizeof msg - 1);
    if (fd >= 0) close(fd);
    msg[n > 0 ? n : 0] = 0;
    char *line = strstr(msg, "backbeat: ");
    if (!line || !strstr(line, workdir))
        violation(name, "a failure without a message naming the file", msg);
}

/* Run `cmd` on a NULL-ended argument vector, its stderr captured; the status must be 0 or 1,
 * and a failure must say which file is wrong. */
static int run(const char *name, cli_cmd cmd, char **argv) {
    int argc = 0;
    while (argv[argc]) argc++;
    char p[512];
    path_of(p, sizeof p, "stderr");
    fflush(stderr);
    int saved = dup(STDERR_FILENO), fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (saved < 0 || fd < 0 || dup2(fd, STDERR_FILENO) < 0) abort();
    close(fd);
    int st = cmd(argc, argv);
    fflush(stderr);
    if (dup2(saved, STDERR_FILENO) < 0) abort();
    close(saved);
    if (st != 0 && st != 1) violation(name, "exit status neither 0 nor 1", NULL);
    if (st == 1) check_message(name);
    return st;
}

/* One inspect run (`opt` "--json" or NULL for text) with stdout captured in the file "stdout":
 * on success the JSON is one object, the text starts with "dump ". */
static int inspect_once(char *opt) {
    char in[512], out[512], sub[] = "inspect";
    const char *name = opt ? "inspect --json" : "inspect";
    path_of(in, sizeof in, "a.bb");
    path_of(out, sizeof out, "stdout");
    int saved = dup(STDOUT_FILENO), fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (saved < 0 || fd < 0 || dup2(fd, STDOUT_FILENO) < 0) abort();
    close(fd);
    char *argv[] = {sub, opt ? opt : in, opt ? in : NULL, NULL};
    int st = run(name, cmd_inspect, argv);
    if (dup2(saved, STDOUT_FILENO) < 0) abort();
    close(saved);
    char head[5], tail[5];
    if (st == 0 && opt && (!file_edges("stdout", 1, head, tail) || head[0] != '{' || tail[0] != '}'))
        violation(name, "success without one JSON object on stdout", NULL);
    if (st == 0 && !opt && (!file_edges("stdout", 5, head, tail) || memcmp(head, "dump ", 5)))
        violation(name, "success without the dump's description on stdout", NULL);
    static const char *const none[] = {NULL};
    check_files(name, none);
    return st;
}

int cli_fuzz_inspect(const uint8_t *data, size_t size) {
    setup();
    write_file("a.bb", data, size);
    char json[] = "--json";
    int st = inspect_once(json);
    if (inspect_once(NULL) != st) violation("inspect", "text and --json disagree on the input", NULL);
    return st;
}

/* The promised shape of a successful convert's output. */
static void check_convert(const char *ext, const char *outname) {
    char head[4], tail[4];
    bool parquet = !strcmp(ext, "parquet");
    if (parquet) {
        if (!file_edges(outname, 4, head, tail) || memcmp(head, "PAR1", 4) ||
            memcmp(tail, "PAR1", 4))
            violation("convert", "a Parquet output without PAR1 at both ends", outname);
    } else if (!file_edges(outname, 1, head, tail) ||
               !((head[0] == '{' && tail[0] == '}') || (head[0] == '[' && tail[0] == ']'))) {
        violation("convert", "a trace output that is no JSON object or array", outname);
    }
}

int cli_fuzz_convert(const uint8_t *data, size_t size, const char *ext) {
    setup();
    write_file("a.bb", data, size);
    char in[512], out[512], outname[64], sidecar[96], sub[] = "convert", o[] = "-o";
    snprintf(outname, sizeof outname, "out.%s", ext);
    snprintf(sidecar, sizeof sidecar, "%s.views.sql", outname);
    path_of(in, sizeof in, "a.bb");
    path_of(out, sizeof out, outname);
    char *argv[] = {sub, in, o, out, NULL};
    int st = run("convert", cmd_convert, argv);
    bool parquet = !strcmp(ext, "parquet");
    const char *ok_files[] = {outname, parquet ? sidecar : NULL, NULL};
    const char *none[] = {NULL};
    check_files("convert", st == 0 ? ok_files : none);
    if (st == 0) check_convert(ext, outname);
    clear_workdir(false);
    return st;
}

/* One merge run (`extra` is NULL or "--no-dedup"): its files checked, the output reopened. */
static int merge_once(char *extra) {
    char a[512], b[512], out[512], sub[] = "merge", o[] = "-o";
    path_of(a, sizeof a, "a.bb");
    path_of(b, sizeof b, "b.bb");
    path_of(out, sizeof out, "out.bb");
    char *argv[] = {sub, a, b, o, out, extra, NULL};
    const char *name = extra ? "merge --no-dedup" : "merge";
    int st = run(name, cmd_merge, argv);
    const char *ok_files[] = {"out.bb", NULL}, *none[] = {NULL};
    check_files(name, st == 0 ? ok_files : none);
    if (st == 0) {
        bb_dump *d = NULL;
        bb_error err;
        memset(&err, 0, sizeof err);
        if (bb_dump_open(out, &d, &err) != BB_OK)
            violation(name, "the merged dump does not open", err.message);
        bb_dump_close(d);
    }
    clear_workdir(false);
    return st;
}

int cli_fuzz_merge(const uint8_t *data, size_t size) {
    setup();
    const size_t seplen = sizeof CLI_FUZZ_SEP - 1;
    const uint8_t *sep = memmem(data, size, CLI_FUZZ_SEP, seplen);
    size_t alen = sep ? (size_t)(sep - data) : size;
    write_file("a.bb", data, alen);
    if (sep) write_file("b.bb", sep + seplen, size - alen - seplen);
    else write_file("b.bb", data, size);
    char nodedup[] = "--no-dedup";
    int st = merge_once(NULL);
    merge_once(nodedup);
    return st;
}
