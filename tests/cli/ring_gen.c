/* ring_gen.c — writes a small ring file for the ring-file fuzz target's seed corpus
 * (fuzz/seeds.sh): a file-backed recorder of 2 shards x 4 KiB whose rings have wrapped, an
 * event with an interned string and an enum, a view set, and an intern table small enough to
 * fill (so the header's intern-full word is set), and two log lines (BB_LOG) last. Kept at exit
 * (state closed).
 *
 * Usage: ring_gen DIR   (prints the ring file's path)
 */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "backbeat/backbeat.h"

BB_ENUM(rg_kind, uint8_t, (RG_A, 0, "a"), (RG_B, 1, "b"));
BB_EVENT(rg_ev, "ring_gen", "Ev", "a seed event", BB_KEY(uint64_t, n, "a counter"),
         BB_INTERN_DYN_F(s, "a string"), BB_ENUM_F(rg_kind, k, NULL),
         BB_FIELD(uint8_t[3], _pad, NULL));
BB_VIEWS(rg_views, "CREATE VIEW ring_gen_last AS SELECT * FROM events ORDER BY ts DESC LIMIT 1;");

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: ring_gen DIR\n");
        return 2;
    }
    bb_recorder_options o;
    bb_recorder_options_init(&o);
    o.shards = 2;
    o.bytes_per_shard = 4096;
    o.intern_entries = 6;
    o.intern_bytes = 1024;
    bb_recorder *rec = NULL;
    bb_error err;
    if (bb_recorder_create_ring(&o, argv[1], true, &rec, &err) != BB_OK) {
        fprintf(stderr, "ring_gen: %s\n", err.message);
        return 1;
    }
    bb_recorder_enable(rec, true);
    char s[16];
    for (unsigned i = 0; i < 400; i++) {
        snprintf(s, sizeof s, "s%u", i % 8); /* 8 strings, 6 entries: the table fills */
        BB_RECORD(rec, rg_ev, .n = i, .s = bb_intern_str(rec, s), .k = i % 2 ? RG_B : RG_A);
    }
    BB_LOG(rec, BB_WARN, "ring_gen wrote %u records", 400u);
    BB_LOG(rec, BB_INFO, "ring_gen done");
    printf("%s\n", bb_recorder_ring_path(rec));
    bb_recorder_free(rec);
    return 0;
}
