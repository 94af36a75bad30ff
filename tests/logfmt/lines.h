/* lines.h — the log lines of a recorder, read back: dump it to memory, walk its rings and format
 * each log record with src/logfmt (what the tests of log lines compare). Header-only. */
/* SPDX-License-Identifier: MIT */
#ifndef BB_TEST_LOG_LINES_H
#define BB_TEST_LOG_LINES_H

#include <stdlib.h>
#include <string.h>

#include "backbeat/model.h"
#include "backbeat/reader.h"
#include "backbeat/recorder.h"
#include "logfmt/logfmt.h"

typedef struct test_line {
    uint64_t ts;
    int level;
    char file[256]; /* as shown */
    char path[256]; /* as recorded */
    uint32_t line;
    char function[64];
    char msg[512];
} test_line;

/* Every log record of `rec` in time order; *n lines, malloc'd (NULL on failure). Other records
 * are counted in *others when it is non-NULL. */
static inline test_line *test_log_lines(bb_recorder *rec, size_t *n, size_t *others) {
    void *buf = NULL;
    size_t len = 0;
    bb_error err;
    bb_dump *d = NULL;
    bb_model *m = NULL;
    bb_model_iter *it = NULL;
    test_line *out = NULL;
    lf_cache *cache = NULL;
    bb_mrecord r;
    *n = 0;
    if (others) *others = 0;
    if (bb_recorder_dump_buffer(rec, &buf, &len, &err) != BB_OK) return NULL;
    if (bb_dump_open_memory(buf, len, "log-test", &d, &err) != BB_OK) goto done;
    if (bb_model_open(&d, 1, true, &m, &err) != BB_OK || bb_model_iter_new(m, &it) != BB_OK)
        goto done;
    out = (test_line *)calloc(bb_model_record_count(m) + 1, sizeof *out);
    cache = lf_cache_new();
    while (out && bb_model_next(it, &r)) {
        const lf_site *s = lf_cache_get(cache, r.rec.schema);
        if (!s) {
            if (others) ++*others;
            continue;
        }
        test_line *l = &out[(*n)++];
        l->ts = r.rec.ts;
        l->level = s->level;
        l->line = s->line;
        snprintf(l->file, sizeof l->file, "%.*s", (int)s->file.len, s->file.ptr);
        snprintf(l->path, sizeof l->path, "%.*s", (int)s->path.len, s->path.ptr);
        snprintf(l->function, sizeof l->function, "%.*s", (int)s->function.len, s->function.ptr);
        lf_format(s, r.rec.schema, r.rec.fields, r.instance, l->msg, sizeof l->msg);
    }
    lf_cache_free(cache);
done:
    bb_model_iter_free(it);
    bb_model_close(m);
    bb_dump_close(d);
    free(buf);
    return out;
}

#endif
