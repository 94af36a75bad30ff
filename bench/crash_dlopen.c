/* crash_dlopen.c — what keeping the crash dump's module list current costs (issue 40): 1 000
 * plugins (copies of one small plugin, each its own file, so its own module) dlopened and
 * dlclosed, with crash dumps armed (BACKBEAT_DUMP_ON_CRASH=1 in the environment, the library
 * linked) and without (the variable unset); rounds alternate so the two see the same machine.
 * The module list is read from the loader's own list at the crash, so the expected cost on the
 * dlopen path is none. Also: the time the crash path takes to record the module list with the
 * 1 000 plugins loaded (`--crash`: the crash dump's wall time, printed by the parent).
 *
 * Usage: crash_dlopen PLUGIN.so WORKDIR [N]   (run by scripts/bench.sh, section `crash`) */
/* SPDX-License-Identifier: MIT */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <backbeat/backbeat.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Copy src to dst. */
static int copy(const char *src, const char *dst) {
    int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    char buf[65536];
    ssize_t n;
    while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) n = -1;
    int ok = in >= 0 && out >= 0;
    if (in >= 0) close(in);
    if (out >= 0) close(out);
    return ok ? 0 : -1;
}

/* One round: dlopen then dlclose each of the n plugins; seconds. */
static double round_(char **paths, int n, int keep) {
    void **h = calloc((size_t)n, sizeof *h);
    double t0 = now();
    for (int i = 0; i < n; i++) {
        h[i] = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
        if (!h[i]) {
            fprintf(stderr, "crash_dlopen: %s\n", dlerror());
            exit(1);
        }
    }
    if (!keep)
        for (int i = 0; i < n; i++) dlclose(h[i]);
    double t = now() - t0;
    free(h);
    return t;
}

/* The median of `rounds` rounds of this process, to stdout (the `--rounds` child). */
static int rounds_child(char **paths, int n, int rounds) {
    bb_global_init(); /* the global recorder as the environment says (crash dumps armed or not) */
    double v[16];
    for (int r = 0; r < rounds; r++) v[r] = round_(paths, n, 0);
    for (int i = 1; i < rounds; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    printf("%.9f\n", v[rounds / 2]);
    return 0;
}

/* The `--crash` child: load every plugin, print how long that took, crash. */
static int crash_child(char **paths, int n) {
    bb_global_init();
    double t = round_(paths, n, 1);
    printf("%.9f\n", t);
    fflush(stdout);
    raise(SIGSEGV);
    return 0;
}

/* Run this program with `args` in the environment `env_on`; the number it prints and, in
 * *wall, the seconds it ran. */
static double run_self(const char *self, const char *plugin, const char *dir, int n,
                       const char *mode, int armed, double *wall) {
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s %s %s %s %d %s 2>/dev/null",
             armed ? "BACKBEAT_DUMP_ON_CRASH=1" : "env -u BACKBEAT_DUMP_ON_CRASH", self, plugin,
             dir, n, mode);
    double t0 = now();
    FILE *p = popen(cmd, "r");
    double v = -1;
    if (!p || fscanf(p, "%lf", &v) != 1) v = -1;
    if (p) pclose(p);
    if (wall) *wall = now() - t0;
    return v;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: crash_dlopen PLUGIN.so WORKDIR [N]\n");
        return 2;
    }
    int n = argc > 3 ? atoi(argv[3]) : 1000;
    char **paths = calloc((size_t)n, sizeof *paths);
    mkdir(argv[2], 0755);
    for (int i = 0; i < n; i++) {
        paths[i] = malloc(4096);
        snprintf(paths[i], 4096, "%s/plugin-%04d.so", argv[2], i);
    }
    if (argc > 4 && !strcmp(argv[4], "--rounds")) return rounds_child(paths, n, 5);
    if (argc > 4 && !strcmp(argv[4], "--crash")) return crash_child(paths, n);
    for (int i = 0; i < n; i++)
        if (copy(argv[1], paths[i]) != 0) return 1;
    printf("crash: %d plugins dlopened then dlclosed (median of 5 rounds per process), crash "
           "dumps off and armed alternating\n",
           n);
    for (int k = 0; k < 3; k++) {
        double off = run_self(argv[0], argv[1], argv[2], n, "--rounds", 0, NULL);
        double on = run_self(argv[0], argv[1], argv[2], n, "--rounds", 1, NULL);
        printf("  pass %d: off %.3f ms, armed %.3f ms (%.2f us per dlopen+dlclose), ratio "
               "armed/off %.3f\n",
               k + 1, off * 1e3, on * 1e3, on * 1e6 / n, on / off);
    }
    char env[4200];
    snprintf(env, sizeof env, "%s/crash.bb", argv[2]);
    setenv("BACKBEAT_PATH", env, 1);
    setenv("BACKBEAT_BYTES", "1M", 1);
    double w0, w1;
    double l0 = run_self(argv[0], argv[1], argv[2], 0, "--crash", 1, &w0);
    double l1 = run_self(argv[0], argv[1], argv[2], n, "--crash", 1, &w1);
    printf("  a crash, its dump and the exit: %.1f ms with no plugin loaded, %.1f ms with %d "
           "(process run minus plugin loading)\n",
           (w0 - l0) * 1e3, (w1 - l1) * 1e3, n);
    for (int i = 0; i < n; i++) {
        unlink(paths[i]);
        free(paths[i]);
    }
    free(paths);
    return 0;
}
