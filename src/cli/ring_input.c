/* cli/ring_input.c — the inputs of every subcommand: dumps, and ring files recovered in memory
 * as `backbeat recover` does, opened by the stage (convert/inputs.h) with its warnings and
 * failure printed; see cli_util.h. */
/* SPDX-License-Identifier: MIT */
#include "cli/cli_util.h"

#include <stdlib.h>
#include <string.h>

#include "convert/inputs.h"

/* The input sets open (cli_dump_memory finds a dump's bytes among them; merge asks by dump). */
typedef struct input_set {
    cv_inputs in;
    struct input_set *next;
} input_set;
static input_set *g_sets;

const uint8_t *cli_dump_memory(const bb_dump *dump, size_t *len) {
    for (input_set *s = g_sets; s; s = s->next)
        for (size_t i = 0; i < s->in.n; i++)
            if (s->in.dumps[i] == dump) return cv_inputs_memory(&s->in, i, len);
    return NULL;
}

bool cli_open_dumps(char *const *paths, size_t n, bb_dump ***dumps) {
    input_set *s = calloc(1, sizeof *s);
    bb_error err;
    if (!s) {
        cli_error("out of memory");
        return false;
    }
    if (!cv_inputs_open(paths, n, cli_warn, NULL, &s->in, &err)) {
        cli_error("%s", err.message);
        free(s);
        return false;
    }
    s->next = g_sets;
    g_sets = s;
    *dumps = s->in.dumps;
    return true;
}

void cli_close_dumps(bb_dump **dumps, size_t n) {
    (void)n;
    for (input_set **p = &g_sets; dumps && *p; p = &(*p)->next)
        if ((*p)->in.dumps == dumps) {
            input_set *s = *p;
            *p = s->next;
            cv_inputs_close(&s->in);
            free(s);
            return;
        }
}
