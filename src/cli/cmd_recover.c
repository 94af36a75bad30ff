/* recover.c — `backbeat recover FILE... -o OUT.bb` turns ring files (docs/RING_FILE.md), left
 * by processes that died without dumping (SIGKILL, the OOM killer), into an ordinary `.bb`
 * dump; `backbeat recover --scan DIR` lists the ring files in DIR and whether their process is
 * gone. A file whose process still runs (its lock is held) is refused unless --force. One file
 * is written as built (ringfile.c); several are spliced by `merge --no-dedup`, which keeps each
 * record's duplicate key, so recovered and live dumps convert together without duplicates. */
/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli_util.h"
#include "cli/commands.h"
#include "cli/ring_scan.h"
#include "cli/ringfile.h"
#include "format/ring_file.h"

static const char recover_help[] =
    "usage: backbeat recover FILE... -o OUT.bb [--force]\n"
    "       backbeat recover --scan DIR\n"
    "\n"
    "Turn ring files (BACKBEAT_RING_DIR, bb_recorder_create_ring) left by processes that died\n"
    "without dumping into an ordinary dump, or list the ring files in DIR.\n"
    "\n"
    "  -o, --output OUT.bb  the dump (a file; written to a temporary name, then renamed)\n"
    "      --force          recover even a file whose process is still running (a snapshot of\n"
    "                       rings being written)\n"
    "      --scan DIR       list DIR's ring files: path, pid, host, start time, size, and\n"
    "                       whether the process is gone (symbolic links skipped, never followed)\n"
    "  -h, --help           show this help\n"
    "\n"
    "Records keep the keys a dump of the live process gives them: recovered and live dumps of\n"
    "one process convert together without duplicates.\n";

/* "2026-12-03T05:40:00Z" for ns since the epoch. */
static void iso_time(uint64_t ns, char *out, size_t cap) {
    time_t t = (time_t)(ns / 1000000000u);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(out, cap, "?");
}

/* The state column of --scan. */
static const char *state_text(int alive, uint32_t state) {
    return alive == CLI_RING_RUNNING        ? "running"
           : alive == CLI_RING_ORPHAN       ? "gone (a process it forked still maps it)"
           : alive < 0                      ? "unknown"
           : state == BB_RING_STATE_CLOSED  ? "gone (closed)"
           : state == BB_RING_STATE_RUNNING ? "gone"
                                            : "gone (state word damaged)";
}

/* One line of --scan for the ring file `path`: opened read-only and non-blocking, so that a
 * FIFO (or any other non-regular entry) is named and skipped, never waited on; a symbolic link
 * is named and skipped, never followed (issue 43). */
static void scan_one(const char *path) {
    bb_ring *r = NULL;
    bb_error err;
    if (cli_ring_is_link(path, &err) || bb_ring_open(path, &r, &err) != BB_OK) {
        const char *why = err.message;
        size_t n = strlen(path);
        if (!strncmp(why, path, n) && !strncmp(why + n, ": ", 2)) why += n + 2;
        printf("%s\t%s%s\n", path,
               err.status == BB_ERR_IO        ? "skipped: "
               : bb_ring_is_empty_error(&err) ? ""
                                              : "invalid: ",
               why);
        return;
    }
    const bb_ring_info *info = bb_ring_get_info(r);
    int alive = bb_ring_liveness(r);
    char when[32];
    iso_time(info->start_ns, when, sizeof when);
    printf("%s\tpid %llu\thost %s\tstarted %s\tsize %llu\t%s\n", path,
           (unsigned long long)info->pid, info->host, when, (unsigned long long)info->file_size,
           state_text(alive, info->state));
    bb_ring_close(r);
}

/* scandir filter: backbeat.<pid>.<instance>.ring names. */
static int is_ring_name(const struct dirent *e) { return cli_ring_name(e->d_name); }

/* The ring files of DIR, one line each, in name order. */
static int scan(const char *dir) {
    struct dirent **list = NULL;
    int n = scandir(dir, &list, is_ring_name, alphasort);
    if (n < 0) {
        cli_error("%s: cannot list: %s", dir, strerror(errno));
        return CLI_FAIL;
    }
    size_t found = (size_t)n;
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, list[i]->d_name);
        scan_one(path);
        free(list[i]);
    }
    free(list);
    if (!found) fprintf(stderr, "backbeat: no ring files in %s\n", dir);
    return CLI_OK;
}

/* Refuse a file whose writer runs, unless forced; false also when it is not a ring file (or
 * not a regular file: a FIFO fails at once). */
static bool check_input(const char *path, bool force) {
    bb_ring *r = NULL;
    bb_error err;
    if (bb_ring_open(path, &r, &err) != BB_OK) {
        cli_error("%s", err.message);
        return false;
    }
    int alive = bb_ring_liveness(r);
    unsigned long long pid = (unsigned long long)bb_ring_get_info(r)->pid;
    bb_ring_close(r);
    if ((alive == CLI_RING_RUNNING || alive == CLI_RING_UNKNOWN) && !force) {
        cli_error(alive == CLI_RING_RUNNING
                      ? "%s: the process writing it (pid %llu) is still running; use --force to "
                        "recover a snapshot anyway"
                      : "%s: cannot tell whether its process (pid %llu) is still running; use "
                        "--force",
                  path, pid);
        return false;
    }
    if (alive == CLI_RING_RUNNING)
        cli_error("warning: %s: the process writing it (pid %llu) is still running: recovering "
                  "a snapshot (--force)",
                  path, pid);
    if (alive == CLI_RING_ORPHAN)
        fprintf(stderr,
                "backbeat: %s: its process (pid %llu) is gone; a process it forked still maps the "
                "file (and could write to it)\n",
                path, pid);
    return true;
}

/* What a recovery kept and skipped, on stderr. */
static void report(const char *in, const bb_ring *r) {
    const bb_ring_info *info = bb_ring_get_info(r);
    const bb_ring_stats *st = bb_ring_get_stats(r);
    fprintf(stderr,
            "backbeat: %s: instance %016llx, %u shards, %zu schemas, %zu view sets, %zu intern "
            "entries recovered\n",
            in, (unsigned long long)info->instance_id, info->shards, st->events, st->views,
            st->interns);
    if (st->meta_skipped || st->meta_stopped)
        fprintf(stderr, "backbeat: %s: %zu unfinished or damaged metadata entries skipped%s\n", in,
                st->meta_skipped, st->meta_stopped ? ", the rest of the log unreadable" : "");
    if (st->meta_dropped)
        fprintf(stderr,
                "backbeat: %s: %u metadata entries never fitted in the log (their "
                "schemas, views or strings are missing)\n",
                in, st->meta_dropped);
    cli_ring_info ci = {.written = st->written, .events = st->events};
    if (cli_ring_warning(&ci))
        fprintf(stderr, "backbeat: warning: %s: %s\n", in, cli_ring_warning(&ci));
    if (st->cut_shards)
        fprintf(stderr,
                "backbeat: %s: %u rings cut below the mark a lapped writer left (as a live dump "
                "cuts them)\n",
                in, st->cut_shards);
}

/* One file: its snapshot written to OUT, the holes of a sparse ring file left as holes. */
static int recover_one(const char *in, const char *out) {
    bb_ring *r = NULL;
    bb_error err;
    if (bb_ring_open(in, &r, &err) != BB_OK) {
        cli_error("%s", err.message);
        return CLI_FAIL;
    }
    cli_out o;
    bool ok = cli_out_open(&o, out);
    if (ok && bb_ring_snapshot_fd(r, o.fd, NULL, &err) != BB_OK) {
        cli_error("%s", err.message);
        cli_out_abort(&o);
        ok = false;
    }
    ok = ok && cli_out_commit(&o);
    if (ok) report(in, r);
    bb_ring_close(r);
    return ok ? CLI_OK : CLI_FAIL;
}

/* Several files: splice them (keys kept). */
static int recover_many(char **in, size_t n, const char *out) {
    char **argv = calloc(n + 5, sizeof *argv);
    if (!argv) {
        cli_error("out of memory");
        return CLI_FAIL;
    }
    size_t k = 0;
    argv[k++] = "merge";
    for (size_t i = 0; i < n; i++) argv[k++] = in[i];
    argv[k++] = "--no-dedup";
    argv[k++] = "-o";
    argv[k++] = (char *)out;
    int st = cmd_merge((int)k, argv);
    free(argv);
    return st;
}

/* `backbeat recover`: see recover_help. */
int cmd_recover(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"force", no_argument, NULL, 'f'},
                                         {"scan", required_argument, NULL, 's'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *out = NULL, *scan_dir = NULL;
    bool force = false;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'f': force = true; break;
        case 's': scan_dir = optarg; break;
        case 'h': fputs(recover_help, stdout); return CLI_OK;
        default: return cli_option_error("recover", c, argv);
        }
    }
    size_t n = (size_t)(argc - optind);
    if (scan_dir) {
        if (n || out) return cli_usage_error("recover", "--scan takes only a directory");
        return scan(scan_dir);
    }
    if (!n) return cli_usage_error("recover", "no ring file given");
    if (!out) return cli_usage_error("recover", "no output given (-o OUT.bb)");
    if (!strcmp(out, "-"))
        return cli_usage_error("recover", "recover writes a file; -o - is not supported");
    if (cli_out_is_input(out, &argv[optind], n)) return CLI_FAIL;
    for (size_t i = 0; i < n; i++)
        if (!check_input(argv[optind + i], force)) return CLI_FAIL;
    return n == 1 ? recover_one(argv[optind], out) : recover_many(&argv[optind], n, out);
}
