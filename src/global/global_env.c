/* global_env.c — the BACKBEAT_* variables (and TMPDIR) as the process started with them, copied
 * when the library loads, so that a program that clears or rebuilds its environment before its
 * first record (nginx's workers, daemons that sanitize their environment) keeps its settings.
 */
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "global/global_internal.h"

extern char **environ;

static char **g_start; /* "NAME=value" copies, NULL-terminated; NULL before the snapshot */

/* Whether "NAME=value" is a variable backbeat reads. */
static bool ours(const char *kv) {
    return strncmp(kv, "BACKBEAT_", 9) == 0 || strncmp(kv, "TMPDIR=", 7) == 0;
}

/* Contract: see global_internal.h. */
void bb__g_env_snapshot(void) {
    if (g_start || !environ) return;
    size_t n = 0;
    for (char **e = environ; *e; e++) n += ours(*e);
    char **copy = calloc(n + 1, sizeof *copy);
    if (!copy) return;
    size_t k = 0;
    for (char **e = environ; *e && k < n; e++)
        if (ours(*e) && (copy[k] = strdup(*e)) != NULL) k++;
    g_start = copy;
}

/* Contract: see global_internal.h. */
const char *bb__g_env_get(const char *name) {
    const char *v = getenv(name);
    if (v || !g_start) return v;
    size_t len = strlen(name);
    for (char **e = g_start; *e; e++)
        if (strncmp(*e, name, len) == 0 && (*e)[len] == '=') return *e + len + 1;
    return NULL;
}
