/* consumer.c — a program outside the tree, built against an installed backbeat: defines an
 * event, records a few through a recorder and dumps them to the path given on the command line.
 * usage: consumer OUT.bb [COUNT] */
/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include <backbeat/backbeat.h>

BB_EVENT(job_done, "consumer::jobs", "JobDone", "A job finished.",
         BB_KEY(uint64_t, job_id, "The job."),
         BB_FIELD(uint32_t, items, "Items processed.", BB_UNIT("items")),
         BB_FIELD(uint32_t, retries, "Attempts before success."));

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT.bb [COUNT]\n", argv[0]);
        return 2;
    }
    unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 5;
    bb_recorder *rec = bb_recorder_new(1, 1 << 16);
    if (!rec) return 1;
    bb_recorder_enable(rec, true);
    for (unsigned long i = 0; i < n; i++)
        BB_RECORD(rec, job_done, .job_id = i, .items = (uint32_t)(10 * i), .retries = 0);
    bb_error err;
    bb_status st = bb_recorder_dump_path(rec, argv[1], "consumer-host", &err);
    if (st != BB_OK) fprintf(stderr, "consumer: %s\n", err.message);
    bb_recorder_free(rec);
    printf("consumer: backbeat %s, %lu records to %s\n", bb_version(), n, argv[1]);
    return st == BB_OK ? 0 : 1;
}
