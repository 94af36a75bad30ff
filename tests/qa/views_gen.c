/* views_gen.c OUT.bb — a dump carrying view sets whose last statement has no terminating ';'
 * (one ends in a comment), which the views.sql sidecar must still load as separate statements. */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include <backbeat/backbeat.h>

BB_EVENT(vg_tick, "qa::views", "Tick", NULL, BB_KEY(uint64_t, n, NULL));

BB_VIEWS(vg_first,
         "CREATE OR REPLACE VIEW qa_one AS SELECT count(*) AS ticks FROM \"qa::views::Tick\"");
BB_VIEWS(vg_second, "CREATE OR REPLACE VIEW qa_two AS SELECT max(n) AS top FROM events -- no ';'");
BB_VIEWS(vg_third, "CREATE OR REPLACE VIEW qa_three AS SELECT 3 AS three;\n");

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    bb_recorder *rec = bb_recorder_new(1, 4096);
    if (!rec) return 1;
    bb_recorder_enable(rec, true);
    for (uint64_t i = 1; i <= 5; i++) BB_RECORD(rec, vg_tick, .n = i);
    bb_error err;
    bb_status st = bb_recorder_dump_path(rec, argv[1], "qa-host", &err);
    if (st != BB_OK) fprintf(stderr, "views_gen: %s\n", err.message);
    bb_recorder_free(rec);
    return st == BB_OK ? 0 : 1;
}
