/* ring_proc.h — process helpers of the ring file end-to-end tests (ring_e2e.c): start the
 * child with an environment and a report pipe, read its reports, kill it, run the CLI, find the
 * ring file a child left. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_TEST_RING_PROC_H
#define BB_TEST_RING_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct ring_child {
    pid_t pid;
    int reports; /* read end of the child's fd 3 */
} ring_child;

/* When set, the next children's (and CLI runs') stderr goes to this file. */
extern const char *ring_child_stderr;
/* When non-zero, the next children run with this RLIMIT_FSIZE (SIGXFSZ left fatal). */
extern unsigned long ring_child_fsize;

/* Start `exe` with args (NULL-terminated) and the environment assignments in env ("K=V",
 * NULL-terminated) added; with `cgroup_procs`, the child first joins that cgroup. */
bool ring_spawn(ring_child *c, const char *exe, char *const *args, char *const *env,
                const char *cgroup_procs);
/* Read one report; false at EOF. */
bool ring_report(ring_child *c, uint64_t msg[2]);
/* SIGKILL the child, wait for it; true when it died of SIGKILL. */
bool ring_kill(ring_child *c);
/* Wait for the child to end by itself; its wait status. */
int ring_wait(ring_child *c);
/* Run the CLI with args (NULL-terminated), stdout into `out_path` when given; exit status. */
int ring_cli(const char *cli, char *const *args, const char *out_path);
/* The one `*.ring` file in dir (path into out[cap]); the count found. */
int ring_find(const char *dir, char *out, size_t cap);

#endif /* BB_TEST_RING_PROC_H */
