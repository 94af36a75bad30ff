/* pq_convert.c — a minimal stand-in for `backbeat convert DUMP... -o OUT.parquet`, calling the
 * Parquet writer directly, so the writer's tests run whether or not the CLI front end is
 * built. Writes OUT and OUT.views.sql (the `events` binding line, then tw_views_ddl).
 *
 * Usage: pq_convert OUT.parquet DUMP...   (BACKBEAT_PARQUET_ROW_GROUP is honoured by the
 * writer). Exit 0 on success, 1 with a message on stderr otherwise.
 */
/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backbeat/model.h"
#include "backbeat/reader.h"
#include "emit/writers.h"

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: pq_convert OUT.parquet DUMP...\n");
        return 2;
    }
    const char *out = argv[1];
    size_t n = (size_t)argc - 2;
    bb_dump **dumps = calloc(n, sizeof *dumps);
    bb_error err;
    for (size_t i = 0; i < n; i++) {
        if (bb_dump_open(argv[i + 2], &dumps[i], &err) != BB_OK) {
            fprintf(stderr, "pq_convert: %s\n", err.message);
            return 1;
        }
    }
    bb_model *model;
    if (bb_model_open(dumps, n, true, &model, &err) != BB_OK) {
        fprintf(stderr, "pq_convert: %s\n", err.message);
        return 1;
    }
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(out);
        return 1;
    }
    convert_opts opts = {.out_name = out, .compression_level = 3};
    const char *lvl = getenv("BACKBEAT_PARQUET_LEVEL");
    if (lvl) opts.compression_level = atoi(lvl);
    char msg[512];
    int rc = tw_write(model, &opts, fd, msg, sizeof msg);
    if (close(fd) != 0 && rc == 0) {
        perror(out);
        rc = 1;
    }
    if (rc) {
        fprintf(stderr, "pq_convert: %s\n", msg);
        return 1;
    }
    char *ddl = tw_views_ddl(model, NULL, NULL, 0); /* the inputs' order, not ranked */
    char *abs = realpath(out, NULL);
    char side[4096];
    snprintf(side, sizeof side, "%s.views.sql", out);
    FILE *f = fopen(side, "w");
    if (!ddl || !abs || !f) {
        fprintf(stderr, "pq_convert: cannot write %s\n", side);
        return 1;
    }
    fputs("CREATE OR REPLACE VIEW events AS SELECT * FROM read_parquet('", f);
    for (const char *p = abs; *p; p++) {
        if (*p == '\'') fputc('\'', f);
        fputc(*p, f);
    }
    fputs("');\n", f);
    fputs(ddl, f);
    if (fclose(f) != 0) return 1;
    free(ddl);
    free(abs);
    bb_model_close(model);
    for (size_t i = 0; i < n; i++) bb_dump_close(dumps[i]);
    free(dumps);
    return 0;
}
