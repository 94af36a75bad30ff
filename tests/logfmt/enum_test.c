/* enum_test.c — BB_E: a log argument of a BB_ENUM type is recorded with the enum's labels and
 * read back as its label for %d, %i and %u (width and '-' applied), as the number (with the
 * repr's sign) when the value has no label or the conversion is %x/%o/%c; the argument is
 * evaluated once; the site's schema carries the labels; a site first recorded after a dump is
 * in the next dump. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "backbeat/event.h"
#include "backbeat/log.h"
#include "check.h"
#include "lines.h"

BB_ENUM(lf_role, uint8_t, (LF_CLIENT, 0, "client"), (LF_SERVER, 1, "server"));
BB_ENUM(lf_temp, int16_t, (LF_COLD, -40, "cold"), (LF_HOT, 90, "hot"));
BB_ENUM(lf_big, uint64_t, (LF_FAR, 0xFFFFFFFFFFFFFFF0u, "far"));

/* The labels of the first field of the schema of the first log record on `line`. */
static size_t labels_of_line(bb_recorder *rec, uint32_t line, char *first, size_t cap) {
    void *buf = NULL;
    size_t len = 0, count = 0;
    bb_error err;
    bb_dump *d = NULL;
    bb_model *m = NULL;
    bb_model_iter *it = NULL;
    bb_mrecord r;
    lf_cache *cache = lf_cache_new();
    first[0] = '\0';
    if (bb_recorder_dump_buffer(rec, &buf, &len, &err) == BB_OK &&
        bb_dump_open_memory(buf, len, "enum-test", &d, &err) == BB_OK &&
        bb_model_open(&d, 1, true, &m, &err) == BB_OK && bb_model_iter_new(m, &it) == BB_OK) {
        while (bb_model_next(it, &r)) {
            const lf_site *s = lf_cache_get(cache, r.rec.schema);
            if (!s || s->line != line || r.rec.schema->field_count < 1) continue;
            const bb_rfield *f = &r.rec.schema->fields[0];
            count = f->type == BB_TYPE_ENUM ? f->label_count : 0;
            if (count)
                snprintf(first, cap, "%.*s", (int)f->labels[0].label.len, f->labels[0].label.ptr);
            break;
        }
    }
    lf_cache_free(cache);
    bb_model_iter_free(it);
    bb_model_close(m);
    bb_dump_close(d);
    free(buf);
    return count;
}

/* The line of its BB_LOG in *line; records it if `rec`. */
static void log_role(bb_recorder *r, bool rec, uint32_t *line) {
    /* clang-format off */
    *line = __LINE__; if (rec) BB_LOG(r, BB_INFO, "role %d", BB_E(lf_role, LF_SERVER));
    /* clang-format on */
}

int main(void) {
    bb_recorder *r = bb_recorder_new(1, 1 << 20);
    bb_recorder_enable(r, true);
    bb_log_level_set(BB_TRACE);
    int evaluated = 0;
    uint32_t role_line = 0;
    char label[32];
    /* Before its first recording the site is in no dump; after it, with its labels. */
    log_role(r, false, &role_line);
    CHECK(labels_of_line(r, role_line, label, sizeof label) == 0, "labels before");
    log_role(r, true, &role_line);
    size_t nl = labels_of_line(r, role_line, label, sizeof label);
    CHECK(nl == 2 && !strcmp(label, "client"), "%zu labels, first %s", nl, label);
    BB_LOG(r, BB_INFO, "[%d] [%-8i] [%8u] [%.2d] hex=%x oct=%o", BB_E(lf_role, LF_CLIENT),
           BB_E(lf_role, LF_SERVER), BB_E(lf_role, LF_CLIENT), BB_E(lf_role, LF_SERVER),
           BB_E(lf_role, LF_SERVER), BB_E(lf_role, LF_SERVER));
    BB_LOG(r, BB_INFO, "unlabelled %d %u; signed %d %d %d %x", BB_E(lf_role, 7), BB_E(lf_role, 255),
           BB_E(lf_temp, LF_COLD), BB_E(lf_temp, -5), BB_E(lf_temp, LF_HOT), BB_E(lf_temp, -5));
    BB_LOG(r, BB_WARN, "once %d then %d", BB_E(lf_role, (uint8_t)(++evaluated)), evaluated);
    BB_LOG(r, BB_INFO, "wide %d %u", BB_E(lf_big, LF_FAR), BB_E(lf_big, 3));
    BB_LOG(r, BB_INFO, "plain %d", LF_SERVER); /* without BB_E: the number */
    CHECK(evaluated == 1, "BB_E's value evaluated %d times", evaluated);

    static const char *const want[] = {
        "role server",
        "[client] [server  ] [  client] [server] hex=1 oct=1",
        "unlabelled 7 255; signed cold -5 hot fffffffb",
        "once server then 1",
        "wide far 3",
        "plain 1",
    };
    size_t n = 0;
    test_line *l = test_log_lines(r, &n, NULL);
    CHECK(n == sizeof want / sizeof want[0], "%zu lines", n);
    for (size_t i = 0; l && i < n && i < sizeof want / sizeof want[0]; i++)
        CHECK(!strcmp(l[i].msg, want[i]), "line %zu:\n  got  \"%s\"\n  want \"%s\"", i, l[i].msg,
              want[i]);
    free(l);
    bb_recorder_free(r);
    return failures ? 1 : 0;
}
