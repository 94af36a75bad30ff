/* golden.c — every golden dump in the compat directory decodes, through the reader alone, to
 * exactly its NAME.expected.json (registry sorted by name, instances, intern tables with lossy
 * strings, views, shards with head/capacity/record counts, and every record in global order with
 * its decoded values), and the walk's skipped-byte counts on the torn fixture. Exits 77 when the golden vectors are absent.
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dump_json.h"
#include "json.h"

static const char *const FIXTURES[] = {"basic", "torn",    "wrapped", "wrapped_suffix",
                                       "empty", "multi_a", "multi_b", "multi_other"};

static const char *compat_dir(void) {
    const char *d = getenv("BACKBEAT_COMPAT_DIR");
    return d && *d ? d : "/work/shared/compat";
}

int main(void) {
    char path[4096];
    snprintf(path, sizeof path, "%s/basic.bb", compat_dir());
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "golden vectors absent (%s): skipped\n", path);
        return 77;
    }
    int failures = 0;
    for (size_t i = 0; i < sizeof FIXTURES / sizeof *FIXTURES; i++) {
        const char *name = FIXTURES[i];
        snprintf(path, sizeof path, "%s/%s.bb", compat_dir(), name);
        bb_dump *d = NULL;
        bb_error err;
        if (bb_dump_open(path, &d, &err) != BB_OK) {
            fprintf(stderr, "FAIL %s: open: %s\n", name, err.message);
            failures++;
            continue;
        }
        /* Torn-record skipping (compat/README.md "torn.bb"): shard 0's overwritten 18-byte
         * Tick and shard 1's 58-byte half-written Scalars are skipped; clean rings skip 0. */
        static const struct {
            const char *name;
            uint64_t skipped[2];
        } SKIPS[] = {{"basic", {0, 0}}, {"torn", {18, 58}}, {"empty", {0, 0}}};
        for (size_t k = 0; k < sizeof SKIPS / sizeof *SKIPS; k++) {
            if (strcmp(SKIPS[k].name, name) != 0) continue;
            const bb_rinstance *in = bb_dump_instance(d, 0);
            for (size_t s = 0; in && s < in->shard_count && s < 2; s++) {
                bb_walk_stats st;
                bb_shard_walk(d, &in->shards[s], NULL, NULL, &st);
                if (st.skipped_bytes != SKIPS[k].skipped[s]) {
                    fprintf(stderr, "FAIL %s: shard %zu skipped %llu bytes, want %llu\n", name, s,
                            (unsigned long long)st.skipped_bytes,
                            (unsigned long long)SKIPS[k].skipped[s]);
                    failures++;
                }
            }
        }
        sbuf b = {0};
        dump_to_json(&b, d);
        char perr[256] = "";
        json_value *got = json_parse(b.p, b.len, perr, sizeof perr);
        snprintf(path, sizeof path, "%s/%s.expected.json", compat_dir(), name);
        char eerr[256] = "";
        json_value *want = json_parse_file(path, eerr, sizeof eerr);
        char where[512] = "";
        if (!got) {
            fprintf(stderr, "FAIL %s: our JSON does not parse: %s\n%s\n", name, perr, b.p);
            failures++;
        } else if (!want) {
            fprintf(stderr, "FAIL %s: %s\n", name, eerr);
            failures++;
        } else if (!json_equal(got, want, where, sizeof where)) {
            fprintf(stderr, "FAIL %s: differs at %s\n", name, where);
            failures++;
        } else {
            printf("ok %s (%zu instances)\n", name, bb_dump_instance_count(d));
        }
        json_free(got);
        json_free(want);
        sb_free(&b);
        bb_dump_close(d);
    }
    return failures ? 1 : 0;
}
