/* cli/ring_input.c — the inputs of every subcommand: dumps, and ring files recovered in memory
 * as `backbeat recover` does; the de-duplicating model over them (see cli_util.h). */
/* SPDX-License-Identifier: MIT */
#include "cli/cli_util.h"
#include "cli/ringfile.h"

#include <stdlib.h>
#include <string.h>

/* Dumps opened from ring files, and the memory each was built in (freed at close). */
typedef struct ring_dump {
    bb_dump *dump;
    uint8_t *mem;
    struct ring_dump *next;
} ring_dump;
static ring_dump *g_ring_dumps;

/* A ring file (docs/RING_FILE.md) as a dump: recovered in memory, like `backbeat recover`. */
static bool open_ring(const char *path, bb_dump **out) {
    uint8_t *mem = NULL;
    size_t len = 0;
    cli_ring_info info;
    int alive = 0;
    if (!cli_ring_load(path, &mem, &len, &info, &alive)) return false;
    if (alive == CLI_RING_RUNNING)
        cli_error("warning: %s: the process writing it (pid %llu) is still running", path,
                  (unsigned long long)info.pid);
    if (cli_ring_warning(&info)) cli_error("warning: %s: %s", path, cli_ring_warning(&info));
    ring_dump *rd = malloc(sizeof *rd);
    bb_error err;
    memset(&err, 0, sizeof err);
    if (!rd || bb_dump_open_memory(mem, len, path, out, &err) != BB_OK) {
        cli_error("%s: %s", path, rd ? err.message : "out of memory");
        free(rd);
        free(mem);
        return false;
    }
    *rd = (ring_dump){*out, mem, g_ring_dumps};
    g_ring_dumps = rd;
    return true;
}

const uint8_t *cli_dump_memory(const bb_dump *dump, size_t *len) {
    for (ring_dump *rd = g_ring_dumps; rd; rd = rd->next)
        if (rd->dump == dump) {
            *len = (size_t)bb_dump_file_size(dump);
            return rd->mem;
        }
    return NULL;
}

bool cli_open_dumps(char *const *paths, size_t n, bb_dump ***dumps) {
    bb_dump **d = calloc(n ? n : 1, sizeof *d);
    if (!d) {
        cli_error("out of memory");
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (cli_ring_path_is(paths[i])) {
            if (open_ring(paths[i], &d[i])) continue;
            cli_close_dumps(d, i);
            return false;
        }
        bb_error err;
        memset(&err, 0, sizeof err);
        if (bb_dump_open(paths[i], &d[i], &err) != BB_OK) {
            if (strstr(err.message, paths[i])) cli_error("%s", err.message);
            else
                cli_error("%s: %s", paths[i],
                          err.message[0] ? err.message : bb_strerror(err.status));
            cli_close_dumps(d, i);
            return false;
        }
    }
    *dumps = d;
    return true;
}

void cli_close_dumps(bb_dump **dumps, size_t n) {
    if (!dumps) return;
    for (size_t i = 0; i < n; i++) {
        if (!dumps[i]) continue;
        bb_dump_close(dumps[i]);
        for (ring_dump **p = &g_ring_dumps; *p; p = &(*p)->next)
            if ((*p)->dump == dumps[i]) {
                ring_dump *rd = *p;
                *p = rd->next;
                free(rd->mem);
                free(rd);
                break;
            }
    }
    free(dumps);
}

bool cli_open_model(bb_dump *const *dumps, size_t n, unsigned threads, bb_model **model) {
    bb_error err;
    memset(&err, 0, sizeof err);
    if (bb_model_open_threads(dumps, n, true, threads, model, &err) == BB_OK) return true;
    cli_error("%s", err.message[0] ? err.message : bb_strerror(err.status));
    return false;
}
