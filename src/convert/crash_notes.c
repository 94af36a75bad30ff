/* convert/crash_notes.c — the inputs' crashes (backbeat::Crash) with their stacks symbolized on
 * this host, one text per crash for the table's `crash` view and the trace's crash instants. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error_set.h"
#include "convert/crash_notes.h"
#include "symbols/symbols.h"

/* The stack of c as text, one "#N frame" line per frame (malloc'ed; NULL when out of memory). */
static char *stack_text(sy_symbolizer *sym, const sy_crash *c) {
    size_t cap = 64 + (size_t)c->nframes * 1100, len = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    s[0] = '\0';
    for (uint32_t i = 0; i < c->nframes; i++) {
        sy_frame f;
        sy_frame_resolve(sym, c, i, &f);
        char line[1024];
        sy_frame_text(&f, line, sizeof line);
        int n = snprintf(s + len, cap - len, "%s#%u %s", i ? "\n" : "", i, line);
        if (n > 0 && (size_t)n < cap - len) len += (size_t)n;
    }
    return s;
}

/* The crashes of one dump appended to out. */
static bool one_dump(const bb_dump *d, sy_symbolizer *sym, cv_crashes *out, bb_error *err) {
    sy_crash *cs = NULL;
    size_t n = 0;
    if (sy_crashes_read(d, &cs, &n, err) != BB_OK) return false;
    convert_crash *q = n ? realloc(out->notes, (out->n + n) * sizeof *q) : out->notes;
    bool ok = !n || q;
    if (q) out->notes = q;
    for (size_t i = 0; i < n && ok; i++) {
        char *text = stack_text(sym, &cs[i]);
        if (!text) {
            ok = false;
            break;
        }
        out->notes[out->n++] = (convert_crash){cs[i].instance_id, cs[i].ts, text};
    }
    sy_crashes_free(cs, n);
    if (!ok) bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "out of memory symbolizing crashes");
    return ok;
}

bool cv_crashes_open(bb_dump *const *dumps, size_t n, const char *symbols, cv_crashes *out,
                     bb_error *err) {
    memset(out, 0, sizeof *out);
    sy_symbolizer *sym = sy_symbolizer_new(symbols);
    bool ok = sym != NULL;
    for (size_t i = 0; i < n && ok; i++) ok = one_dump(dumps[i], sym, out, err);
    sy_symbolizer_free(sym);
    if (!ok) {
        if (!sym) bb__err_set(err, BB_ERR_NOMEM, UINT64_MAX, NULL, "out of memory");
        cv_crashes_close(out);
    }
    return ok;
}

void cv_crashes_close(cv_crashes *c) {
    for (size_t i = 0; i < c->n; i++) free((char *)(uintptr_t)c->notes[i].stack);
    free(c->notes);
    memset(c, 0, sizeof *c);
}
