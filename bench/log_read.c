/* log_read.c — the read side of log lines (issue 41; section `log` of scripts/bench.sh): lines
 * per second that src/logfmt formats on one thread. 1 000 000 lines of four call sites (three
 * integers; a string and a double; a pointer and a hex width; an interned string) are recorded,
 * dumped to memory and read back; then, over ROUNDS rounds, (a) lf_format of every record
 * already in hand (the formatter alone) and (b) the model's iteration plus lf_line of every
 * record (what `backbeat log` does before writing), medians with min and max.
 * Usage: log_read [lines [rounds]] */
/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backbeat/log.h"
#include "backbeat/model.h"
#include "logfmt/logfmt.h"

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct held {
    const lf_site *site;
    const bb_rschema *schema;
    const bb_rinstance *inst;
    uint8_t fields[64];
} held;

int main(int argc, char **argv) {
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    bb_recorder *rec = bb_recorder_new(1, 128u << 20);
    bb_recorder_enable(rec, true);
    static const char *const users[] = {"alice", "bob", "carol", "dave"};
    for (uint64_t i = 0; i < n; i++) {
        switch (i & 3) {
        case 0:
            BB_LOG(rec, BB_INFO, "req %d took %u us (%" PRIu64 ")", (int)i, (unsigned)i * 3, i * 7);
            break;
        case 1: BB_LOG(rec, BB_WARN, "user %s: load %.2f", users[i & 3], (double)i / 7.0); break;
        case 2:
            BB_LOG(rec, BB_INFO, "buffer %p size %#010x", (void *)(uintptr_t)i, (unsigned)i);
            break;
        default: BB_LOG(rec, BB_ERROR, "route %s failed", BB_I("/kv/get")); break;
        }
    }
    void *buf;
    size_t len;
    bb_error err;
    bb_dump *d;
    bb_model *m;
    if (bb_recorder_dump_buffer(rec, &buf, &len, &err) ||
        bb_dump_open_memory(buf, len, "mem", &d, &err) || bb_model_open(&d, 1, true, &m, &err)) {
        fprintf(stderr, "log_read: %s\n", err.message);
        return 1;
    }
    lf_cache *cache = lf_cache_new();
    held *h = malloc(n * sizeof *h);
    uint64_t got = 0;
    bb_model_iter *it;
    bb_mrecord r;
    bb_model_iter_new(m, &it);
    while (got < n && bb_model_next(it, &r)) {
        h[got] = (held){lf_cache_get(cache, r.rec.schema), r.rec.schema, r.instance, {0}};
        memcpy(h[got].fields, r.rec.fields, r.rec.schema->record_size);
        if (h[got].site) got++;
    }
    bb_model_iter_free(it);
    double fmt[64], full[64];
    char line[1024];
    uint64_t sum = 0;
    for (int k = 0; k < rounds && k < 64; k++) {
        uint64_t t0 = now_ns();
        for (uint64_t i = 0; i < got; i++)
            sum += lf_format(h[i].site, h[i].schema, h[i].fields, h[i].inst, line, sizeof line);
        fmt[k] = (double)got / ((double)(now_ns() - t0) / 1e9);
        t0 = now_ns();
        bb_model_iter_new(m, &it);
        uint64_t c = 0;
        while (bb_model_next(it, &r)) {
            const lf_site *s = lf_cache_get(cache, r.rec.schema);
            if (s)
                sum += lf_line(s, r.rec.schema, &r.rec, r.instance, NULL, line, sizeof line), c++;
        }
        bb_model_iter_free(it);
        full[k] = (double)c / ((double)(now_ns() - t0) / 1e9);
    }
    qsort(fmt, (size_t)rounds, sizeof *fmt, cmp);
    qsort(full, (size_t)rounds, sizeof *full, cmp);
    printf("== log lines, read side: %" PRIu64 " lines, %d rounds, one thread (thread CPU time)\n",
           got, rounds);
    printf("  lf_format alone                  %6.2f M lines/s [%.2f %.2f]\n",
           fmt[rounds / 2] / 1e6, fmt[0] / 1e6, fmt[rounds - 1] / 1e6);
    printf("  model iteration + lf_line        %6.2f M lines/s [%.2f %.2f]\n",
           full[rounds / 2] / 1e6, full[0] / 1e6, full[rounds - 1] / 1e6);
    printf("  (checksum %" PRIu64 "; last: %s)\n", sum, line);
    free(h);
    lf_cache_free(cache);
    bb_model_close(m);
    bb_dump_close(d);
    free(buf);
    bb_recorder_free(rec);
    return 0;
}
