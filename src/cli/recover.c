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
    "                       whether the process is gone\n"
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

/* One line of --scan for the ring file `path`. */
static void scan_one(const char *path) {
    uint8_t head[BB_RING_HEADER_SIZE];
    char why[256];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    ssize_t n = fd < 0 || fstat(fd, &sb) != 0 ? -1 : pread(fd, head, sizeof head, 0);
    if (n < 0) {
        printf("%s\tunreadable: %s\n", path, strerror(errno));
        if (fd >= 0) close(fd);
        return;
    }
    cli_ring_info info;
    if (!cli_ring_header(head, (size_t)n, (uint64_t)sb.st_size, &info, why, sizeof why)) {
        printf("%s\tinvalid: %s\n", path, why);
        close(fd);
        return;
    }
    int alive = cli_ring_alive(fd, &info, why, sizeof why);
    close(fd);
    char when[32];
    iso_time(info.start_ns, when, sizeof when);
    const char *state = alive == CLI_RING_RUNNING  ? "running"
                        : alive == CLI_RING_ORPHAN ? "gone (a process it forked still maps it)"
                        : alive < 0                ? "unknown"
                        : info.state == BB_RING_STATE_CLOSED ? "gone (closed)"
                        : info.state == BB_RING_STATE_RUNNING ? "gone"
                                                              : "gone (state word damaged)";
    printf("%s\tpid %llu\thost %s\tstarted %s\tsize %llu\t%s%s\n", path,
           (unsigned long long)info.pid, info.host, when, (unsigned long long)sb.st_size, state,
           "");
}

/* scandir filter: backbeat.<pid>.<instance>.ring names. */
static int is_ring_name(const struct dirent *e) {
    size_t l = strlen(e->d_name);
    return strncmp(e->d_name, "backbeat.", 9) == 0 && l >= 14 && !strcmp(e->d_name + l - 5, ".ring");
}

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

/* Refuse a file whose writer runs, unless forced; false also when it is not a ring file. */
static bool check_input(const char *path, bool force) {
    char why[256];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        cli_error("%s: cannot open: %s", path, strerror(errno));
        return false;
    }
    uint8_t head[BB_RING_HEADER_SIZE];
    struct stat sb;
    ssize_t n = fstat(fd, &sb) != 0 ? -1 : pread(fd, head, sizeof head, 0);
    cli_ring_info info;
    bool ok = n >= 0 &&
              cli_ring_header(head, (size_t)n, (uint64_t)sb.st_size, &info, why, sizeof why);
    if (!ok) {
        cli_error("%s: %s", path, n < 0 ? strerror(errno) : why);
        close(fd);
        return false;
    }
    int alive = cli_ring_alive(fd, &info, why, sizeof why);
    close(fd);
    if ((alive == CLI_RING_RUNNING || alive == CLI_RING_UNKNOWN) && !force) {
        cli_error(alive == CLI_RING_RUNNING
                      ? "%s: the process writing it (pid %llu) is still running; use --force to "
                        "recover a snapshot anyway"
                      : "%s: cannot tell whether its process (pid %llu) is still running; use "
                        "--force",
                  path, (unsigned long long)info.pid);
        return false;
    }
    if (alive == CLI_RING_RUNNING)
        cli_error("warning: %s: the process writing it (pid %llu) is still running: recovering "
                  "a snapshot (--force)", path, (unsigned long long)info.pid);
    if (alive == CLI_RING_ORPHAN)
        fprintf(stderr,
                "backbeat: %s: its process (pid %llu) is gone; a process it forked still maps the "
                "file (and could write to it)\n",
                path, (unsigned long long)info.pid);
    return true;
}

/* One file: build the dump and write it. */
static int recover_one(const char *in, const char *out) {
    uint8_t *mem = NULL;
    size_t len = 0;
    cli_ring_info info;
    int alive = 0;
    if (!cli_ring_load(in, &mem, &len, &info, &alive)) return CLI_FAIL;
    bool ok = cli_write_file(out, mem, len, false);
    free(mem);
    if (!ok) return CLI_FAIL;
    fprintf(stderr,
            "backbeat: %s: instance %016llx, %u shards, %zu schemas, %zu view sets, %zu intern "
            "entries recovered\n",
            in, (unsigned long long)info.instance_id, info.shards, info.events, info.views,
            info.interns);
    if (info.meta_skipped || info.meta_stopped)
        fprintf(stderr, "backbeat: %s: %zu unfinished or damaged metadata entries skipped%s\n", in,
                info.meta_skipped, info.meta_stopped ? ", the rest of the log unreadable" : "");
    if (info.meta_dropped)
        fprintf(stderr, "backbeat: %s: %u metadata entries never fitted in the log (their "
                "schemas, views or strings are missing)\n", in, info.meta_dropped);
    if (cli_ring_warning(&info))
        fprintf(stderr, "backbeat: warning: %s: %s\n", in, cli_ring_warning(&info));
    if (info.cut_shards)
        fprintf(stderr,
                "backbeat: %s: %u rings cut below the mark a lapped writer left (as a live dump "
                "cuts them)\n",
                in, info.cut_shards);
    return CLI_OK;
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
    if (!strcmp(out, "-")) return cli_usage_error("recover", "recover writes a file; -o - is not supported");
    if (cli_out_is_input(out, &argv[optind], n)) return CLI_FAIL;
    for (size_t i = 0; i < n; i++)
        if (!check_input(argv[optind + i], force)) return CLI_FAIL;
    return n == 1 ? recover_one(argv[optind], out) : recover_many(&argv[optind], n, out);
}
